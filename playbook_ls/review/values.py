"""The values a change changes at a task, per host: for the variables a task's arguments and
conditions read (and those their definitions read, a few levels down) that a changed variables
file defines differently, the value on each host in each revision and where it comes from.

Only names a changed file sets differently are looked at (a vars file, group_vars/host_vars, a
role's defaults or vars), so the cost follows the change, not the playbook; a value changed
through the inventory's own lines (an ini host line) is not followed here."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playbook_ls.review.value_classes import names_in

if TYPE_CHECKING:
    from collections.abc import Mapping

    from playbook_ls.review.sides import PlaybookView, TaskKey



@dataclass
class ValueChange:
    task: Any
    """The task (TaskView) in the new revision."""
    name: str
    before: str
    after: str
    hosts: list[str] = field(default_factory=list)


def changed_names(old_root: str, new_root: str, changed: set[str], caches: Mapping[str, Any]) -> set[str]:
    """The top-level names whose value differs between the two revisions of each changed
    variables file (a YAML or JSON mapping); every name of one that only one side has.
    ``caches``: each side's parses, by its root."""
    names: set[str] = set()
    for path in changed:
        if not path.endswith((".yml", ".yaml", ".json")):
            continue
        sides = []
        for root in (old_root, new_root):
            full = os.path.join(root, path)
            loaded = caches[root].load(full) if os.path.isfile(full) else None
            sides.append(loaded.data if loaded is not None and loaded.error is None else None)
        if not any(isinstance(side, dict) for side in sides):
            continue  # a task list, a playbook: no variables of its own
        before, after = (side if isinstance(side, dict) else {} for side in sides)
        names |= {str(key) for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    return names


def inventory_names(old_plan: Any, new_plan: Any) -> set[str]:
    """The names the two plans' inventories set differently on a host or a group (by type and
    value) in their own lines (an ini host line, a YAML inventory's ``vars``); group_vars and
    host_vars files are variables files, compared as such."""
    from playbook_ls.review.reuse import ROOTED_NAMES, same_value

    names: set[str] = set()
    for kind in ("hosts", "groups"):
        before, after = getattr(old_plan.inventory.data, kind), getattr(new_plan.inventory.data, kind)
        for name in before.keys() & after.keys():  # a host or group added or removed shows in the outcomes
            was, now = before[name].vars, after[name].vars
            names |= {str(key) for key in was.keys() | now.keys()
                      if key not in was or key not in now or not same_value(was[key], now[key])}
    return names - ROOTED_NAMES  # the revision's directory: not a change


def values_at(view: PlaybookView, keys: set[TaskKey], names: set[str],
              notes: list[str] | None = None) -> dict[TaskKey, dict[str, dict[str, str]]]:
    """For each task of ``keys``, on each host of its play: the value (with where it comes from)
    of each name of ``names`` it reads, down to :data:`~playbook_ls.review.value_classes.DEPTH`
    levels of definitions, read once per class of hosts that see them alike
    (:mod:`playbook_ls.review.value_classes`). ``notes`` receives what was not compared. The
    working directory must be the side's root."""
    from playbook_ls.review.sides import named_in
    from playbook_ls.review.value_classes import MAX_HOSTS, TaskValues

    found: dict[TaskKey, dict[str, dict[str, str]]] = {}
    answers: dict[Any, Any] = {}  # each host's inventory answers for the names read, asked once per play
    for play in view.plays:
        plan_play = play.plan_play
        tasks = [task for task in play.play.all_tasks() if view.keys.get(id(task)) in keys]
        for task in tasks:
            reading = TaskValues(view.plan, plan_play, task, shown_roots(task, names), answers)
            per_host: dict[str, dict[str, str]] = {}
            left = 0
            for host in plan_play.hosts:
                seen = reading.of(host)
                if seen is None:
                    left += 1
                    continue
                per_host[host.name] = {name: named_in(text, *play.roots) for name, text in seen.items()
                                       if name in names}
            if left and notes is not None:
                shown = named_in(task.display_name(), *play.roots)
                notes.append(f"values at task '{shown}' compared on {len(plan_play.hosts) - left} of "
                             f"{len(plan_play.hosts)} hosts: what it reads is each host's own (its name, what earlier "
                             f"tasks set); past {MAX_HOSTS} hosts read one by one, the rest are not compared")
            found[view.keys[id(task)]] = per_host
    return found


def compare_values(before: dict[TaskKey, dict[str, dict[str, str]]], after: dict[TaskKey, dict[str, dict[str, str]]],
                   pairs: dict[TaskKey, TaskKey], new_tasks: Mapping[TaskKey, Any]) -> list[ValueChange]:
    """The values that differ, hosts alike together."""
    grouped: dict[tuple[TaskKey, str, str, str], ValueChange] = {}
    for old_key, new_key in pairs.items():
        if old_key not in before or new_key not in after:
            continue
        for host, now in after[new_key].items():
            was = before[old_key].get(host)
            if was is None:  # not a host of the play before (the outcomes say so), or not compared
                continue
            for name in sorted(set(now) | set(was)):
                old_text, new_text = was.get(name, "undefined"), now.get(name, "undefined")
                if old_text == new_text:
                    continue
                change = grouped.setdefault((new_key, name, old_text, new_text),
                                            ValueChange(new_tasks[new_key], name, old_text, new_text))
                change.hosts.append(host)
    return list(grouped.values())


def shown_roots(task: Any, names: set[str]) -> set[str]:
    """What a reading of ``task`` starts from: the names it reads that the change reaches (no other
    is shown), or every name it reads when it loops (an item's value is what its loop read)."""
    from engine.flow.loops import loop_of

    read = read_names(task)
    return read if loop_of(task) is not None else read & names


def read_names(task: Any) -> set[str]:
    """The names a task's arguments, templated keywords and conditions (its own and those it
    inherits) read."""
    from engine.templating.variable_uses import names_read, task_uses

    found = {use.name for use in task_uses(task).uses}
    for condition in task.effective_when():
        if isinstance(condition.value, str):
            found |= names_read(condition.value, expression=True) or set()
    return found


def affected_names(roots: list[str], reads: set[str], changed: set[str]) -> set[str]:
    """``changed`` and every name whose definition, in a variables file read on either side,
    reads one of them, and so on: what a task sees changed through a template."""
    from engine.parsing.source import SourceCache

    cache = SourceCache()
    readers: dict[str, set[str]] = {}
    for root in roots:
        for path in reads:
            full = os.path.join(root, path)
            if not path.endswith((".yml", ".yaml", ".json")) or not os.path.isfile(full):
                continue
            loaded = cache.load(full)
            if loaded.error is None and isinstance(loaded.data, dict):
                for key, value in loaded.data.items():
                    for name in names_in(value):
                        readers.setdefault(name, set()).add(str(key))
    affected, frontier = set(changed), set(changed)
    while frontier:
        frontier = {reader for name in frontier for reader in readers.get(name, ())} - affected
        affected |= frontier
    return affected

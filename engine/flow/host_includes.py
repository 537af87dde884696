"""Includes whose file only the run names: an ``include_tasks`` or ``include_role`` the static
model could not follow, its target a template over each host's variables (``tasks/{{ kind
}}.yml``). The plan templates the target per host with what the host sees at the include, loads
each distinct file once, as a run loads it (engine.loading.includes), and plans its tasks right
after the include for the hosts that load it; the other hosts never load them. The hosts are
taken class by class as a ``group_by``'s are (engine.variables.change_classes): a host whose
variables answer the names the first host's arguments read alike loads what that host loaded,
without its variables at the include being worked out again (a fleet's hosts x includes). So do
the hosts of the class of one whose arguments only the run knows, or whose file does not load (a
role not installed): they are told the same words, unless those may name the host's own values (its
name, its own line or host_vars setting a name the arguments read), when each is worked out on its
own. A looping one loads the file each item names, item by item, a copy per item
(engine.variables.item_files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.flow.host_outcome import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome, include_args_need
from engine.flow.loops import loop_of
from engine.flow.outcomes import alike
from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Block, Task


MAX_DEPTH = 50
"""Run-time includes within run-time includes the plan follows. A file that includes itself, or
two that include each other, make ansible-playbook include again until Python's recursion limit
ends the run (a RecursionError, exit 250) unless a condition stops it first; no real playbook
nests includes this deep, and each level costs the plan more than the one before."""

LOAD_FAILURE = "its file does not load on this host"
"""How an include's failure to load begins: ansible reports the include ok, then failed, and
fails the host whatever ``ignore_errors`` says (a rescue section may still take over)."""


def shared_loader(plan: Plan) -> Any:
    """The plan's loader of run-time includes, one for the plan and the variables it follows
    (engine.variables.host_includes): a file a host includes loads as the same tasks for both, so
    the play's order holds them once (two copies of them would each set their facts on the host)."""
    loader = plan.__dict__.get("include loader")
    if loader is None:
        from engine.loading.includes import IncludeLoader

        loader = plan.__dict__["include loader"] = IncludeLoader(plan.inventory.cache)
    return loader


@dataclass
class Loaded:
    """A task a run-time include loads, with the outcomes the include decides for it: left out
    on the hosts that load another file (or none), depending where the include itself does."""

    task: Task
    includers: list[Task]
    fixed: dict[str, HostOutcome] = field(default_factory=dict)
    maybe: dict[str, HostOutcome] = field(default_factory=dict)

    def apply(self, outcomes: dict[str, HostOutcome]) -> dict[str, HostOutcome]:
        found = dict(outcomes)
        for host in found:
            if host in self.fixed:
                found[host] = self.fixed[host]
            elif host in self.maybe and found[host].outcome != SKIPPED:
                found[host] = self.maybe[host]
        return found


@dataclass(frozen=True)
class _Unloaded:
    """Why an include's file does not load on a host (the include fails the hosts it runs on)."""

    reason: str


class RuntimeIncludes:
    def __init__(self, plan: Plan, play_plan: PlayPlan) -> None:
        self.plan, self.play_plan = plan, play_plan
        self._loader: Any = None
        self.handlers: list[Task] = []
        """The handlers the last :meth:`expand` added to the play's (an included role's)."""

    @staticmethod
    def follows(task: Task) -> bool:
        """Whether ``task`` is an include the static model left without its tasks, which the
        plan loads per host (with a loop: the file or role each item names, item by item)."""
        return task.action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE and not task.children and \
            task.include_target is not None and isinstance(task.args, Mapping)

    def expand(self, include: Task, outcomes: Mapping[str, HostOutcome], includers: list[Task],
               where: str) -> tuple[list[Loaded], dict[str, HostOutcome]]:
        """The tasks ``include`` loads, in run order, for the hosts it runs on (``outcomes``),
        and the include's outcome on hosts where loading fails (a file not found)."""
        from engine.flow.notify import with_includers
        from engine.flow.role_from_files import merged_from_files, tasks_differ, why_merged
        from engine.templating.errors import RunTimeOnly, cause_of
        from engine.templating.read_names import names_recorded
        from engine.templating.templar import TemplateFailure
        from engine.variables.change_classes import HostClasses
        from engine.variables.report import add_loaded_tasks
        from engine.variables.task_variables import variables_at
        from engine.variables.walk_classes import host_classes

        self.handlers = []
        if len(includers) >= MAX_DEPTH:
            return [], _too_deep(include, includers, outcomes)
        if loop_of(include) is not None:  # the load left it: its items name its file (with what the host sees)
            loaded = self._per_item(include, includers, outcomes, where)
            _known_includers(self.play_plan.play, loaded)
            return loaded, {}
        groups: dict[int, tuple[list[Block], list[str], str, list[Task]]] = {}
        failing: dict[str, HostOutcome] = {}
        unknown: dict[str, str] = {}
        targets: dict[str, str] = {}  # what each host includes
        args: dict[str, Any] = {}  # the include's arguments on each host
        hosts = {host.name: host for host in self.play_plan.hosts}
        # (what the tasks before set on each host found once per class of the walk before the include)
        classes = HostClasses(self.plan, self.play_plan, include, host_classes) if len(outcomes) > 1 else None
        for name, outcome in outcomes.items():
            if outcome.outcome not in (RUNS, DEPENDS) or name not in hosts:
                continue
            loads = classes.joined(hosts[name]) if classes is not None else None
            if loads is None:
                with names_recorded() as read:
                    templar = variables_at(self.plan, self.play_plan, hosts[name], include).templar
                    read.clear()  # the host's variables at the include are worked out: what its arguments read
                    loads = include_args_need(self.plan, self.play_plan, hosts[name], include)
                    if loads is None:
                        try:
                            blocks, result = self.loader.load(include, templar, self.play_plan.play)
                        except TemplateFailure as exc:  # a file named from a result's key (say), or none loads
                            loads = f"what only the run knows ({exc})" if cause_of(exc, RunTimeOnly) is not None \
                                else _Unloaded(f"{LOAD_FAILURE}: {exc}")
                if loads is None:
                    handlers = [task for block in self.loader.handlers for task in block.tasks() if not task.implicit]
                    loads = (blocks, result, handlers)
                    if classes is not None:  # the hosts whose variables answer what it read alike load the same
                        classes.add(hosts[name], read, loads)
                elif classes is not None and (named := _argument_names(include)) is not None and \
                        not _own_words(self.plan, self.play_plan, hosts[name], include, read | named):
                    # the words speak of each name its arguments read: the same for the hosts of its class
                    classes.add(hosts[name], read | named, loads)
            if isinstance(loads, str):  # what only the run knows, in the same words as its class's first host
                unknown[name] = loads
                continue
            if isinstance(loads, _Unloaded):  # the file does not load, as on its class's first host
                if outcome.outcome == RUNS:
                    failing[name] = HostOutcome(FAILS, loads.reason)
                continue
            blocks, result, handlers = loads
            group = groups.setdefault(id(blocks), (blocks, [], str(result.get("include", "")), handlers))
            group[1].append(name)
            targets[name] = group[2]
            args[name] = result.get("include_args", {})
        merged = {name: files for name, files in merged_from_files(include, args).items() if tasks_differ(files)}
        loaded: list[Loaded] = []
        for blocks, members, target, handlers in groups.values():
            fixed = {name: _elsewhere(where, unknown.get(name), targets.get(name)) for name in outcomes
                     if name not in members and name not in merged}
            maybe = {name: alike(DEPENDS, f"runs only if the include at {where} runs on this host "
                                          f"(it loads {target} there)")
                     for name in members if outcomes[name].outcome == DEPENDS}
            if members[0] in merged:  # which of the copies each of these hosts runs is the run's
                files = HostOutcome(DEPENDS, why_merged(include, merged[members[0]]))
                maybe.update((name, files) for name in merged if name not in fixed and name not in unknown)
            loaded += [Loaded(task, outer, fixed, maybe)
                       for task, outer in with_includers(blocks, [*includers, include])]
            self.handlers += handlers
        for blocks, members, _target, _handlers in groups.values():  # which hosts load which file's tasks
            add_loaded_tasks(self.play_plan.play, include, list(with_includers(blocks, [*includers, include])),
                             members)
        if unknown:
            loaded += self._could_load(include, includers, outcomes, unknown, set(targets.values()), where)
        _known_includers(self.play_plan.play, loaded)
        return loaded, failing

    def _per_item(self, include: Task, includers: list[Task], outcomes: Mapping[str, HostOutcome],
                  where: str) -> list[Loaded]:
        """The tasks of the file each item of a looping include names, a copy per item
        (engine.variables.item_files) run at that item by the hosts whose item names it; on the
        hosts whose items or files only the run knows, those of each file it could name."""
        from engine.flow.notify import with_includers
        from engine.variables.item_files import item_copies
        from engine.variables.report import add_loaded_tasks

        hosts = {host.name: host for host in self.play_plan.hosts}
        running = [hosts[name] for name, outcome in outcomes.items()
                   if outcome.outcome in (RUNS, DEPENDS) and name in hosts]
        copies, unknown = item_copies(self.plan, self.play_plan, include, running, self.loader)
        loaded: list[Loaded] = []
        for copy in copies:
            members = set(copy.hosts)
            fixed = {name: alike(DEPENDS, f"the include at {where} names its file per item from {unknown[name]}")
                     if name in unknown else
                     alike(SKIPPED, f"not loaded on this host: the include at {where} does not load "
                                    f"{copy.target} at item {copy.index + 1} here", True)
                     for name in outcomes if name not in members}
            maybe = {name: alike(DEPENDS, f"runs only if the include at {where} runs on this host "
                                          f"(it loads {copy.target} at item {copy.index + 1} there)")
                     for name in members if outcomes[name].outcome == DEPENDS}
            tasks = list(with_includers(copy.blocks, [*includers, include]))
            loaded += [Loaded(task, outer, fixed, maybe) for task, outer in tasks]
            self.handlers += copy.handlers
        for copy in reversed(copies):  # each is placed right after the include: the first item's first
            add_loaded_tasks(self.play_plan.play, include, list(with_includers(copy.blocks, [*includers, include])),
                             copy.hosts)
        if unknown:
            loaded += self._could_load(include, includers, outcomes, unknown, {copy.target for copy in copies}, where)
        return loaded

    def _could_load(self, include: Task, includers: list[Task], outcomes: Mapping[str, HostOutcome],
                    unknown: Mapping[str, str], loaded: set[str], where: str) -> list[Loaded]:
        """The tasks of each file an ``include_tasks`` whose file the run names on the hosts of
        ``unknown`` could load there (engine.flow.run_named_files): each depends on those hosts, and
        is not loaded on the others (none of them loads it; those that do load it are planned with
        the file they name). Where it loads them is the run's: no host's variables take them."""
        from engine.variables.run_named_loads import could_load

        found: list[Loaded] = []
        if any(outer.args == include.args for outer in includers):
            return found  # a file it could load names its file alike again: listed once, at the first
        for target, tasks in could_load(self.play_plan, include, self.loader, unknown, [*includers, include],
                                        loaded).items():
            fixed = {name: alike(SKIPPED, f"not loaded on this host: the include at {where} does not load "
                                          f"{target} here", True) for name in outcomes if name not in unknown}
            maybe = {name: alike(DEPENDS, f"loaded only if the include at {where} names {target} on this host, "
                                          f"which it names from {why}") for name, why in unknown.items()}
            found += [Loaded(task, outer, fixed, maybe) for task, outer in tasks]
        return found

    @property
    def loader(self) -> Any:
        """Loads with the plan's own files (an editor's unsaved buffers, what a reading records)."""
        if self._loader is None:
            self._loader = shared_loader(self.plan)
        return self._loader


def _too_deep(include: Task, includers: list[Task], outcomes: Mapping[str, HostOutcome]) -> dict[str, HostOutcome]:
    """The outcome of an include nested deeper than :data:`MAX_DEPTH`, naming the cycle."""
    import os

    files = [os.path.basename(str(task.include_resolved or task.include_target))
             for task in [*includers, include] if task.include_target is not None]
    repeated = next((name for name in files if files.count(name) > 1), None)
    if repeated is not None:
        first = files.index(repeated)
        cycle = files[first:files.index(repeated, first + 1) + 1]
        shape = f"a cycle: {' -> '.join(cycle)}"
    else:
        shape = f"{' -> '.join(files[:3])} -> ..."
    reason = (f"includes nested {len(includers) + 1} levels deep ({shape}): ansible-playbook includes again until "
              "Python's recursion limit stops the run (RecursionError, exit 250), unless a condition ends the "
              "recursion first; the plan follows no deeper. Break the cycle, or end it with a 'when:'")
    return {host: HostOutcome(FAILS if outcome.outcome == RUNS else DEPENDS, reason)
            for host, outcome in outcomes.items() if outcome.outcome in (RUNS, DEPENDS)}


def _argument_names(include: Task) -> frozenset[str] | None:
    """Every name the templates of ``include``'s arguments name (``apply`` aside), None when one
    does not parse."""
    from engine.flow.host_reading import strings
    from engine.templating.variable_uses import names_read

    args = {key: value for key, value in include.args.items() if key != "apply"}
    names: set[str] = set()
    for text in strings(args):
        found = names_read(text, expression=False)
        if found is None:
            return None
        names |= found
    return frozenset(names)


def _own_words(plan: Plan, play_plan: PlayPlan, host: Any, include: Task, read: set[str]) -> bool:
    """Whether the words of what only the run knows of ``include``'s arguments on ``host`` may name
    the host's own: its name, or its own inventory levels (its line, its host_vars files) setting a
    name they read. The hosts of its class (engine.variables.change_classes) are told by the values
    of those names from the same group levels otherwise, so their words are the same."""
    from engine.variables.host_answers import NAME
    from engine.variables.report import inventory_keys

    return bool(read & NAME) or bool(inventory_keys(plan, play_plan, host, include, sorted(read - NAME))[2])


def _known_includers(play: Any, loaded: list[Loaded]) -> None:
    """Record who loads each task (``includers_of``): the loop variables of a looping include
    around them are then the run's, and their runs repeat per item, as for any included task."""
    from engine.flow.on_the_way import loaded_by

    known = loaded_by(play)
    for item in loaded:
        known.setdefault(id(item.task), (item.task, item.includers))


def _elsewhere(where: str, unknown: str | None, target: str | None) -> HostOutcome:
    if unknown is not None:
        return alike(DEPENDS, f"the include at {where} names its file from {unknown}")
    if target is not None:
        return alike(SKIPPED, f"not loaded on this host: the include at {where} loads {target} here", True)
    return alike(SKIPPED, f"not loaded on this host: the include at {where} does not run or load here", True)


"""What a task's reading on a host (engine.flow.host_outcome) takes from its play: the
hosts' inventory signatures kept with the play, whether its vars_files differ per host or it
gathers facts itself, the loop variables of the includes that load a task, and the strings a
value holds."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.loops import loop_of
from engine.loading import keywords as kw
from engine.variables.loop_vars import copy_items
from engine.variables.play_order import play_order
from engine.variables.setters import set_names

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task


def play_signatures(plan: Plan, play_plan: PlayPlan) -> dict[tuple[str, tuple[str, ...]], tuple[Any, ...]]:
    """The inventory signatures of the play's hosts (engine.flow.shared_outcomes' ``_SharedOutcomes``), kept with
    the play for as long as the inventory is the same: hovers on its tasks ask them again."""
    kept = play_plan.play.derived.get("host_signatures")
    if kept is None or kept[0] is not plan.inventory:
        kept = play_plan.play.derived["host_signatures"] = (plan.inventory, {})
    return kept[1]


def per_host_vars_files(play_plan: PlayPlan) -> bool:
    """Whether the play's vars_files name a file per host (a template): once per play (asked for each
    play before a reader, at every task)."""
    play = play_plan.play
    kept = play.derived.get("per-host vars_files")
    if kept is None or kept[0] is not play.data:
        data = play.data if isinstance(play.data, Mapping) else {}
        kept = play.derived["per-host vars_files"] = (
            play.data, any("{{" in text for text in strings(data.get("vars_files"))))
    return kept[1]  # type: ignore[no-any-return]


def strings(value: Any) -> Iterator[str]:
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping | list) and id(item) not in seen:
            seen.add(id(item))
            stack.extend([*item.keys(), *item.values()] if isinstance(item, Mapping) else item)


def reads_any(value: Any, names: Mapping[str, Any]) -> bool:
    """Whether a template among the strings ``value`` holds reads one of ``names`` (or what
    playbook-ls cannot read)."""
    from engine.templating.variable_uses import names_read

    for text in strings(value):
        found = names_read(text, expression=False)
        if found is None or not found.isdisjoint(names):
            return True
    return False


def short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def runs_setup(play: Any) -> bool:
    """Whether the play has a task gathering facts itself, or clearing them where only the run
    knows whether it does (``meta: clear_facts`` under a condition or an include: it empties the
    fact cache too): its facts are then the run's (once per play). One that clears them whatever
    the values empties them at its place (:func:`clears_facts_at`)."""
    found = play.derived.get("runs_setup")
    if found is None:
        from engine.flow.plan import play_tasks

        certain = clears_facts_at(play)
        found = play.derived["runs_setup"] = any(
            task.action in kw.GATHERS_FACTS or _clears_facts(task) and task is not certain
            for task in play_tasks(play))
    return found


def clears_facts_at(play: Any) -> Any:
    """The play's first ``meta: clear_facts`` that runs on every batch whatever the values (no
    ``when`` on its way, written in the play or a file it imports: ``StrategyBase._execute_meta``
    then empties the fact cache of every host of the play), or None."""
    found = play.derived.get("clears_facts_at", False)
    if found is False:
        from engine.flow.plan import play_tasks

        order = play_order(play)
        found = play.derived["clears_facts_at"] = next(
            (task for task in play_tasks(play) if _clears_facts(task) and not task.effective_when()
             and not task.handler and not order.includers.get(id(task)) and id(task) in order.positions), None)
    return found


def _clears_facts(task: Any) -> bool:
    return task.action in kw.META and isinstance(task.args, Mapping) and task.args.get("_raw_params") == "clear_facts"


def include_loop_names(play: Any, task: Task) -> frozenset[str]:
    """The loop variables of the includes that load ``task`` with a loop (``item``, an index var,
    ``ansible_loop``...): what the task sees once per item, which no static reading has."""
    from engine.flow.on_the_way import includers_of

    names: set[str] = set()
    for include in includers_of(play, task):
        if loop_of(include) is None:
            continue
        control = include.data.get("loop_control") if isinstance(include.data, Mapping) else None
        control = control if isinstance(control, Mapping) else {}
        names |= {str(control.get("loop_var") or "item"), "ansible_loop", "ansible_loop_var", "ansible_index_var"}
        if control.get("index_var"):
            names.add(str(control["index_var"]))
    return frozenset(names)


def include_set_names(play: Any, task: Task) -> frozenset[str]:
    """What the tasks a looping include around ``task`` loads set (set_fact, include_vars, register),
    when that include loads one file for all its items: ``task`` reads each item's, once per item,
    which no reading of the whole loop has (a copy of the file per item reads its own item)."""
    order = play_order(play)
    names: set[str] = set()
    for include in order.includers.get(id(task), []):
        if loop_of(include) is None or copy_items(task, [include])[0] is not None:
            continue
        for other in order.tasks:
            if include in order.includers.get(id(other), []):
                names |= set_names(other) or _named_vars(other)
    return frozenset(names)


def _named_vars(task: Task) -> set[str]:
    """The name an ``include_vars`` with ``name`` puts what it loads under (its register too)."""
    from engine.variables.sources import INCLUDE_VARS

    data = task.data if isinstance(task.data, Mapping) else {}
    args = task.args if isinstance(task.args, Mapping) else {}
    found = {str(data["register"])} if data.get("register") else set()
    named = args.get("name") if task.action in INCLUDE_VARS else None
    return found | {named} if isinstance(named, str) and "{" not in named else found

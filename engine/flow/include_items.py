"""The outcome of a task a looping include loads, item by item of the include (and of a looping
include inside it): read with each item's loop variables, at the items where the includes' own
``when`` loads the file (engine.flow.host_outcome asks when the task's outcome needs an item,
with its reading of the task on the host, whose kind reads each item)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.flow.loops import loop_of
from engine.flow.outcomes import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome

if TYPE_CHECKING:
    from engine.loading.model import Task

Run = tuple[dict[str, Any], HostOutcome, tuple[int, ...]]
"""One run of the task: its items' loop variables, whether the includes load it there, the items' places."""


def per_include_item(reading: Any, conditions: list[tuple[Any, str]]) -> HostOutcome | None:
    """The outcome at every run the looping includes around the task make of it (item by item,
    an inner include's items at each of the outer one's), read with the items' loop variables,
    at the items the includes' own conditions let them load the file: when all runs give one
    outcome, that outcome (the plan lists the task once for all its runs); when they differ,
    each run's (``items``) under ``runs`` (``skipped`` when it runs at none), or under ``fails``
    up to the item where it fails the host (the others do not run). None when a run's outcome is
    the run's, or the items or their order are, or a failure after the first item may be taken
    over (a rescue, ignore_errors) or spread to other hosts."""
    runs = _include_runs(reading)
    if not runs:
        return None
    found: list[HostOutcome] = []
    # whether it reports a change (engine.flow.host_changes): at one item is enough
    any_item = any(kind == "changed_when" for _, kind in conditions)
    # a failure it ignores is reported, and the host goes on to the next item
    ignored = isinstance(reading.task.data, Mapping) and reading.task.data.get("ignore_errors") is True
    for number, (scope, gate, outer) in enumerate(runs, 1):
        if gate.outcome == SKIPPED:  # the include loads nothing at this item
            found.append(HostOutcome(SKIPPED, f"its include skips item {number}: {gate.reason}", True))
            continue
        at_item = type(reading)(reading.plan, reading.play_plan, reading.host, reading.task)
        at_item.removed, at_item._include_item, at_item._outer = reading.removed, scope, outer
        at_item._overrides.update(scope)
        found.append(at_item.outcome(conditions))
        reading.touched |= at_item.touched
        if any_item and found[-1].outcome == RUNS:  # every item before it skipped (or returned)
            return replace(found[-1], reason=f"at item {number} of the include")
        if found[-1].outcome == DEPENDS or gate.outcome != RUNS or any_item and found[-1].outcome != SKIPPED:
            return None
        if found[-1].outcome == FAILS and not ignored:
            # the host stops at that item, after the tasks before it in the file ran it and
            # before those after it did (engine.flow.host_plan cuts the items of the others)
            if all(outcome.unreported for outcome in found[:-1]):  # the first item the include loads
                return replace(found[-1], reason=f"{found[-1].reason}, at item {number} of the include")
            if len(outer) > 1 and not _only_the_inner_include(reading) or \
                    not (_stops_the_host(reading) or _rescued_around_the_include(reading)):
                return None
            return HostOutcome(FAILS, f"at item {number} of the include, where the host stops: {found[-1].reason}",
                               items=tuple(found))
    loaded = [outcome for outcome in found if not outcome.unreported]
    if not loaded:
        return None
    if len(loaded) == len(runs) and all(outcome.outcome == loaded[0].outcome for outcome in loaded):
        where = "at its item of the include" if len(runs) == 1 else f"at each of the {len(runs)} items of the include"
        return replace(loaded[0], reason=", ".join(filter(None, [loaded[0].reason, where])))
    at = [str(number) for number, outcome in enumerate(found, 1) if outcome.outcome in (RUNS, FAILS)]
    if not at:
        return HostOutcome(SKIPPED, f"at each item of the include: {loaded[0].reason}", items=tuple(found))
    return HostOutcome(RUNS, f"at item{'s' if len(at) > 1 else ''} {', '.join(at)} of the {len(runs)} of the "
                             "include", items=tuple(found))


def _only_the_inner_include(reading: Any) -> bool:
    """Whether the file the outer of two looping includes around the task loads holds nothing but
    the inner include: every task of either runs once per item of both (the inner one's items at
    each of the outer one's, in one run order), so a host stopping at one of those runs stops there
    for all of them (engine.flow.host_plan cuts their runs alike)."""
    from engine.variables.play_order import play_order

    order = play_order(reading.play_plan.play)
    loops = order.looping(reading.task)
    if len(loops) != 2:
        return False
    outer, inner = loops
    return all(task is inner or inner in order.includers.get(id(task), []) or task.implicit
               for task in order.tasks if outer in order.includers.get(id(task), []))


def _stops_the_host(reading: Any) -> bool:
    """Whether a failure of the task stops its host there and then, and it alone: no
    ``ignore_errors``, no block with a ``rescue`` around it (one with only an ``always`` runs that
    section at the item, then the host stops: engine.flow.host_plan runs it there), not in a
    ``rescue`` section, nothing that spreads a failure to the other hosts (``any_errors_fatal``,
    ``run_once``, ``max_fail_percentage``)."""
    from engine.flow.block_failures import failure_spread, section_tasks
    from engine.variables.block_runs import play_blocks

    play, task = reading.play_plan.play, reading.task
    data = play.data if isinstance(play.data, Mapping) else {}
    rescuing, recovered = section_tasks(play)
    blocks = play_blocks(play)
    around = blocks.paths.get(id(task))  # None: placed twice, or not at all
    rescued = id(task) in recovered and (around is None or any(block in blocks.rescuing for block, _ in around))
    return not (isinstance(task.data, Mapping) and "ignore_errors" in task.data) and id(task) not in rescuing and \
        not rescued and failure_spread(play, task) is False and "max_fail_percentage" not in data


def _rescued_around_the_include(reading: Any) -> bool:
    """Whether a failure of the task stops the file its looping include loads there and then, a
    ``rescue`` around the include taking it over on this host alone: no ``ignore_errors``, no
    block with a ``rescue`` or ``always`` inside the file around it, nothing that spreads a
    failure (engine.variables.include_stops reads the values the same way)."""
    from engine.flow.block_failures import BLOCK, failure_spread, section_tasks
    from engine.variables.block_runs import play_blocks
    from engine.variables.include_stops import caught_within
    from engine.variables.play_order import play_order

    play, task = reading.play_plan.play, reading.task
    data = play.data if isinstance(play.data, Mapping) else {}
    loops = play_order(play).looping(task)
    if len(loops) != 1 or isinstance(task.data, Mapping) and "ignore_errors" in task.data or \
            failure_spread(play, task) is not False or "max_fail_percentage" in data:
        return False
    blocks = play_blocks(play)
    around = blocks.paths.get(id(loops[0]), ())
    rescuing, recovered = section_tasks(play)  # a block with an always only, inside the file, runs it first
    inside_always = id(task) in recovered and not any(section == BLOCK and block in blocks.rescuing
                                                      for block, section in around) or id(task) in rescuing
    return not caught_within(play, loops[0])(task) and not inside_always and \
        any(block in blocks.rescuing and section == BLOCK for block, section in around)


def _include_runs(reading: Any) -> list[Run] | None:
    """Each run of the task the looping includes around it make on the host, in run order: its
    items' loop variables, and whether the includes load the file there (their own outcome at
    the item, an outer include's skip standing for all its inner items). None when the items or
    their order are the run's, or for more than two looping includes; in a copy of the file the
    loader made for one item of either (a loop written out), that item's runs only."""
    from engine.variables.loop_vars import copy_items, last_item_only, loop_scopes
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at

    loops = play_order(reading.play_plan.play).looping(reading.task)
    copies = copy_items(reading.task, loops) if loops else []
    if not loops or len(loops) > 2 or last_item_only(reading.task, loops):
        return None
    scopes = loop_scopes(loops[0], templar_at(reading.plan, reading.play_plan, reading.host, loops[0]))
    if not isinstance(scopes, list) or not scopes:
        return None
    order = include_item_order(reading.plan, reading.play_plan, reading.host, reading.task, loops[0])
    if order != list(range(len(scopes))):
        return None  # the host runs its items in an order another host's results decide
    runs: list[Run] = []
    for index, (scope, gate) in enumerate(zip(scopes, _include_gates(reading, loops[0], scopes, {}), strict=True)):
        if copies[0] is not None and index != copies[0]:
            continue  # the loader's copy of the file for another item (a loop written out)
        if len(loops) == 1 or gate.outcome == SKIPPED:
            runs.append((dict(scope), gate, (index,)))
            continue
        if gate.outcome != RUNS:
            return None
        inner = loop_scopes(loops[1], templar_at(reading.plan, reading.play_plan, reading.host, loops[1], 0, (index,)))
        if not isinstance(inner, list):
            return None
        merged = [{**scope, **each} for each in inner]
        gates = _include_gates(reading, loops[1], merged, scope)
        runs += [(each, inner_gate, (index, at))
                 for at, (each, inner_gate) in enumerate(zip(merged, gates, strict=True))
                 if copies[1] is None or at == copies[1]]  # the loader's copy for one inner item
    return runs


def _include_gates(reading: Any, include: Task, scopes: list[Mapping[str, Any]],
                   outer: Mapping[str, Any]) -> list[HostOutcome]:
    """The looping include's own outcome at each of its items (its ``when`` is evaluated per
    item: at an item it skips, it loads nothing), at the ``outer`` include's item."""
    from engine.flow.on_the_way import conditions_on_the_way

    gate = type(reading)(reading.plan, reading.play_plan, reading.host, include)
    gate.removed = reading.removed
    if outer:
        gate._include_item = outer
        gate._overrides.update(outer)
    loop = loop_of(include)
    if loop is not None:  # the names its items are templated from tell hosts apart as its when's do
        gate._needs_value(loop[1], dict(outer))
    outcomes = gate._item_outcomes(conditions_on_the_way(include, []), scopes) if scopes else []
    reading.touched |= gate.touched
    return outcomes

"""Where a task of a looping include stops a host at one of its items.

The strategy runs a looping include's file once per item; a task failing the host at an item
leaves the include's earlier tasks run up to that item and its later ones not at all. These
functions cut the planned items of the include's tasks accordingly, or say "depends" where the
item the host stops at is the run's to know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.flow.host_handlers import PlannedTask, where
from engine.flow.outcomes import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome
from engine.variables.loop_vars import includer_loops

if TYPE_CHECKING:
    from engine.loading.model import Play, Task


def first_loaded(looped: list[tuple[PlannedTask, int]], include: int, host: str) -> int:
    """How many runs of the include's items a failure at the first item it loads on ``host``
    leaves to the include's tasks before it: up to that item (as their items tell)."""
    for planned, around in looped:
        outcome = planned.hosts.get(host)
        if around == include and outcome is not None and outcome.items:
            return next((index for index, each in enumerate(outcome.items) if not each.unreported), 0) + 1
    return 1


def cut_items(looped: list[tuple[PlannedTask, int]], include: int, host: str, runs: int,
               failing: PlannedTask) -> None:
    """A task of a looping include fails ``host`` at the include's ``runs``-th run: the tasks of
    the include planned before it ran up to that item only, not the later ones their ``items`` list."""
    for planned, around in looped:
        outcome = planned.hosts.get(host)
        if planned is failing or around != include or outcome is None or not outcome.items:
            continue
        planned.hosts[host] = _kept(outcome.items[:runs], "up to the item where the host stops")


def _kept(items: tuple[HostOutcome, ...], why: str) -> HostOutcome:
    """A task's outcome at the first ``items`` of its looping include, the later ones not run."""
    at = [str(number) for number, each in enumerate(items, 1) if each.outcome == RUNS]
    if all(each.unreported for each in items):
        return HostOutcome(SKIPPED, f"not run: {why}", True)
    if not at:
        return HostOutcome(SKIPPED, f"at each item {why}", items=items)
    return HostOutcome(RUNS, f"at item{'s' if len(at) > 1 else ''} {', '.join(at)}, {why}", items=items)


def looping_includes(play: Play, task: Task) -> int:
    """How many looping includes load ``task`` (a task under two runs once per item of both)."""
    from engine.variables.play_order import play_order

    return sum(map(includer_loops, play_order(play).includers.get(id(task), [])))


def before_the_stop(outcome: HostOutcome, loaded: tuple[bool, ...] | None, nested: bool) -> HostOutcome:
    """The outcome of a task of a looping include after (in its file) the one that failed the host
    at an item: its runs before that item (``loaded``: where the include loaded the file; None:
    where the host stops is the run's), where the host went on."""
    why = "before the item where the host stops"
    if loaded is None:
        return HostOutcome(DEPENDS, "after a task of its include that stops the host at an item only the run knows")
    if not any(loaded):
        return HostOutcome(SKIPPED, "not run: the host stops at the first item its include loads", True)
    if nested:  # its runs are those of the items of an include inside: not cut here
        return HostOutcome(DEPENDS, f"{why}: in a looping include inside, the run's to place")
    if outcome.items is not None:
        kept = outcome.items[:len(loaded)]
        if any(each.outcome in (FAILS, DEPENDS) for each in kept):
            return HostOutcome(DEPENDS, f"{why}: whether it stops the host at an earlier item is the run's")
        return _kept(kept, why)
    if outcome.outcome in (FAILS, DEPENDS):
        return HostOutcome(DEPENDS, f"{why}: {outcome.reason}")
    return replace(outcome, reason=", ".join(filter(None, [outcome.reason, why])))


def unsure_stop(looped: list[tuple[PlannedTask, int]], failing: PlannedTask, host: str, later: PlannedTask) -> None:
    """A task after ``failing`` in their looping include's file may stop ``host`` at an earlier item
    than the one ``failing`` fails at: ``failing`` then depends, and the include's tasks' runs
    after the first item with it."""
    around = next(include for planned, include in looped if planned is failing)
    first = failing.hosts[host]
    failing.hosts[host] = unsure = HostOutcome(DEPENDS, f"{first.reason}, unless {later.name!r} ({where(later)}) "
                                                        "stops the host at an earlier item")
    may_stop_later_items(looped, around, later, {host: unsure})


def may_stop_later_items(looped: list[tuple[PlannedTask, int]], include: int, planned: PlannedTask,
                          outcomes: Mapping[str, HostOutcome]) -> None:
    """A task of a looping include that may fail a host at one of its items (depends): the tasks of
    the include planned before it run their later items only if it did not fail the host earlier."""
    name = f"{planned.name!r} ({where(planned)})"
    for host, outcome in outcomes.items():
        if outcome.outcome != DEPENDS:
            continue
        for earlier, around in looped:
            found = earlier.hosts.get(host)
            if earlier is planned or around != include or found is None or not found.items:
                continue
            first = next((index for index, each in enumerate(found.items) if not each.unreported), len(found.items))
            items = tuple(each if index <= first or each.outcome != RUNS else
                          HostOutcome(DEPENDS, f"at item {index + 1}: runs only if {name} did not fail the host at "
                                               "an earlier item")
                          for index, each in enumerate(found.items))
            earlier.hosts[host] = replace(found, items=items)

"""The runs of a task that the looped includes around it make on a host, and their order.

ansible runs a looping include's file once per item, in the order engine.variables.report's
``include_item_order`` works out (it stays beside the templar: a task's templar inside a looped
include needs the include's, at the item). The variables at each run are report's too.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw
from engine.variables.play_order import play_order
from engine.variables.report import include_item_order, include_templar, templar_at

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def _skips(plan: Plan, play_plan: PlayPlan, host: Host, include: Task) -> bool:
    """Whether the ``when`` of ``include`` (an include around a task, no loop around it) is
    false on ``host`` before the run: the include loads nothing there, and the task does not run."""
    conditions = [condition.value for condition in include.effective_when()]
    if not conditions or include.action not in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE:
        return False
    templar = templar_at(plan, play_plan, host, include)
    for condition in conditions:
        try:
            if templar.evaluate(condition) is False:
                return True
        except Exception:  # noqa: BLE001 - a condition only the run decides: the task may run
            return False
    return False


def loaded_here(play_plan: PlayPlan, task: Task, host: Host) -> bool:
    """Whether ``task`` is one ``host`` loads: not a copy of a file a per-host include loads on
    other hosts only (a handler is the play's once loaded)."""
    loaded_on = play_order(play_plan.play).loaded_on.get(id(task))
    return loaded_on is None or host.name in loaded_on or task.handler


def include_loop_runs(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, occurrence: int = 0
                      ) -> list[tuple[int, ...]]:
    """The runs of ``task`` that looped includes around it make on ``host``, in run order: one per
    item of each of them, the outermost's items known before the run in the order the host runs
    them, each inner one's items as templated at that outer item (``()``: a single run; -1: an
    item only the run places). A task the loader copied once per item of a loop written out (a
    static include's children) runs only at its own item of that loop."""
    from engine.variables.loop_vars import copy_items, inner_item_runs, last_item_only, loop_length

    if not loaded_here(play_plan, task, host):
        return []
    walked = play_order(play_plan.play)
    includers, loops = walked.includers.get(id(task), []), walked.looping(task)
    if not loops:
        # a handler an include_role brings is the play's once the include loads it on any host: it
        # runs wherever it is notified, a host the include skipped too (with that include's vars)
        hosts = play_plan.hosts if task.handler else [host]
        skipped = any(all(_skips(plan, play_plan, other, include) for other in hosts) for include in includers)
        return [] if skipped else [()]
    if walked.named_by_run(task, host.name) is not None and loops[0] in includers[-1:]:
        return [(-1,)]  # a file only the run names at some of its include's items: at which, the run's
    order = include_item_order(plan, play_plan, host, task, loops[0], occurrence)
    if not order:  # as many runs as items, where only their order is the run's
        count = loop_length(loops[0], include_templar(plan, play_plan, host, loops[0], task, occurrence)) \
            if order is None else None
        return [(-1,)] * (count or 1)
    own = copy_items(task, loops)
    runs = [(index,) for index in order if own[0] is None or index == own[0]]
    if last_item_only(task, loops):
        runs = runs[-1:]
    return inner_item_runs(partial(templar_at, plan, play_plan, host), loops, runs, own)


def run_order_key(play_plan: PlayPlan, task: Task, occurrence: int, outer: tuple[int, ...]) -> tuple[Any, ...]:
    """Where a run of ``task`` (at the ``outer`` items) comes in the host's run of the play: the
    runs under one looped include go item by item, whichever copy of the file holds the task."""

    order = play_order(play_plan.play)
    positions = order.positions.get(id(task), [0])
    own = positions[min(occurrence, len(positions) - 1)]
    loops = order.looping(task)
    start = order.positions.get(id(loops[0]), [own])[0] if loops else own
    return (start, outer, own)



"""Whether a host is still in its play at a task. ansible runs no task on a host that a task before
failed (no ``rescue`` taking over, no ``ignore_errors``): what the tasks after the failure would
have set is never set, and the other hosts reading it through ``hostvars`` (later in the play, in
the later plays) see what it had when it failed. The plan (engine.flow.host_plan) finds where
hosts fail, certainly or maybe; the walk of the tasks before a reading
(engine.variables.host_runtime) asks here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.variables.play_order import play_order

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


as_written: list[Any] = []
"""The plays asked where their tasks run before they were planned (engine.flow.host_plan): what was
followed from them is followed again once they are (engine.variables.host_runtime, which keeps it
here, beside the stops it follows)."""


def out_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, occurrence: int = 0) -> bool | str:
    """Whether a failure before the ``occurrence``-th run of ``task`` stopped ``host``, as another
    host reads it (:func:`others_read`; its own readings are at tasks it runs): False, True, or why
    only the run knows. A play not planned yet is planned first where hosts may fail in it; one
    being planned now is read as far as it is (its tasks before the reading are)."""
    if not _others_reading:
        return False  # the host's own reading: at a task it runs, after no failure
    pending = getattr(plan, "removals_pending", None)
    if pending is not None:
        pending()
    found = getattr(play_plan, "out_at", None)
    if found is None:
        return False
    runs = found.get(id(task))
    if not runs:
        return False
    why = runs[min(occurrence, len(runs) - 1)].get(host.name, False)
    if isinstance(why, str):
        return f"set by task '{task.display_name()}', which runs on this host only if {why} did not stop it " \
               "before, which only the run knows"
    return why


_others_reading = 0  # walks of a host's earlier tasks for another host's reading, under way


def others_read(walk: Callable[..., Any], *args: Any) -> Any:
    """``walk(*args)`` (the walk of a host's earlier tasks) for another host's reading
    (``hostvars``): a failure before stops what the host sets only for such readings, the host's
    own readings being at tasks it runs (planning, which that takes, only where they are read)."""
    global _others_reading
    _others_reading += 1
    try:
        return walk(*args)
    finally:
        _others_reading -= 1


def planned_alone(play_plan: PlayPlan, task: Task) -> bool:
    """Whether where ``task`` runs is the plan's to say, beyond what the walk follows: a handler
    (run at the flush points where a task notified it and changed), or a task of a role the play
    may reach twice with an equal use (``Role.has_run``: left out where one ran, as the dependency
    of a role included again that the play's ``roles`` ran already)."""
    return task.handler or task.role is not None and play_order(play_plan.play).repeats_role(task)


def ran_unless_out(follower: Any, play_plan: PlayPlan, host: Host, task: Task, occurrence: int,
                   ran: bool | str) -> bool | str:
    """``ran`` (whether ``task`` ran on ``host`` as the walk found it), False when a failure before
    stopped the host (a ``run_once`` task another host of its batch runs gives it its result all
    the same), or why only the run knows when one may have."""
    if ran is False or task.handler:  # a handler's runs are the plan's (host_runtime._planned_ran)
        return ran
    out = out_at(follower.plan, play_plan, host, task, occurrence)
    if out is True:
        return True if follower._given_by_another(play_plan, host, task) else False  # noqa: SLF001
    return out if isinstance(out, str) and ran is True else ran

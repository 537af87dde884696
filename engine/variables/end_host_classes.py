"""Whether a ``meta: end_host``'s conditions hold on a host, found once per class of hosts whose
variables at the task answer the names the conditions read alike (engine.variables.change_classes,
as a ``group_by``'s key or an include's file name): every walk past the task asks it of each host,
and working it out takes the host's variables at the task, every setter before it walked there."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.variables.change_classes import HostClasses
from engine.variables.host_runtime import followed_memo
from engine.variables.walk_classes import host_classes

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def end_host_holds(follower: Any, play_plan: PlayPlan, host: Host, task: Task, conditions: list[Any]) -> bool | str:
    """``follower._end_host_holds`` of ``host``, or what it gave the first host of ``host``'s class:
    kept per task, plan and planned runs of the play (as each host's answer is kept)."""
    if len(play_plan.hosts) < 2:
        return follower._end_host_holds(play_plan, host, task, conditions)  # type: ignore[no-any-return]  # noqa: SLF001
    memo = followed_memo(play_plan)
    key = ("end host classes", id(task))
    planned = getattr(play_plan, "planned_runs", None)
    kept = memo.get(key)
    if kept is None or kept[0] is not task or kept[1] is not planned or kept[2] is not follower.plan:
        kept = memo[key] = (task, planned, follower.plan, HostClasses(follower.plan, play_plan, task, host_classes))
    return kept[3].value_of(  # type: ignore[no-any-return]
        host, lambda read: follower._end_host_holds(play_plan, host, task, conditions, read))  # noqa: SLF001

"""What a setter (``set_fact``, ``register``, ``include_vars``) sets on a host, shared between the
hosts that give it the same answers. Following a setter on a host templates its conditions and
values with the host's variables at the task, and those are what the setters before it set there:
walked for every host, a fleet costs hosts x setters templatings. The hosts of a setter are taken
class by class as a ``group_by``'s are (:class:`~engine.variables.change_classes.HostClasses`):
the first host of a class is followed with the names its templates read recorded (and those the
values they read read in turn); a host whose inventory gives those names the same values from the
same levels, to which the setters before gave the same definitions of them, with the same name and
groups when those are read, the same facts and the same inventory at the task, is given what that
host was given (the same effects: a setter reads nothing else of a host).

Not shared (each host followed as before): a setter a looping include loads, a later run of it (a
handler flushed again), one delegating its facts, one whose templates read variables by a computed
name (``vars``, ``hostvars``, a lookup), the play's host lists or what a rescue sets. A template
reading ``hostvars`` where every host reads the others alike (the same object for every reader:
engine.variables.followed_hostvars) is shared: it reads the hosts the other names it read name.

Effects followed while a play they read is being planned take where its tasks run as written
(engine.variables.host_runtime: a role's repeated run, a handler, an ``end_play``), the same answer
for every host until the play is planned. The hosts of a class share them meanwhile, each marked as
followed so (it is followed again once the play is planned, as the class's first host is); the
classes are made anew once a play they asked so is planned. A review's
plans share them too: a host given its class's effects renders none of the setter's templates, so
a task's reading may not record the names they read, but what a setter gives a task reaches it
only through the names the setter sets, which the review never takes an answer across
(playbook_ls.review.reuse.outcomes_alike).

The plan and the hovers ask for it (:func:`share_setters`): what follows setters
(engine.variables.host_runtime) is below the class keys it reads (inventory, earlier tasks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.class_changes import followed_unshared
from engine.variables.item_setter_reads import followed_item_run

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.task_results import Effects


SHARING = True
"""Whether hosts share a setter's effects by class (tests compare the plan with and without)."""


def shared_effects(plan: Plan, play_plan: PlayPlan, memo: dict[Any, Any], host: Host, task: Task,
                   outer: tuple[int, ...], occurrence: int, follow: Callable[[set[str] | None], Effects],
                   looping: bool = False) -> Effects:
    """``follow(read)`` on ``host`` (``read``: a set the names its templates read are put in), or
    what it gave the first host of ``host``'s class. ``looping``: a run of a looping include's file,
    each host's own, what it read noted for the walks past it (engine.variables.item_setter_reads)."""
    if looping and SHARING:
        return followed_item_run(plan, play_plan, memo, task, occurrence, follow)
    data = task.data if isinstance(task.data, Mapping) else {}
    if not SHARING or outer or occurrence or data.get("delegate_facts"):
        followed_unshared(memo, task)
        return follow(None)
    return by_class(plan, play_plan, memo, _classes_key(plan, task), host, task, follow)


def by_class(plan: Plan, play_plan: PlayPlan, memo: dict[Any, Any], key: tuple[Any, ...], host: Host, task: Task,
             follow: Callable[[set[str] | None], Any]) -> Any:
    """``follow(read)`` on ``host`` (what the host's variables at ``task`` give, the names read put
    in ``read``), or what it gave the first host of ``host``'s class, the classes kept in ``memo``
    under ``key``; ``follow`` never gives None."""
    from engine.variables.change_classes import HostClasses
    from engine.variables.failed_hosts import as_written

    kept = memo.get(key)
    if kept is None or kept[0] is not plan or any(getattr(asked, "planned_runs", None) is not None
                                                  for asked in kept[2].values()):
        kept = memo[key] = (plan, HostClasses(plan, play_plan, task), {})
    classes, asked = kept[1], kept[2]
    found = classes.joined(host)
    if found is not None:
        as_written.extend(asked.values())  # followed as written, as the class's first host was
        return found  # type: ignore[no-any-return]
    read: set[str] = set()
    mark = len(as_written)
    found = follow(read)
    asked.update((id(play), play) for play in as_written[mark:])
    classes.add(host, read, found)
    return found


def _classes_key(plan: Plan, task: Task) -> tuple[Any, ...]:
    from engine.variables.change_classes import setter_classes_key

    return setter_classes_key(plan, task)


def share_setters(plan: Plan) -> None:
    """Have the hosts of ``plan`` share setters' effects by class (its follower asks for it)."""
    from engine.variables.end_host_classes import end_host_holds
    from engine.variables.included_names import followed_names
    from engine.variables.walk_classes import class_walk

    plan.share_setters = shared_effects  # type: ignore[attr-defined]
    plan.share_by_class = by_class  # type: ignore[attr-defined] - whether a block's task fails (engine.variables.host_failures)
    plan.class_walk = class_walk  # type: ignore[attr-defined] - hosts share walks too (engine.variables.walk_classes)
    plan.end_host_holds = end_host_holds  # type: ignore[attr-defined] - and end_host conditions
    plan.include_vars_names = followed_names  # type: ignore[attr-defined] - read by engine.variables.names_before

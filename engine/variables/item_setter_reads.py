"""What the runs of a setter a looping include loads read of a host: the names their templates
read, kept per setter over every host and item it was followed at, for the walk of the setters
before a task shared by class (engine.variables.walk_classes).

Such a setter's effects are not shared between hosts (engine.variables.setter_classes: each item's
run reads the include's item, which the host's variables at the include give). Its runs are each
host's own, but a walk past them depends on a host only through what they read: the names recorded
here (the closure over the setters of those names taken by the walk's classes, as for any setter),
and the include's items on the host and their order, which the walk's class key asks of each host
(:func:`item_runs_key`, from engine.variables.walk_classes._decided_many). Two hosts alike in
those give each run the same answers, so the same effects. A run reading variables by a computed
name (``vars``, ``hostvars``, a lookup), the play's host lists or what only one host answers makes
the record unusable, as a setter's classes are (engine.variables.change_classes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.variables.class_changes import CHANGES, READS, followed_unshared

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.task_results import Effects


class ItemReads:
    """The names the followed runs of one setter read (:func:`followed_item_run`), and whether they
    tell everything the runs read of a host (``usable``)."""

    __slots__ = ("inventory", "names", "usable")

    def __init__(self, inventory: Any) -> None:
        self.inventory, self.names, self.usable = inventory, frozenset[str](), True


def followed_item_run(
    plan: Plan,
    play_plan: PlayPlan,
    memo: dict[Any, Any],
    task: Task,
    occurrence: int,
    follow: Callable[[set[str] | None], Effects],
) -> Effects:
    """``follow(read)``: a run of ``task`` at an item of the looping include around it, on a host,
    the names its templates read added to the setter's record (:func:`item_reads`). Not recorded
    (followed as without classes: engine.variables.class_changes.followed_unshared) where setters
    are not shared by class (the caller's to say: engine.variables.setter_classes.shared_effects), nor
    for a later run of it, a handler or one delegating its facts."""
    data = task.data if isinstance(task.data, Mapping) else {}
    if occurrence or task.handler or data.get("delegate_facts"):
        followed_unshared(memo, task)
        return follow(None)
    read: set[str] = set()
    found = follow(read)
    _note(plan, play_plan, memo, task, read)
    return found


def _note(plan: Plan, play_plan: PlayPlan, memo: dict[Any, Any], task: Task, read: set[str]) -> None:
    from engine.variables import earlier_key
    from engine.variables.change_classes import _UNCLASSED
    from engine.variables.names_before import names_set_before
    from engine.variables.play_order import play_order

    key = ("item setter reads", id(task), id(plan.inventory))
    kept = memo.get(key)
    if kept is None or kept.inventory is not plan.inventory:
        kept = memo[key] = ItemReads(plan.inventory)
    if not kept.usable or read <= kept.names:
        return
    CHANGES[0] += 1  # (what is worked out from the setters' reads is worked out again)
    READS[0] += 1
    kept.names = kept.names | read
    # as a setter's classes (engine.variables.change_classes.HostClasses): names the key cannot tell
    kept.usable = not (
        read & _UNCLASSED
        or read & earlier_key.NOT_FOLLOWED
        or not earlier_key.OPEN
        and names_set_before(plan, play_plan, play_order) is None
    )


def item_reads(plan: Plan, memo: dict[Any, Any], task: Task) -> ItemReads | None:
    """What the runs of ``task`` (a setter a looping include loads) followed so far read (None: no
    host followed one yet, in the play's store ``memo``)."""
    kept = memo.get(("item setter reads", id(task), id(plan.inventory)))
    return kept if kept is not None and kept.inventory is plan.inventory else None


def looping_steps(follower: Any, steps: Any) -> list[tuple[PlayPlan, Task, list[Task]]]:
    """The looping includes around setters of ``steps`` (each with its play and those setters): what
    :func:`item_runs_key` is asked of on each host for a walk past them."""
    found: dict[tuple[int, int], tuple[PlayPlan, Task, list[Task]]] = {}
    for earlier, done in steps:
        for include in follower.order_of(earlier.play).looping(done)[:1]:
            found.setdefault((id(earlier), id(include)), (earlier, include, []))[2].append(done)
    return list(found.values())


def item_runs_key(
    follower: Any, play_plan: PlayPlan, host: Host, include: Task, setters: list[Task]
) -> tuple[Any, ...]:
    """:func:`_item_runs_key`, kept for the host, include and setters while what it reads stays the same:
    the play's planned runs (and the handler runs planned so far in a play being planned), hosts and
    tasks, the plan and its inventory. Asked at every task whose walk passes the setters, on each host."""
    from engine.variables.earlier_walk import _keep, _kept, _key

    planning = getattr(play_plan, "planning_runs", None) or {}
    key = _key(follower, play_plan, ("item runs key", id(include), *map(id, setters), len(planning),
                                     sum(map(len, planning.values()))), host, None)
    kept = _kept(follower, play_plan, key)
    if kept is None:
        planned = getattr(play_plan, "planned_runs", None)
        kept = _item_runs_key(follower, play_plan, host, include, setters)
        _keep(follower, play_plan, key, planned, kept)
    return kept  # type: ignore[no-any-return]


def _item_runs_key(
    follower: Any, play_plan: PlayPlan, host: Host, include: Task, setters: list[Task]
) -> tuple[Any, ...]:
    """What decides the runs of ``setters`` (under the looping ``include``) on ``host`` beside what
    they read (:func:`item_reads`), as the walk asks it (Follower._runs_on): the
    include's items there (as every template sees them, with whether each loads the file; or why
    only the run knows them, the value of the item's variables then), the order the host runs them
    in, why the run names the setters' file there if so, and where that order is the run's and a
    setter builds on what the runs before set, what every order leaves
    (engine.variables.include_orders.after_every_order)."""
    from engine.variables.accumulating import accumulates
    from engine.variables.include_orders import after_every_order
    from engine.variables.report import include_items
    from engine.variables.value_keys import value_key

    plan = follower.plan
    order = follower.item_order(plan, play_plan, host, setters[0], include)
    items = include_items(plan, play_plan, host, setters[0], include)
    play_order = follower.order_of(play_plan.play)
    settled = (order is None or -1 in order) and any(
        play_order.per_task(("accumulates", id(include)), done, partial(accumulates, play_order, done, include))
        for done in setters
    )
    return (
        None if order is None else tuple(order),
        tuple((value, loads) for _, loads, value in items) if isinstance(items, list) else items,
        tuple(play_order.named_by_run(done, host.name) for done in setters),
        value_key(after_every_order(follower, play_plan, host, include)) if settled else None,
        None if order is None or -1 in order else _stops(follower, play_plan, host, include, setters, order),
    )


def _stops(
    follower: Any, play_plan: PlayPlan, host: Host, include: Task, setters: list[Task], order: list[int]
) -> tuple[Any, ...] | None:
    """Where a task of each file of ``setters`` (under the looping ``include``) stops ``host`` (the
    item and the task, with the tasks that run there all the same), as the walk cuts the setters'
    runs there (Follower._before_stop); None where no task of their files may fail the host."""
    from engine.variables.include_stops import Stop

    play_order = follower.order_of(play_plan.play)
    chains = {id(chain[-1]): done for done in setters if (chain := play_order.includers.get(id(done), []))}
    found = []
    for done in chains.values():
        if not play_order.per_task(
            ("file may stop", id(include)), done, partial(_file_may_stop, play_order, done, include)
        ):
            continue
        stop = follower._include_stop(play_plan, host, done, [include], order)  # noqa: SLF001
        found.append((id(done), (stop.run, stop.at, stop.always) if isinstance(stop, Stop) else stop))
    return tuple(found) if found else None


def _file_may_stop(play_order: Any, task: Task, include: Task) -> bool:
    """Whether a task of the file ``task`` is in (loaded by the looping ``include``) may fail the host
    (engine.variables.include_stops.may_stop)."""
    from engine.variables.include_stops import caught_within, may_stop

    caught = caught_within(play_order.play, include)
    chain = play_order.includers.get(id(task), [])
    return any(may_stop(each, caught) for each in play_order.tasks if play_order.includers.get(id(each), []) == chain)

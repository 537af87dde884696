"""What the tasks before a task set on a host, for some names, as a key: two hosts with equal keys
get equal definitions of those names from the earlier tasks (the same levels, labels, places and
values), so a reading that depends on nothing else of theirs is the same on both. The plan shares
a task's outcome between such hosts (engine.flow.host_outcome) instead of following the earlier
tasks whole on each host.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.templating.read_names import MEMBERSHIP
from engine.variables.block_runs import play_blocks
from engine.variables.host_facts import plays_before
from engine.variables.host_runtime import Follower, once_per_plays
from engine.variables.play_order import play_order
from engine.variables.report import _scope, include_item_order, templar_at
from engine.variables.setters import setters_before
from engine.variables.value_keys import value_key

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

OPEN = True
"""Whether names are keyed when a task before sets names not told before the run (tests turn it off)."""
NOT_FOLLOWED = frozenset({"ansible_failed_task", "ansible_failed_result", "vars", "hostvars"})
"""Names the key does not speak for (a rescue's, or every variable at once)."""


def followed_names(plan: Plan, play_plan: PlayPlan, touched: set[str], set_per_host: set[str],
                   facts: set[str] = frozenset()) -> frozenset[str] | None:  # type: ignore[assignment]
    """The names a reading read (``touched``) that earlier tasks may set, whose definitions by them
    (:func:`earlier_key`) then tell hosts apart; None when the reading read per host what the key
    cannot tell: a name (of ``set_per_host``, those read per host) none of the tasks of the plays so
    far is known to set, a fact (not an ``ansible_*`` connection setting or magic variable, which are
    told like any name) no task sets that is not one of ``facts`` (gathered facts, which the
    caller keys by where the run gathers them and the cached ones:
    :func:`~engine.variables.host_facts.facts_unknown`), a rescue's, or values merged with
    ``hash_behaviour=merge``. When a task before sets names not told before the run (an
    ``include_vars`` whose file only the run names, a templated ``set_fact`` key, ``group_by``),
    every name read is followed: the key is what the walk of the tasks before gives them, the layer
    that may set any name (and why) included."""
    from engine.variables.names_before import names_set_before
    from engine.variables.raw import looks_like_fact

    if plan.inventory.data.merge_hashes or touched & NOT_FOLLOWED:
        return None
    touched = {name for name in touched if not name.startswith(MEMBERSHIP)}  # the groups, which no task sets
    may_set = names_set_before(plan, play_plan, play_order)
    # (a connection setting or magic variable named ansible_* is no fact: the key tells it as any name)
    if may_set is None:  # a task before whose names are not told (include_vars, group_by...): any name may be set
        if not OPEN or any(name not in facts and looks_like_fact(name) for name in set_per_host):
            return None
        return frozenset(touched)  # the key is the walk's layers for them, whichever task set them
    if any(name not in facts and (name not in may_set or looks_like_fact(name)) for name in set_per_host):
        return None
    return frozenset(name for name in touched if name in may_set)


def earlier_key(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, names: frozenset[str]) -> tuple[Any, ...]:
    """The definitions of ``names`` that the tasks before ``task`` (its first run, outside a looped
    include) give ``host``, as a hashable key; the host's other values are not part of it."""
    follower = Follower(plan, play_order, templar_at, include_item_order)
    return once_per_plays(follower, play_plan, host, task, 0, names, "earlier key",  # type: ignore[no-any-return]
                          lambda: _kept_walk(follower, plan, play_plan, host, task, names))


def _kept_walk(follower: Any, plan: Plan, play_plan: PlayPlan, host: Host, task: Task,
               names: frozenset[str]) -> tuple[Any, ...]:
    """:func:`_walked`, kept for the host until a task that may set one of ``names`` (a fleet's
    hosts are keyed at every task reading them, the walk only changes at such a task); walked each
    time where which task reads decides it too (a rescue in the play, a looping include around it)."""
    from engine.variables.earlier_walk import _keep, _kept, _key
    from engine.variables.report import inventory_of

    order = follower.order_of(play_plan.play)
    positions = order.positions.get(id(task))
    walk = partial(_walked, follower, plan, play_plan, host, task, names)
    share = getattr(plan, "class_walk", None)  # hosts whose walks read the same share one (walk_classes)
    if not positions or play_blocks(play_plan.play).rescuing or \
            bool(order.looping(task)):
        # kept for no other task; shared between hosts where the setters on the way allow it (the
        # reader's own looping include changes nothing of the walk of the setters before it)
        return share(follower, play_plan, host, task, names, "earlier key", walk) if share is not None else walk()
    inventory = inventory_of(plan, play_plan, task, host.name).data  # the task's scope's (report._scope)
    key = _key(follower, play_plan, ("earlier key", setters_before(order, positions[0], names), id(inventory)),
               host, names)
    found = _kept(follower, play_plan, key)
    if found is None:
        planned = getattr(play_plan, "planned_runs", None)
        found = share(follower, play_plan, host, task, names, "earlier key", walk) if share is not None else walk()
        _keep(follower, play_plan, key, planned, found)
    return found  # type: ignore[no-any-return]


def earlier_classes(plan: Plan, play_plan: PlayPlan, task: Task,
                    names: frozenset[str]) -> Callable[[Host], tuple[bool, ...]] | None:
    """When :func:`earlier_key` is one walk for all the hosts in the same plays (the tasks before
    set ``names`` alike on every host), what it depends on for a host: which of the plays so far
    the host is in (hosts with equal answers get the same key, the same object); else None."""
    from engine.variables.host_runtime import Follower, host_names, kept_uniform_walk

    follower = Follower(plan, play_order, templar_at, include_item_order)
    if not kept_uniform_walk(follower, play_plan, task, 0, names):
        return None
    plays = [host_names(earlier) for earlier in plays_before(plan, play_plan, True)]
    return lambda host: tuple(host.name in names for names in plays)


def _walked(follower: Any, plan: Plan, play_plan: PlayPlan, host: Host, task: Task,
            names: frozenset[str]) -> tuple[Any, ...]:
    scope = _scope(plan, play_plan, task, 0, host.name)
    host = scope.manager.inventory.data.hosts.get(host.name, host)  # its groups as the inventory is at the task
    key = []
    # the setters that may set one of ``names`` are those setting one a setter tells, and those that
    # tell none: walked for those alone, tasks reading names no setter tells share the host's walk
    walk = names & told_names(plan, play_plan, follower.order_of)
    for layer in follower.earlier_layers(play_plan, host, task, 0, (), names=walk):
        values = [(name, layer.line(name), value_key(layer.values[name])) for name in sorted(names)
                  if name in layer.values]
        if values or layer.any_name is not None:  # any name not set elsewhere: the run's, for this reason
            key.append((layer.level, layer.label, layer.path, layer.runtime, layer.any_name, tuple(values)))
    return tuple(key)


def told_names(plan: Plan, play_plan: PlayPlan, order_of: Callable[[Any], Any]) -> frozenset[str]:
    """Every name a setter of the plays up to ``play_plan`` tells it may set (``register``, an
    untemplated ``set_fact`` key), kept until an include adds tasks."""
    from engine.variables.setters import set_names, setters

    plays = plays_before(plan, play_plan, including=True)
    sizes = tuple(len(order_of(earlier.play).tasks) for earlier in plays)
    kept = play_plan.play.derived.get("told names")
    if kept is None or kept[0] != sizes or kept[1] is not plan:
        found: set[str] = set()
        for earlier in plays:
            order = order_of(earlier.play)
            for _, task in setters(order, len(order.tasks)):
                found |= set_names(task) or frozenset()
        kept = play_plan.play.derived["told names"] = (sizes, plan, frozenset(found))
    return kept[2]  # type: ignore[no-any-return]

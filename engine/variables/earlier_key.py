"""What the tasks before a task set on a host, for some names, as a key: two hosts with equal keys
get equal definitions of those names from the earlier tasks (the same levels, labels, places and
values), so a reading that depends on nothing else of theirs is the same on both. The plan shares
a task's outcome between such hosts (engine.flow.host_outcome) instead of following the earlier
tasks whole on each host.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.sources import RuntimeValue, _RuntimeResult
from engine.variables.task_results import ModuleResult

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.sources import Layer

NOT_FOLLOWED = frozenset({"ansible_failed_task", "ansible_failed_result", "vars", "hostvars"})
"""Names the key does not speak for (a rescue's, or every variable at once)."""


def followed_names(plan: Plan, play_plan: PlayPlan, touched: set[str], set_per_host: set[str]) -> frozenset[str] | None:
    """The names a reading read (``touched``) that earlier tasks may set, whose definitions by them
    (:func:`earlier_key`) then tell hosts apart; None when the reading read per host what the key
    cannot tell: a name (of ``set_per_host``, those read per host) none of the tasks of the plays so
    far is known to set (include_vars, a templated set_fact key), a fact, a rescue's, or values merged
    with ``hash_behaviour=merge``."""
    from engine.variables.host_runtime import names_set_before
    from engine.variables.play_order import play_order

    may_set = names_set_before(plan, play_plan, play_order)
    if may_set is None or plan.inventory.data.merge_hashes or touched & NOT_FOLLOWED or \
            any(name not in may_set or name.startswith("ansible_") for name in set_per_host):
        return None
    return frozenset(name for name in touched if name in may_set)


def earlier_key(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, names: frozenset[str]) -> tuple[Any, ...]:
    """The definitions of ``names`` that the tasks before ``task`` (its first run, outside a looped
    include) give ``host``, as a hashable key; the host's other values are not part of it."""
    from engine.variables.host_runtime import Follower, _memo, host_names, plays_before
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at

    memo = _memo(play_plan)
    follower = Follower(plan, play_order, templar_at, include_item_order)
    uniform = memo.get(("uniform walk", id(task), 0, names))
    if uniform is None or uniform[0] is not plan:
        uniform = memo[("uniform walk", id(task), 0, names)] = (plan, _uniform_walk(follower, play_plan, task, names))
    if uniform[1]:  # the same walk on every host in the same plays: once per such set of hosts
        membership = tuple(host.name in host_names(earlier) for earlier in plays_before(plan, play_plan, True))
        kept = memo.get(("earlier key", id(task), names, membership))
        if kept is None or kept[0] is not plan:
            kept = memo[("earlier key", id(task), names, membership)] = (plan, _walked(
                follower, plan, play_plan, host, task, names))
        return kept[1]  # type: ignore[no-any-return]
    return _walked(follower, plan, play_plan, host, task, names)


def shared_earlier_layers(follower: Any, play_plan: PlayPlan, host: Host, task: Task | None, occurrence: int,
                          outer: tuple[int, ...]) -> list[Layer]:
    """``follower.earlier_layers`` of this run of ``task`` on ``host`` (not under a looped include's
    items), once for all the hosts in the same plays when the tasks before set alike on every host."""
    from engine.variables.host_runtime import _memo, host_names, plays_before

    plan = follower.plan
    if task is None or outer:
        return follower.earlier_layers(play_plan, host, task, occurrence, outer)  # type: ignore[no-any-return]
    memo = _memo(play_plan)
    uniform = memo.get(("uniform walk", id(task), occurrence, None))
    if uniform is None or uniform[0] is not plan:
        uniform = memo[("uniform walk", id(task), occurrence, None)] = (
            plan, _uniform_walk(follower, play_plan, task, None, occurrence))
    if not uniform[1]:
        return follower.earlier_layers(play_plan, host, task, occurrence, outer)  # type: ignore[no-any-return]
    membership = tuple(host.name in host_names(earlier) for earlier in plays_before(plan, play_plan, True))
    key = ("earlier layers", id(task), occurrence, membership)
    kept = memo.get(key)
    if kept is None or kept[0] is not plan:
        kept = memo[key] = (plan, follower.earlier_layers(play_plan, host, task, occurrence, outer))
    return list(kept[1])


def _walked(follower: Any, plan: Plan, play_plan: PlayPlan, host: Host, task: Task,
            names: frozenset[str]) -> tuple[Any, ...]:
    from engine.variables.report import _scope

    scope = _scope(plan, play_plan, task, 0, host.name)
    host = scope.manager.inventory.data.hosts.get(host.name, host)  # its groups as the inventory is at the task
    key = []
    for layer in follower.earlier_layers(play_plan, host, task, 0, (), names=names):
        values = [(name, layer.line(name), value_key(layer.values[name])) for name in sorted(names)
                  if name in layer.values]
        if values:
            key.append((layer.level, layer.label, layer.path, layer.runtime, layer.any_name, tuple(values)))
    return tuple(key)


def _uniform_walk(follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None,
                  occurrence: int = 0) -> bool:
    """Whether every task before ``task`` that may set ``names`` (in the plays so far) does so alike
    on every host of its play: effects the same on every host, not in a block with a rescue, not a
    handler, not loaded by a looping or ``run_once`` include, not for some hosts only, no facts
    delegated, and no ``meta: end_host`` on the way; all of them (``names`` None): no rescue in the
    plays either. The earlier tasks' walk is then the same on all hosts in the same plays
    (engine.variables.host_runtime.Follower.earlier_layers)."""
    from engine.flow.run_settings import runs_once
    from engine.loading import keywords as kw
    from engine.variables.block_runs import play_blocks
    from engine.variables.host_runtime import _ends_host_task, _setters, plays_before
    from engine.variables.loop_vars import includer_loops
    from engine.variables.task_results import host_independent, known_shape

    plan = follower.plan
    for earlier in plays_before(plan, play_plan, including=True):
        order = follower.order_of(earlier.play)
        before = len(order._before(task, occurrence)) if earlier is play_plan else len(order.tasks)  # noqa: SLF001
        blocks = play_blocks(earlier.play) if names is None else None
        if blocks is not None and blocks.rescue_starts:
            return False  # what a rescue gives a host depends on what failed there
        for _, done in _setters(order, before, names):
            includers = order.includers.get(id(done), [])
            data = done.data if isinstance(done.data, Mapping) else {}
            if _ends_host_task(done) or done.handler or data.get("delegate_facts") or \
                    order.loaded_on.get(id(done)) is not None or done.effective_when() or \
                    any(include.effective_when() or includer_loops(include) or
                        include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS and runs_once(include)
                        for include in includers) or known_shape(done) and not host_independent(done):
                return False
            blocks = blocks or play_blocks(earlier.play)
            if id(done) in blocks.paths and blocks.rescuing:
                return False
    return True


def value_key(value: Any, depth: int = 0) -> Any:
    """``value`` as a hashable key, equal only for values every reading sees alike: types and the
    order of a mapping's keys kept, what only the run knows by its reason, any other object by
    itself."""
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return (kind.__name__, value)
    if depth > 50:
        return ("object", _Same(value))
    if isinstance(value, ModuleResult):
        return ("module result", value_key(value._known, depth + 1), tuple(sorted(value._absent)),  # noqa: SLF001
                value.unknown_whole, value.uniform)
    if isinstance(value, RuntimeValue):
        return ("runtime", kind.__name__, value.reason, value.uniform)
    if isinstance(value, Mapping) and kind.__module__ in ("builtins", "engine.span"):
        return (kind.__name__, tuple((value_key(k, depth + 1), value_key(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, list | tuple) and kind.__module__ in ("builtins", "engine.span"):
        return (kind.__name__, tuple(value_key(item, depth + 1) for item in value))
    if isinstance(value, _RuntimeResult):
        return ("runtime result", _Same(value))
    return ("object", _Same(value))


class _Same:
    """Equal only to itself wrapping the same object (kept, so its id is not reused meanwhile)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

"""The steps of the walk of the tasks before a task on a host (engine.variables.host_runtime and
engine.variables.earlier_walk share them): which tasks set something or may end the play for a
host, the names each may set, which run of a task a place in the play's order is, and what a task
set made unknown when a task before may have ended the play for the host."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw
from engine.loading.keywords import META
from engine.span import YMap
from engine.variables.sources import INCLUDE_VARS, SET_FACT, Layer, RuntimeValue
from engine.variables.task_results import Effects

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.loading.model import Task

ADD_HOST, GROUP_BY = kw._family("add_host"), kw._family("group_by")


def host_names(play_plan: PlayPlan) -> frozenset[str]:
    """The names of the play's hosts, once per list of them (asked for each host of a fleet)."""
    kept = play_plan.__dict__.get("host_names")
    if kept is None or kept[0] is not play_plan.hosts or kept[1] != len(play_plan.hosts):
        kept = play_plan.__dict__["host_names"] = (play_plan.hosts, len(play_plan.hosts),
                                                   frozenset(h.name for h in play_plan.hosts))
    return kept[2]


def occurrence(order: Any, task: Task, at: int) -> int:
    """Which run of ``task`` the one at place ``at`` of the play's order is."""
    positions = order.positions.get(id(task), [])
    return positions.index(at) if at in positions else 0


def setters(order: Any, before: int, names: frozenset[str] | None = None) -> list[tuple[int, Task]]:
    """The tasks among the first ``before`` of the play's ``order`` that set something or may end
    the play for a host, each with its place (kept with the order until an include adds tasks to it);
    with ``names``, only those that may set one of them (:func:`set_names`) or end the play."""
    return _first(_setters_of(order, names), before)


def setters_before(order: Any, before: int, names: frozenset[str] | None = None) -> int:
    """How many :func:`setters` there are among the first ``before`` tasks (a search, not a list):
    two places with as many setters of every name before them have the same setters before them,
    of any names."""
    return bisect_left(_setters_of(order, names), before, key=itemgetter(0))


def _setters_of(order: Any, names: frozenset[str] | None) -> list[tuple[int, Task]]:
    """Every setter of the play's ``order`` (of ``names``), kept with the order."""
    kept = getattr(order, "setters", None)
    if kept is None or kept[0] is not order.tasks or kept[1] != len(order.tasks):
        every = [(at, task) for at, task in enumerate(order.tasks)
                 if sets_something(task) or ends_host_task(task) or ends_in_batch(task)]
        # by each name a setter may set, and those that may set any (or end the play): a name's
        # setters are looked up, not found by asking every setter of the play for each set of names
        by_name: dict[str, list[tuple[int, Task]]] = {}
        always = []
        for at, task in every:
            found = may_set(task)
            if found is None:
                always.append((at, task))
            else:
                for name in found:
                    by_name.setdefault(name, []).append((at, task))
        kept = (order.tasks, len(order.tasks), every, {}, by_name, always, frozenset(by_name))
        order.setters = kept
    if names is None:
        return kept[2]  # type: ignore[no-any-return]
    by_names = kept[3].get(names)
    if by_names is None:
        chosen = dict(kept[5])
        for name in names:
            chosen.update(kept[4].get(name, ()))
        by_names = kept[3][names] = sorted(chosen.items(), key=itemgetter(0))
    return by_names  # type: ignore[no-any-return]


def names_set(order: Any) -> frozenset[str]:
    """Every name a setter of the play's ``order`` may set (those that may set any aside): names
    outside it pick no setter of the play (:func:`setters`). Kept with the order's setters."""
    _setters_of(order, None)
    return order.setters[6]  # type: ignore[no-any-return]


def may_set(task: Task) -> frozenset[str] | None:
    """The names a setter may set, as a walk for some names picks its steps (:func:`setters`): None
    when it may set any, or end the play for a host."""
    return None if ends_host_task(task) or ends_in_batch(task) else set_names(task)


def _first(setters: list[tuple[int, Task]], before: int) -> list[tuple[int, Task]]:
    """The setters (in the order's order) placed before ``before``: a slice, not a scan (asked per
    host at every task that reads what the tasks before set)."""
    return setters[:bisect_left(setters, before, key=itemgetter(0))]


def play_enders(order: Any) -> list[Task]:
    """The ``meta: end_play`` tasks of the play's ``order``, kept with its setters (asked at every
    walk of a play: the setters kept, not copied)."""
    every = _setters_of(order, None)
    kept = getattr(order, "enders", None)
    if kept is None or kept[0] is not order.setters:
        kept = order.enders = (order.setters, [done for _, done in every if ends_in_batch(done)
                                               and isinstance(done.args, Mapping)
                                               and done.args.get("_raw_params") == "end_play"])
    return kept[1]


def batch_enders(order: Any) -> list[tuple[int, Task]]:
    """The ``meta: end_batch`` and ``end_play`` tasks of the play's ``order``, each with its place,
    kept with its setters."""
    every = _setters_of(order, None)
    kept = getattr(order, "batch_enders", None)
    if kept is None or kept[0] is not order.setters:
        kept = order.batch_enders = (order.setters, [(at, done) for at, done in every if ends_in_batch(done)])
    return kept[1]  # type: ignore[no-any-return]


def ends_host_task(task: Task) -> bool:
    return task.action in META and isinstance(task.args, Mapping) and task.args.get("_raw_params") == "end_host"


def ends_in_batch(task: Task) -> bool:
    """A ``meta: end_batch`` or ``end_play``: the linear strategy runs it once for its batch, and
    where it runs, no task after it in the play runs on the batch's hosts."""
    return task.action in META and isinstance(task.args, Mapping) and \
        task.args.get("_raw_params") in ("end_batch", "end_play")


def maybe(effects: Effects, reason: bool | str) -> Effects:
    """``effects`` as they are, or each value unknown (``reason``: a task before may have ended the
    play for the host)."""
    if not isinstance(reason, str):
        return effects
    return Effects([unknown_layer(layer, reason) for layer in effects.included],
                   [unknown_layer(layer, reason) for layer in effects.facts], effects.delegated_to)


def sets_something(task: Task) -> bool:
    data = task.data if isinstance(task.data, Mapping) else {}
    return task.action in SET_FACT or task.action in INCLUDE_VARS or bool(data.get("register"))


def unknown_layer(layer: Layer, reason: str) -> Layer:
    values = YMap()
    for name in layer.values:
        values[name] = RuntimeValue(reason)
    values.key_spans.update(getattr(layer.values, "key_spans", {}))
    return Layer(layer.level, layer.label, values, layer.path, layer.default_line, True)


def set_names(task: Task) -> frozenset[str] | None:
    """The variable names ``task`` may set on a host for the tasks after it (``register``,
    ``set_fact``'s keys), None when they are not told (``include_vars``, a templated key) or it
    changes the inventory (``add_host``, ``group_by``: groups and other hosts' variables)."""
    data = task.data if isinstance(task.data, Mapping) else {}
    found = {str(data["register"])} if data.get("register") else set()
    if task.action in INCLUDE_VARS | ADD_HOST | GROUP_BY:
        return None
    if task.action in SET_FACT:
        if not isinstance(task.args, Mapping):
            return None
        keys = [str(key) for key in task.args if key != "cacheable"]
        if any("{" in key or "%" in key for key in keys):
            return None
        found.update(keys)
    return frozenset(found)


def side_by_side(given: list[Effects], reason: str) -> list[Effects]:
    """What the hosts of one batch each delegated to one host (``delegate_facts``), run side by
    side: a name one of them sets (a key templated from the sender's name, most often) is that
    one's; a name several set to different values is the last to finish's (``reason``), which only
    the run knows."""
    seen: dict[str, list[Any]] = {}
    for effects in given:
        for layer in effects.facts:
            for name, value in layer.values.items():
                seen.setdefault(name, []).append(value)
    contested = {name for name, values in seen.items() if len(values) > 1 and not _alike(values)}
    return [Effects(facts=[_unknown_names(layer, contested, reason) for layer in effects.facts]) for effects in given]


def _alike(values: list[Any]) -> bool:
    first = values[0]
    try:
        return not isinstance(first, RuntimeValue) and all(type(v) is type(first) and v == first for v in values[1:])
    except Exception:  # noqa: BLE001 - values that do not compare are not taken as one
        return False


def _unknown_names(layer: Layer, names: set[str], reason: str) -> Layer:
    if not names & set(layer.values):
        return layer
    values = YMap()
    for name, value in layer.values.items():
        values[name] = RuntimeValue(reason) if name in names else value
    values.key_spans.update(getattr(layer.values, "key_spans", {}))
    return Layer(layer.level, layer.label, values, layer.path, layer.default_line, layer.runtime)

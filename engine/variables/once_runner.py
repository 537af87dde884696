"""Which host a ``run_once`` task runs on, and what it sets where that host is the run's to know.

A ``run_once`` handler runs, at each flush point, on the first host of the batch the plan runs it
on there (the first notified), and its result reaches every host of the batch
(``StrategyBase.get_task_hosts``), notified or not (:func:`handler_runner`).

ansible runs a ``run_once`` task on the first host of the batch and gives its result to every host
of the batch. Where the play's hosts come in an order only the run knows
(engine.flow.play_host_order: ``shuffle``, a group ``group_by`` filled, a group whose nested child
groups ansible walks in a set's order) any host of the play may be that first one. What the task
sets is then known only where every such host would set the same (a constant, a value of the
play's): it is followed on each of them (up to :data:`CANDIDATES`) and compared; otherwise each
value is unknown, naming why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.flow.batches import play_batches
from engine.flow.play_host_order import batch_everywhere, run_order_unknown
from engine.span import YMap
from engine.values import frozen
from engine.variables.layer import Layer, RuntimeValue, is_runtime
from engine.variables.module_result import ModuleResult
from engine.variables.setters import maybe

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.task_results import Effects

CANDIDATES = 6
"""The most hosts a ``run_once`` task's effects are followed on to see that they agree."""


def once_candidates(plan: Plan, play_plan: PlayPlan, runner: Host, host: Host | None = None,
                    first_of: Callable[[list[Host]], Host] | None = None) -> tuple[list[Host] | None, str] | None:
    """The other hosts that may run a ``run_once`` task instead of ``runner`` and why (None for
    the hosts: too many to follow), or None where the runner is known (the order is, or every
    batch holds one host). Where the orders the play's hosts may run in are known
    (engine.flow.play_host_order.possible_play_orders), those are the hosts ``first_of`` gives of
    ``host``'s batch in each: none where it is the same batch in every order."""
    why = run_order_unknown(plan, play_plan)
    if why is None:
        return None
    names = [host.name for host in play_plan.hosts]
    if all(len(batch) < 2 for batch in play_batches(play_plan.play, names)):
        return None
    inventory = getattr(play_plan, "inventory", None) or plan.inventory
    everywhere = batch_everywhere(play_plan, inventory.data, host.name) \
        if host is not None and first_of is not None else None
    if everywhere is not None and first_of is not None:
        by_name = {member.name: member for member in play_plan.hosts}
        firsts = {id(first): first for first in (first_of([by_name[name] for name in batch]) for batch in everywhere)}
        others = [first for first in firsts.values() if first is not runner]
        if not others:
            return None
    else:
        others = [other for other in play_plan.hosts if other is not runner]
    return (others if len(others) < CANDIDATES else None), why


def agreed(own: Effects, candidates: tuple[list[Host] | None, str], effects_on: Callable[[Host], Effects]) -> Effects:
    """``own`` (what the task sets run on the host assumed first) where each other candidate
    would set the same; a name they set apart is unknown, a registered result known in the keys
    they agree on (whichever host runs it, it is set, and ``is defined``, ``is succeeded`` read so)."""
    others, why = candidates
    reason = f"set by a run_once task: {why}, so is the host it runs on"
    if others is None:
        return maybe(own, reason)
    every = [own, *(effects_on(other) for other in others)]
    shape = _shape(own)
    if any(_shape(effects) != shape for effects in every[1:]):
        return maybe(own, reason)
    if all(_key(effects) == _key(own) for effects in every[1:]):
        return own
    return replace(own, included=[_common([effects.included[at] for effects in every], reason)
                                  for at in range(len(own.included))],
                   facts=[_common([effects.facts[at] for effects in every], reason) for at in range(len(own.facts))])


def _shape(effects: Effects) -> Any:
    return tuple((layer.label, tuple(layer.values)) for layer in [*effects.included, *effects.facts])


def _common(layers: list[Layer], reason: str) -> Layer:
    """The first of ``layers`` (one per candidate host, alike but for their values) with each value
    they do not all give unknown, a result's keys they do not all give unknown."""
    values = YMap()
    for name in layers[0].values:
        values[name] = _one_value([layer.values[name] for layer in layers], reason)
    values.key_spans.update(getattr(layers[0].values, "key_spans", {}))
    first = layers[0]
    return Layer(first.level, first.label, values, first.path, first.default_line, first.runtime)


def _one_value(values: list[Any], reason: str) -> Any:
    first = values[0]
    if not is_runtime(first) and all(not is_runtime(value) and frozen(value) == frozen(first) for value in values[1:]):
        return first
    if all(isinstance(value, dict | ModuleResult) for value in values):
        known = {key: value for key, value in _known(first).items()
                 if all(key in _known(other) and frozen(_known(other)[key]) == frozen(value) for other in values[1:])}
        absent = frozenset.intersection(*(_absent(value) for value in values))
        return ModuleResult(known, "the run_once task on the host that runs it", absent, why=reason)
    return RuntimeValue(reason, defined=True)


def _known(result: dict[str, Any] | ModuleResult) -> dict[str, Any]:
    return result if isinstance(result, dict) else result.known


def _absent(result: dict[str, Any] | ModuleResult) -> frozenset[str]:
    """The keys a result is known not to have (a whole one's are left unknown: which keys the other
    candidates' results lack is not told)."""
    return frozenset() if isinstance(result, dict) else result.absent


def _key(effects: Effects) -> Any:
    return tuple((layer.label, frozen(dict(layer.values))) for layer in [*effects.included, *effects.facts])


def handler_runner(play_plan: PlayPlan, handler: Task, occurrence: int, batch: list[Host],
                   placed: int) -> tuple[Host, str | None] | None:
    """The host of ``batch`` a ``run_once`` ``handler`` runs on at its ``occurrence``-th flush point,
    as the plan runs it there (where the plan lists it at the ``placed`` flush points the play's
    order has it), with why only the run knows it if so; None where the plan does not say."""
    outcomes = (getattr(play_plan, "planned_runs", None) or {}).get(id(handler), [])
    if len(outcomes) != placed or occurrence >= placed:
        return None
    for runner in batch:
        runs = outcomes[occurrence].get(runner.name, False)
        if runs is True:
            return runner, None
        if isinstance(runs, str):
            return runner, f"set by task '{handler.display_name()}', run once on the first host notified, " \
                           f"which only the run knows: on {runner.name} it {runs}"
    return None

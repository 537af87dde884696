"""The item keys a host's order of a looped include's items is worked out from
(engine.variables.report.include_item_order), each host's once: the order of a host's items is
compared with the items of the play's first hosts, and it is asked for at every task the include
loads, so templating every host's items again at each of them cost tasks x hosts (a fleet's hosts
each compared with fifty others). The order that comparison gives a host is kept the same way
(:func:`kept_item_order`): the other hosts' keys it reads are kept under the same state, so it
was fifty comparisons per host at every task and run of a setter the include loads."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.variables.play_order import play_order

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

KEEP = True
"""Whether a host's item keys are kept while nothing they are worked out from changes (tests compare)."""


def kept_item_keys(plan: Plan, play_plan: PlayPlan, host: Host, include: Task,
                   keys: Callable[[], list[Any] | str | None]) -> list[Any] | str | None:
    """``keys()``: the items of the looped ``include`` on ``host`` as keys (or why only the run knows
    them), templated at the include with what the host has there, whichever task asks. Kept per host
    while the play's hosts, planned runs, removed hosts, inventory and plan stay the same (what the
    include's templar reads from); an include the play's order does not hold is templated with the
    asking task's values, each time."""
    return _kept(plan, play_plan, host, include, "include item keys", keys)


def kept_item_order(plan: Plan, play_plan: PlayPlan, host: Host, include: Task,
                    order: Callable[[], list[int] | None]) -> list[int] | None:
    """``order()``: the order ``host`` runs the looped ``include``'s items in, worked out from its
    item keys and the play's first hosts' (:func:`kept_item_keys`, each kept under the state
    :func:`_state` tells, the same for every host but the name), so kept as they are."""
    return _kept(plan, play_plan, host, include, "include item order", order)


def _kept(plan: Plan, play_plan: PlayPlan, host: Host, include: Task, what: str,
          work: Callable[[], Any]) -> Any:
    from engine.variables.host_runtime import followed_memo

    if not KEEP or id(include) not in play_order(play_plan.play).positions:
        return work()
    state = _state(plan, play_plan, include, host)
    if state is None:
        return work()
    key = (what, *state)
    memo = followed_memo(play_plan)
    kept = memo.get(key)
    if kept is not None and kept[0] is plan:
        return kept[1]
    found = work()
    if state == _state(plan, play_plan, include, host):  # nothing it reads changed while it was worked out
        memo[key] = (plan, found)
    return found


def _state(plan: Plan, play_plan: PlayPlan, include: Task, host: Host) -> tuple[Any, ...] | None:
    """What the include's templar on ``host`` is worked out from, as identities; None (nothing
    kept) while the plan's removed hosts are still to be planned, or inside another host's
    ``hostvars`` reading (where failures before decide what the host set)."""
    from engine.variables import failed_hosts

    if getattr(plan, "removals_pending", None) is not None or failed_hosts._others_reading:  # noqa: SLF001
        return None
    return (id(include), host.name, len(play_order(play_plan.play).tasks), id(play_plan.hosts),
            len(play_plan.hosts), id(getattr(play_plan, "planned_runs", None)),
            id(getattr(play_plan, "removed_at", None)), id(getattr(play_plan, "inventory", None)),
            id(plan.inventory), id(plan))

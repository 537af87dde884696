"""The order a host runs a looped include's items in (:func:`include_item_order`), and the item
keys it is worked out from, each host's once: the order of a host's items is compared with the
items of the play's first hosts, and it is asked for at every task the include loads, so templating
every host's items again at each of them cost tasks x hosts (a fleet's hosts each compared with
fifty others)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.variables.play_order import play_order

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

ORDERED_HOSTS = 50
"""Hosts whose looped include items are compared to order a host's runs (more: in item order)."""

KEEP = True
"""Whether a host's item keys are kept while nothing they are worked out from changes (tests compare)."""


def include_item_order(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, include: Task,
                       occurrence: int = 0) -> list[int] | None:
    """The order ``host`` runs the items of the looped ``include`` in (None: its items only the
    run knows; -1 for each when their order is the run's). ansible loads one file per distinct
    (file, item variables), in the order the hosts' results come in, which is the run's
    (``IncludedFile.process_include_results``), a host joining an earlier host's equal one: a
    host's items equal to another host's, other than the first ones in the same order, may run
    in another order."""
    mine = item_keys(plan, play_plan, host, task, include, occurrence)
    if mine is None:
        return None
    ambiguous = [-1] * len(mine)  # the results' order (which host's comes first) decides: the run's
    if len(set(mine)) < len(mine):
        return ambiguous
    own = set(mine)
    for other in play_plan.hosts[:ORDERED_HOSTS]:
        theirs = item_keys(plan, play_plan, other, task, include, occurrence) if other.name != host.name else None
        if not theirs:
            continue
        common = [key for key in theirs if key in own]
        if common != mine[: len(common)]:  # an earlier host's result would move this host's items
            return ambiguous
    return list(range(len(mine)))


def item_keys(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, include: Task,
              occurrence: int) -> list[Any] | None:
    """The items of ``include`` on ``host`` as keys (None: only the run knows them). ansible
    templates the items once, at the include, with what the host has there: not with what the
    included tasks set from item to item. An include in the play's order is templated with its own
    values, whichever task asks: kept per host while the play's hosts, planned runs, removed hosts,
    inventory and plan stay the same (what the include's templar reads from)."""
    from engine.variables.host_runtime import _memo

    def keys() -> list[Any] | None:
        from engine.variables.loop_vars import loop_scopes
        from engine.variables.report import _frozen, _include_templar

        scopes = loop_scopes(include, _include_templar(plan, play_plan, host, include, task, occurrence))
        return [_frozen(scope) for scope in scopes] if isinstance(scopes, list) else None

    if not KEEP or id(include) not in play_order(play_plan.play).positions:
        return keys()  # templated with the asking task's values
    key = _state(plan, play_plan, include, host)
    if key is None:
        return keys()
    memo = _memo(play_plan)
    kept = memo.get(key)
    if kept is not None and kept[0] is plan:
        return kept[1]  # type: ignore[no-any-return]
    found = keys()
    if key == _state(plan, play_plan, include, host):  # nothing it reads changed while it was worked out
        memo[key] = (plan, found)
    return found


def _state(plan: Plan, play_plan: PlayPlan, include: Task, host: Host) -> tuple[Any, ...] | None:
    """What the include's templar on ``host`` is worked out from, as identities; None (nothing
    kept) while the plan's removed hosts are still to be planned, or inside another host's
    ``hostvars`` reading (where failures before decide what the host set)."""
    from engine.variables import failed_hosts

    if getattr(plan, "removals_pending", None) is not None or failed_hosts._others_reading:  # noqa: SLF001
        return None
    return ("include item keys", id(include), host.name, len(play_order(play_plan.play).tasks), id(play_plan.hosts),
            len(play_plan.hosts), id(getattr(play_plan, "planned_runs", None)),
            id(getattr(play_plan, "removed_at", None)), id(getattr(play_plan, "inventory", None)),
            id(plan.inventory), id(plan))

"""Whether the order a play runs its hosts in is known before the run.

ansible takes a play's hosts in the order its pattern lists them: the order of each group it
names. Two kinds of group have an order only the run knows: one ``group_by`` filled with hosts of
one batch (as their results came in: engine.variables.inventory_changes), and one whose child
groups' own children ansible walks in a set's order (engine.inventory.host_order). A play on
such a group has its host lists in the run's order, its ``serial`` batches cut from it, and a
``run_once`` task runs on a host only the run names; a play whose ``order`` is ``shuffle`` (or a
template) has its batches and that host in the run's order too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan


def play_order_reason(play_plan: Any, nested: Mapping[str, str]) -> str | None:
    """Why the order of the play's hosts is the run's (a group its pattern takes them in order from
    that group_by filled, or of ``nested``: group -> why, engine.inventory.host_order), or None."""
    if getattr(play_plan, "racy_order", None):
        return (f"the order of the hosts group_by put in {', '.join(repr(g) for g in sorted(play_plan.racy_order))} "
                "(as their results came in), which only the run knows")
    named = play_run_ordered(play_plan, nested)
    return nested[named[0]].removeprefix("not known before the run: ") if named else None


def play_run_ordered(play_plan: Any, nested: Mapping[str, str]) -> list[str]:
    """The groups of ``nested`` the play's pattern takes its hosts in order from; worked out once
    per inventory state (hosts x tasks ask)."""
    if not nested:
        return []
    kept = play_plan.__dict__.get("_nested_order")
    if kept is None or kept[0] is not nested:
        kept = play_plan.__dict__["_nested_order"] = (nested, ordered_by(play_plan.play.hosts, set(nested)))
    return kept[1]  # type: ignore[no-any-return]


def run_order_unknown(plan: Plan, play_plan: PlayPlan) -> str | None:
    """Why the order the play runs its hosts in is the run's to know (so the first host of each
    batch, which a ``run_once`` task runs on), or None: its ``order`` is ``shuffle``, or its hosts
    come in the order of a group only the run orders, in the inventory the play selects them from."""
    from engine.inventory.host_order import run_ordered_groups

    if not play_plan.order_known:
        return "the play's order is the run's (shuffle)"
    inventory = getattr(play_plan, "inventory", None) or plan.inventory
    return play_order_reason(play_plan, run_ordered_groups(inventory.data))


def ordered_by(pattern: Any, racy: set[str]) -> list[str]:
    """The groups among ``racy`` whose order the hosts ``pattern`` selects come in: those it
    names (or may match by a wildcard or a regex) other than to intersect or exclude."""
    from engine.inventory.patterns import split_host_pattern

    if not racy:
        return []
    found: set[str] = set()
    for term in split_host_pattern(pattern):
        if term[:1] in ("&", "!"):
            continue
        name = term.split("[", 1)[0] if not term.startswith("~") else term
        found |= racy if any(c in name for c in "*?~") else racy & {name}
    return sorted(found)


def possible_play_orders(play_plan: PlayPlan, data: Any) -> list[list[str]] | None:
    """Every order the play's hosts may run in (their names), where only the walk of one group's
    nested child groups makes it the run's (engine.inventory.host_order.possible_orders), or the
    order group_by filled one group in (each of its runs' hosts in any order, the runs in turn:
    ``racy_blocks``, engine.variables.inventory_changes): a play in inventory order on that one
    group, less what it intersects with or excludes and what ``--limit`` leaves out, all of which
    keep the group's order. None otherwise (its ``order``, several groups or a slice of one), or
    for too many orders."""
    from engine.inventory.host_order import possible_orders, run_ordered_groups
    from engine.inventory.patterns import split_host_pattern

    kept = play_plan.__dict__.get("_possible_orders")
    if kept is not None and kept[0] is data.get_groups_dict():
        return kept[1]  # type: ignore[no-any-return]
    found = None
    keywords = play_plan.play.data if isinstance(play_plan.play.data, Mapping) else {}
    racy = getattr(play_plan, "racy_order", None)
    named = racy or play_run_ordered(play_plan, run_ordered_groups(data))
    added = [term for term in split_host_pattern(play_plan.play.hosts) if term[:1] not in ("&", "!")]
    if play_plan.order_known and keywords.get("order", "inventory") == "inventory" and len(named) == 1 and \
            added == named and named[0] in data.groups:
        names = [host.name for host in play_plan.hosts]
        chosen = set(names)
        group = data.groups[named[0]]
        if [host.name for host in group.get_hosts() if host.name in chosen] == names:
            walks = None if racy else possible_orders(group)
            orders = _filled_orders(getattr(play_plan, "racy_blocks", {}).get(named[0]), group) if racy else \
                None if walks is None else [[host.name for host in walk] for walk in walks]
            found = None if orders is None else [[name for name in order if name in chosen] for order in orders]
    play_plan.__dict__["_possible_orders"] = (data.get_groups_dict(), found)
    return found


def _filled_orders(blocks: list[list[str]] | None, group: Any, most: int = 24) -> list[list[str]] | None:
    """The orders group_by's runs (``blocks``: the hosts each added, in turn) may have put the
    hosts of ``group`` in; None when they are not all its hosts, or past ``most`` orders."""
    from itertools import permutations, product
    from math import factorial, prod

    if not blocks or [name for block in blocks for name in block] != [host.name for host in group.get_hosts()] \
            or prod(factorial(len(block)) for block in blocks) > most:
        return None
    return [[name for block in choice for name in block] for choice in product(*map(permutations, blocks))]


def batch_everywhere(play_plan: PlayPlan, data: Any, name: str) -> list[list[str]] | None:
    """The ``serial`` batch of the host ``name`` under each order the play's hosts may run in
    (:func:`possible_play_orders`), or None where those orders are not known."""
    from engine.flow.batches import play_batches

    orders = possible_play_orders(play_plan, data)
    if orders is None:
        return None
    found = [next((batch for batch in play_batches(play_plan.play, order) if name in batch), None) for order in orders]
    return None if any(batch is None for batch in found) else found  # type: ignore[return-value]

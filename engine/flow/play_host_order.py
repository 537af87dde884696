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

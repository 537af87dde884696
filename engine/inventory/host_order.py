"""Which groups ansible lists the hosts of in an order each run makes anew.

ansible-core 2.19's ``Group.get_hosts`` takes the hosts of the group, then of its child groups in
their order, then of the groups further down, level by level (``_walk_relationship`` with
``preserve_ordering``). Past the first level it walks a Python ``set`` of the groups of the level
above: a ``Group`` has no ``__hash__`` of its own, so it hashes by its address in memory, and the
set's order changes from one process to the next (one inventory, run under other hash seeds,
lists ``groups['cassandra']`` with one datacenter's racks first, then the other's). The groups of
a level come in blocks, one per group of the level above (its children not seen at an earlier
level), in that set's order; the levels themselves stay in order.

The host list is the same whatever the blocks' order when, at every level, the hosts each block
adds (those no earlier level gave, each once) are all beginnings of one list: a single block, or
blocks that give the same hosts. Otherwise the order is the run's (:func:`run_ordered_groups`).
The engine's own walk (``engine.inventory.data``) takes the blocks in insertion order: one of the
orders ansible may give, the one a run of the engine uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.inventory.data import Group, Host, InventoryData


def order_fixed(group: Group) -> bool:
    """Whether every order of the sets ansible walks gives ``group``'s hosts in one order."""
    seen_groups: set[int] = {id(group), *(id(child) for child in group.child_groups)}
    seen_hosts: set[int] = {id(host) for member in (group, *group.child_groups) for host in member.hosts}
    level: list[Group] = list(group.child_groups)
    while level:
        blocks = [[child for child in above.child_groups if id(child) not in seen_groups] for above in level]
        following = list({id(child): child for block in blocks for child in block}.values())
        seen_groups.update(id(child) for child in following)
        added = [hosts for block in blocks if (hosts := _new_hosts(block, seen_hosts))]
        longest = max(added, key=len, default=[])
        if any(hosts != longest[: len(hosts)] for hosts in added):
            return False
        seen_hosts.update(id(host) for host in longest)
        level = following
    return True


def _new_hosts(block: list[Group], seen: set[int]) -> list[Host]:
    """The hosts ``block``'s groups give in turn that ``seen`` does not hold, each once."""
    found: dict[int, Host] = {}
    for member in block:
        for host in member.hosts:
            if id(host) not in seen:
                found.setdefault(id(host), host)
    return list(found.values())


def run_ordered_groups(data: InventoryData) -> dict[str, str]:
    """The groups of ``data`` (two hosts or more) whose host list only the run orders, each with
    why: ``groups[NAME]``, and the hosts of a play on one, come in that order. Worked out once
    per state of the inventory's membership (the ``groups`` variable ansible caches alike)."""
    groups = data.get_groups_dict()
    kept = getattr(data, "_run_ordered", None)
    if kept is not None and kept[0] is groups:
        return kept[1]  # type: ignore[no-any-return]
    found = {name: unordered_reason(name) for name, group in data.groups.items()
             if len(groups.get(name, ())) > 1 and not order_fixed(group)}
    data._run_ordered = (groups, found)  # type: ignore[attr-defined]
    return found


def unordered_reason(name: str) -> str:
    return (f"not known before the run: the hosts of group {name!r}, whose child groups' own child groups "
            "ansible walks in the order of a Python set of groups, which each run makes anew")


ORDERS = 24
"""The most orders of a group's hosts :func:`possible_orders` lists (those of every order of the
sets ansible walks); past it, the orders are left to the run."""


def possible_orders(group: Group, most: int = ORDERS) -> list[list[Host]] | None:
    """Every order ansible may list ``group``'s hosts in, each once (one where :func:`order_fixed`):
    at each level past the first, the blocks of the level (one per group of the set above, its
    children not seen before) in every order, the levels in turn; None past ``most`` orders."""
    from itertools import permutations, product

    seen: set[int] = {id(group), *(id(child) for child in group.child_groups)}
    head: list[Group] = [group, *group.child_groups]
    levels: list[list[list[Group]]] = []
    level: list[Group] = list(group.child_groups)
    count = 1
    while level:
        blocks = [[child for child in above.child_groups if id(child) not in seen] for above in level]
        following = list({id(child): child for block in blocks for child in block}.values())
        seen.update(id(child) for child in following)
        blocks = [block for block in blocks if block]
        for size in range(2, len(blocks) + 1):
            count *= size
        if count > most:
            return None
        levels.append(blocks)
        level = following
    found: dict[tuple[int, ...], list[Host]] = {}
    for choice in product(*(permutations(blocks) for blocks in levels)):
        walked = [*head, *(child for blocks in choice for block in blocks for child in block)]
        hosts = list({id(host): host for member in walked for host in member.hosts}.values())
        found.setdefault(tuple(id(host) for host in hosts), hosts)
    return list(found.values())

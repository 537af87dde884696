"""Which groups ansible-core 2.19 lists the hosts of in an order each run makes anew
(engine.inventory.host_order): past a group's first level of children, ``Group.get_hosts`` walks
a Python set of groups (hashed by address), so where two groups of a level give other hosts the
order of ``groups[...]`` changes from one process to the next. The ansible-marked test checks the
rule against ansible's own walk with every order of those sets."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.inventory.data import InventoryData
from engine.inventory.host_order import order_fixed, run_ordered_groups


def _inventory(edges: list[tuple[str, str]], hosts: list[tuple[str, str]], make: Any = InventoryData) -> Any:
    """The inventory of ``edges`` (parent, child) and ``hosts`` (group, host), built in that order
    by ``make`` (ours, or ansible's InventoryData, which has the same three calls)."""
    data = make()
    for parent, child in edges:
        data.add_group(parent)
        data.add_group(child)
    for parent, child in edges:
        data.add_child(parent, child)
    for group, host in hosts:
        data.add_group(group)
        data.add_host(host, group)
    return data


RACKS = ([("db", "dc1"), ("db", "dc2"), ("dc1", "rack_a"), ("dc1", "rack_b"), ("dc2", "rack_c")],
         [("rack_a", "a1"), ("rack_a", "a2"), ("rack_b", "b1"), ("rack_c", "c1")])


def test_grandchildren_of_two_children_are_in_the_runs_order() -> None:
    data = _inventory(*RACKS)
    assert not order_fixed(data.groups["db"])
    assert order_fixed(data.groups["dc1"])  # its racks are its own children: a list, in order
    assert set(run_ordered_groups(data)) == {"db"}


def test_grandchildren_of_one_child_keep_their_order() -> None:
    data = _inventory([("flat", "outer"), ("flat", "plain"), ("outer", "inner")],
                      [("inner", "f1"), ("inner", "f2"), ("plain", "p1")])
    assert order_fixed(data.groups["flat"])
    assert run_ordered_groups(data) == {}


def test_blocks_giving_the_same_hosts_keep_their_order() -> None:
    # both datacenters hold the same rack: whichever comes first, its hosts come in one order;
    # a block giving only the beginning of another's hosts changes nothing either
    data = _inventory([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "rack"), ("dc2", "more")],
                      [("rack", "r1"), ("rack", "r2"), ("more", "m1")])
    assert order_fixed(data.groups["db"])  # dc2 gives r1 r2 m1, dc1 gives r1 r2: always r1 r2 m1
    data = _inventory([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "rack")],
                      [("rack", "r1"), ("rack", "r2")])
    assert order_fixed(data.groups["db"])
    data = _inventory([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "more"), ("dc2", "rack")],
                      [("rack", "r1"), ("rack", "r2"), ("more", "m1")])
    assert not order_fixed(data.groups["db"])  # dc2 gives m1 r1 r2, dc1 r1 r2


def test_hosts_seen_at_an_earlier_level_do_not_count() -> None:
    data = _inventory([("db", "dc1"), ("db", "dc2"), ("dc1", "rack_a"), ("dc2", "rack_c")],
                      [("dc1", "a1"), ("dc2", "c1"), ("rack_a", "a1"), ("rack_c", "c1")])
    assert order_fixed(data.groups["db"])


@pytest.mark.ansible
def test_the_rule_matches_ansibles_walk_in_every_set_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible's own ``Group.get_hosts`` with each level's set iterated in every order: the hosts
    come in one order exactly where :func:`order_fixed` says they do."""
    pytest.importorskip("ansible")
    import builtins

    from ansible.inventory import group as ansible_group
    from ansible.inventory.data import InventoryData as AnsibleData

    cases = [RACKS,
             ([("flat", "outer"), ("flat", "plain"), ("outer", "inner")], [("inner", "f1"), ("inner", "f2")]),
             ([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "rack")], [("rack", "r1"), ("rack", "r2")]),
             ([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "rack"), ("dc2", "more")],
              [("rack", "r1"), ("rack", "r2"), ("more", "m1")]),
             ([("db", "dc1"), ("db", "dc2"), ("dc1", "rack"), ("dc2", "more"), ("dc2", "rack")],
              [("rack", "r1"), ("rack", "r2"), ("more", "m1")])]
    for edges, hosts in cases:
        theirs = _inventory(edges, hosts, AnsibleData)
        ours = _inventory(edges, hosts)
        for name, group in theirs.groups.items():
            orders = set()
            for rotation in range(6):
                class Rotated(builtins.set):  # type: ignore[type-arg]
                    def __iter__(self, shift: int = rotation):  # type: ignore[no-untyped-def]
                        items = sorted(builtins.set.__iter__(self), key=lambda g: g.name)
                        perms = list(itertools.permutations(items))
                        return iter(perms[shift % len(perms)]) if items else iter(())

                monkeypatch.setattr(ansible_group, "set", Rotated, raising=False)
                group._hosts_cache = None
                orders.add(tuple(h.name for h in group.get_hosts()))
            monkeypatch.undo()
            assert (len(orders) == 1) == order_fixed(ours.groups[name]), (name, orders)

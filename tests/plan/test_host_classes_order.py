"""engine.flow.host_classes finds a task's classes of hosts in the hosts' order: each class's first
host, and each host's class, numbered as their first hosts come; also with thousands of classes
(a host of its own each), in one pass over the hosts."""

from __future__ import annotations

from types import SimpleNamespace

from engine.flow.host_classes import _classes


def _hosts(count: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(name=f"h{n}") for n in range(count)]


def test_classes_are_numbered_by_their_first_hosts() -> None:
    hosts = _hosts(7)
    signatures = ["b", "a", "b", "c", "a", "c", "d"]
    table = {host.name: ((signature,),) for host, signature in zip(hosts, signatures, strict=True)}
    firsts, member_of = _classes({}, table, None, None, lambda host: None, hosts)  # type: ignore[arg-type]
    assert firsts == [0, 1, 3, 6]
    assert member_of == [0, 1, 0, 2, 1, 2, 3]


def test_the_walk_keys_tell_hosts_of_one_signature_apart() -> None:
    hosts = _hosts(6)
    table = {host.name: (("same",),) for host in hosts}
    walk = {"h0": 5, "h1": 9, "h2": 5, "h3": 9, "h4": 7, "h5": 5}
    firsts, member_of = _classes({}, table, lambda host: walk[host.name], "walk", lambda host: None,
                                 hosts)  # type: ignore[arg-type]
    assert firsts == [0, 1, 4]
    assert member_of == [0, 1, 0, 1, 2, 0]


def test_a_host_of_its_own_each() -> None:
    hosts = _hosts(20000)
    table = {host.name: ((host.name,),) for host in hosts}
    firsts, member_of = _classes({}, table, None, None, lambda host: None, hosts)  # type: ignore[arg-type]
    assert firsts == list(range(20000)) and member_of == list(range(20000))

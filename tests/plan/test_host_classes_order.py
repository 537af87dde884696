"""engine.flow.host_classes finds a task's classes of hosts in the hosts' order: each class's first
host, and each host's class, numbered as their first hosts come; also with thousands of classes
(a host of its own each), in one pass over the hosts."""

from __future__ import annotations

from types import SimpleNamespace

from engine.flow.host_classes import _classes, _listed


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


def test_the_hosts_listed_are_kept_while_the_list_holds_the_same_hosts() -> None:
    hosts = _hosts(5)
    signatures: dict[object, object] = {}
    rest, names, token = _listed(signatures, hosts, 1)  # type: ignore[arg-type]
    assert rest == hosts[1:] and names == ["h1", "h2", "h3", "h4"]
    assert _listed(signatures, hosts, 1)[2] is token  # type: ignore[arg-type]
    assert _listed(signatures, list(hosts), 1)[2] is not token  # type: ignore[arg-type] - another list
    hosts[2] = SimpleNamespace(name="other")  # the same list, another host in it: listed again
    rest, names, again = _listed(signatures, hosts, 1)  # type: ignore[arg-type]
    assert again is not token and names == ["h1", "other", "h3", "h4"] and rest[1] is hosts[2]


def test_the_classes_of_listed_hosts_are_those_of_their_names() -> None:
    hosts = _hosts(6)
    table = {host.name: ((signature,),) for host, signature in zip(hosts, "abacbd", strict=True)}
    signatures: dict[object, object] = {}
    rest, names, token = _listed(signatures, hosts, 1)  # type: ignore[arg-type]
    plain = _classes({}, table, None, None, lambda host: None, rest)  # type: ignore[arg-type]
    assert _classes(signatures, table, None, None, lambda host: None, rest, (names, token)) == plain  # type: ignore[arg-type]
    # kept under the token: a second asking finds the classes without the hosts' names
    assert _classes(signatures, table, None, None, lambda host: None, [], (names, token)) == plain  # type: ignore[arg-type]
    # another kind of classes (what else tells the hosts apart) is found on its own
    walk = {"h1": 1, "h2": 2, "h3": 1, "h4": 3, "h5": 1}
    by_walk = _classes(signatures, table, lambda host: walk[host.name], "walk", lambda host: None, rest,
                       (names, token))  # type: ignore[arg-type]
    assert by_walk == ([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]) != plain

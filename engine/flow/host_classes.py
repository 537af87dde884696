"""The hosts of a task taken class by class: once a task's first reading (engine.flow.shared_outcomes'
``_SharedOutcomes``) has said which names it reads, and the play's table of signatures for those
names holds every host, the hosts with equal signatures are one class. A class's first host is
planned as before (a reading, or an outcome shared from an earlier class by the values its own
levels give); every other host of the class is given that host's outcome at once, which is what
the host-by-host walk gives it (its signature finds the same outcome), without asking each host
again for each task. Hosts are kept in their order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.flow.outcomes import HostOutcome
    from engine.inventory.data import Host


_TRIES = 8
"""How many times the classes of the walk before are told apart again by what their first hosts'
walks read, before the hosts are taken one by one."""


def by_class(sharing: Any, chosen: list[Host], start: int,
             conditions: list[tuple[Any, str]]) -> dict[str, HostOutcome] | None:
    """The outcomes of the hosts of ``chosen`` from ``start`` on (in order), one planning per class of
    equal signatures; None when the hosts cannot be taken by class: the reading reads something each
    host answers on its own (what earlier tasks set on it, its name)."""
    found = sharing.class_table()
    hosts, names, listed = _listed(sharing.signatures, chosen, start)
    for _ in range(_TRIES):
        if found is None:
            return None
        read = sharing.names
        firsts, member_of = _classes(sharing.signatures, *found, sharing.entry, hosts, (names, listed))
        outcomes = [sharing.outcome(hosts[at], conditions) for at in firsts]
        if not sharing.shared:  # a class's first host read what the signature cannot hold (its own name)
            return None
        if sharing.names != read:  # a class's first host read more names: classes by all of them
            found = sharing.class_table()
            continue
        if found[2] in (None, "plays"):
            break
        # classes of the walk before: a class's first host's walk may have read more than told them
        # apart (the setters' classes grow); then again, told apart by all of it (outcomes are kept)
        again = sharing.class_table()
        if again is not None and again[2] == found[2]:
            break
        found = again
    else:
        return None
    return dict(zip(names, map(outcomes.__getitem__, member_of), strict=True))


def _listed(signatures: dict[Any, Any], chosen: list[Host], start: int) -> tuple[list[Host], list[str], object]:
    """The hosts of ``chosen`` from ``start`` on, their names, and a token standing for that list of
    hosts (:func:`_classes`): kept while ``chosen`` is the same list object holding the same hosts
    (consecutive tasks ask the play's hosts, or the same hosts still running, as one list), so that
    the names of thousands of hosts are not listed again, nor hashed as one key, at each task."""
    key = ("listed hosts", id(chosen), start)
    kept = signatures.get(key)
    if kept is not None and kept[0] is chosen and kept[1] == chosen:  # (a copy: the hosts still held)
        return kept[2]  # type: ignore[no-any-return]
    hosts = chosen[start:]
    found = signatures[key] = (chosen, list(chosen), (hosts, [host.name for host in hosts], object()))
    return found[2]


def _classes(signatures: dict[Any, Any], table: dict[str, tuple[Any, ...]], plays: Callable[[Host], Any] | None,
             kind: Any, entry: Callable[[Host], tuple[Any, ...]], hosts: list[Host],
             listed: tuple[list[str], object] | None = None) -> tuple[list[int], list[int]]:
    """The place of the first host of each class of equal signatures in ``table`` (in host
    order), and each host's class; kept with the play's signatures for the tasks reading the same
    names (``entry`` puts a host not in the table yet there, as the host-by-host walk would).
    ``plays``: what else tells hosts apart, ``kind`` what that is: which plays so far a host is in
    (engine.variables.earlier_key.earlier_classes) or its class of the walk of the tasks before
    (engine.variables.walk_classes.host_classes, whose keys may be asked for many hosts at once).
    ``listed``: the hosts' names and a token standing for them (:func:`_listed`), under which the
    classes found for those names are kept too (the token is held by the key: its ``id`` is not
    taken by another while the classes are kept)."""
    names = [host.name for host in hosts] if listed is None else listed[0]
    _, kept, by_token = signatures.setdefault(("host classes", id(table)), (table, {}, {}))
    if listed is not None and (found := by_token.get((kind, listed[1]))) is not None:
        return found  # type: ignore[no-any-return]
    asked = (kind, *names)
    found = kept.get(asked)
    if found is not None:
        if listed is not None:
            by_token[(kind, listed[1])] = found
        return found  # type: ignore[no-any-return]
    entries = list(map(table.get, names))
    if None in entries:  # (an entry puts the host's twins in the table too: asked again as it fills)
        entries = [found or table.get(host.name) or entry(host) for found, host in zip(entries, hosts, strict=True)]
    keys: list[Any] = _signature_numbers(signatures, table, entries)
    if plays is not None:
        many = getattr(plays, "many", None)
        keys = list(zip(keys, many(hosts, names) if many is not None else map(plays, hosts), strict=True))
    # each class's first host (the place of each key's first host: the last written of the keys reversed)
    firsts = sorted(dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True)).values())
    index = {keys[at]: number for number, at in enumerate(firsts)}  # the classes in their first hosts' order
    member_of = list(map(index.__getitem__, keys))
    kept[asked] = found = (firsts, member_of)
    if listed is not None:
        by_token[(kind, listed[1])] = found
    return found


def _signature_numbers(signatures: dict[Any, Any], table: dict[str, tuple[Any, ...]],
                       entries: list[tuple[Any, ...]]) -> list[int]:
    """The number of each entry's signature among the table's (equal signatures, one number): a
    signature is a deep tuple, hashed once per entry object (hosts alike in the inventory share
    one) rather than once per host at each task telling classes apart. The entries are kept with
    their numbers, so that no other object takes one's ``id``."""
    kept = signatures.setdefault(("signature numbers", id(table)), (table, {}, {}, []))
    by_entry: dict[int, int] = kept[1]
    found = list(map(by_entry.get, map(id, entries)))
    if None in found:
        numbers: dict[Any, int] = kept[2]
        for at, number in enumerate(found):
            if number is None:
                entry = entries[at]
                number = by_entry.get(id(entry))
                if number is None:
                    number = by_entry[id(entry)] = numbers.setdefault(entry[0], len(numbers))
                    kept[3].append(entry)
                found[at] = number
    return found  # type: ignore[return-value]

"""The keys of a walk's classes of hosts (engine.variables.walk_classes, engine.variables.walk_keys),
asked of a play's hosts together: which plays so far a host is in is a number per host and play,
equal exactly when the hosts are in the same plays, whatever hosts are asked with it and in what
order; and a fleet whose plays take different hosts, with twins in the inventory, hosts of their
own and setters in blocks with a rescue (whether they ran told by what no setter reads), is planned
as each host's walk on its own gives."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from plan_cases import planned_rows, walked_alone_fleet

from engine.variables import walk_classes
from engine.variables.walk_keys import _Numbers, _numbers_at


def _plays(memberships: list[set[str]]) -> list[SimpleNamespace]:
    return [SimpleNamespace(hosts=[SimpleNamespace(name=name) for name in sorted(members)])
            for members in memberships]


def test_hosts_in_the_same_plays_so_far_have_one_number() -> None:
    shuffle = random.Random(7)
    names = [f"h{n}" for n in range(40)]
    every = _plays([{name for name in names if shuffle.random() < 0.6} for _ in range(9)])
    tables: list[dict[str, int]] = [{}]
    pairs = _Numbers()
    for count in (3, 0, 9, 1, 5, 9, 2):  # asked out of order, for some hosts first, then all in another order
        some = shuffle.sample(names, 11)
        first = dict(zip(some, _numbers_at(every, tables, pairs, count, some), strict=True))
        order = shuffle.sample(names, len(names))
        numbers = dict(zip(order, _numbers_at(every, tables, pairs, count, order), strict=True))
        assert all(numbers[name] == first[name] for name in some)
        plays_in = {name: tuple(any(host.name == name for host in play.hosts) for play in every[:count])
                    for name in names}
        for a in names:
            for b in names:
                assert (numbers[a] == numbers[b]) == (plays_in[a] == plays_in[b])
        if count:  # (numbers at one count are not those of another)
            assert not set(numbers.values()) & set(_numbers_at(every, tables, pairs, count - 1, names))



def test_hosts_asked_one_by_one_are_numbered_as_asked_together() -> None:
    """A host asked alone (one name: a loop down the counts and back up) is given the numbers, and
    numbers the pairs on the way in the same order, as when its list is asked."""
    shuffle = random.Random(11)
    names = [f"h{n}" for n in range(30)]
    every = _plays([{name for name in names if shuffle.random() < 0.5} for _ in range(8)])
    asks = [(shuffle.randrange(9), shuffle.sample(names, shuffle.choice((1, 1, 1, 4)))) for _ in range(60)]
    alone: tuple[list[dict[str, int]], _Numbers] = ([{}], _Numbers())
    listed: tuple[list[dict[str, int]], _Numbers] = ([{}], _Numbers())
    for count, some in asks:
        by_one = [number for name in some for number in _numbers_at(every, *alone, count, [name])] \
            if len(some) == 1 else _numbers_at(every, *alone, count, some)
        assert by_one == _numbers_at_listed(every, *listed, count, some)
    assert alone[1] == listed[1] and alone[0] == listed[0]


def _numbers_at_listed(every: list[SimpleNamespace], tables: list[dict[str, int]], pairs: _Numbers, count: int,
                       names: list[str]) -> list[int]:
    """:func:`_numbers_at` as a list of one name is asked through the list path (the name twice)."""
    return _numbers_at(every, tables, pairs, count, [*names, *names])[: len(names)] if len(names) == 1 \
        else _numbers_at(every, tables, pairs, count, names)


PLAYBOOK = """
- name: rescued
  hosts: web
  gather_facts: false
  tasks:
    - block:
        - {name: may fail, ansible.builtin.command: "true", when: "zone | int > 1"}
        - {name: set in the block, ansible.builtin.set_fact: {blocked: "{{ tier | default('x') }}"}}
      rescue:
        - {name: set in the rescue, ansible.builtin.set_fact: {rescued: true}}
- name: some
  hosts: "web:&east"
  gather_facts: false
  tasks:
    - {name: mark, ansible.builtin.set_fact: {marked: "{{ tier | default('plain') }}"}}
- name: readers
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: own, ansible.builtin.set_fact: {own: "{{ rack }}"}, when: "rack | int != 1"}
      rescue:
        - {name: own rescue, ansible.builtin.debug: {msg: r}}
""" + "".join(f"""    - name: reader {n}
      ansible.builtin.debug: {{msg: "{n}"}}
      when: (blocked is defined and marked | default('none') != 'gold') or own | default(0) | int > {n % 2}
""" for n in range(4))

fleet = walked_alone_fleet(
    "[web]\n" + "".join(f"w{n:02d} rack={n % 3} zone={n % 4}" + (" tier=gold" if n % 5 == 1 else "") + "\n"
                        for n in range(15))
    + "[east]\n" + "".join(f"w{n:02d}\n" for n in range(0, 15, 2))
    + "[db]\n" + "".join(f"d{n:02d} rack={n % 2}\n" for n in range(6)), PLAYBOOK)


def test_a_fleet_keyed_together_is_planned_as_host_by_host(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    together: dict[str, list[int]] = {"_host_keys": [], "_decided_many": []}
    for name, asked in together.items():  # (the hosts' keys and answers at the rescued steps, together)
        original = getattr(walk_classes, name)
        monkeypatch.setattr(walk_classes, name, lambda *args, original=original, asked=asked: asked.append(len(args[3]))
                            or original(*args))
    rows = planned_rows(root)
    assert rows == alone
    assert {outcome for task, _, outcome, _ in rows if task.startswith("reader")} >= {"runs", "skipped"}
    assert max(together["_host_keys"]) > 1 and max(together["_decided_many"]) > 1

"""What the plan says of each host at the steps of a shared walk (engine.variables.walk_classes:
whether a ``meta: end_host`` ended the play for it, whether a task of an earlier play's rescued
block ran there), and its key of the walk, are found once per host for each run of tasks reading
what the same setters set, not again at every such task; and the plan stays what walking each host
on its own gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import hosts_asked, planned_rows, walked_alone_fleet

from engine.variables import walk_classes

READERS = 6
PLAYBOOK = """
- name: first
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: probe, ansible.builtin.set_fact: {probed: "{{ rack }}"}, when: rack | int > 0}
      rescue:
        - {name: rescued, ansible.builtin.debug: {msg: r}}
- name: readers
  hosts: all
  gather_facts: false
  tasks:
    - {name: stop racks, ansible.builtin.meta: end_host, when: rack | int == 2}
    - {name: state, ansible.builtin.set_fact: {state: "{{ tier | default('low') }}"}}
""" + "".join(f"""    - name: reader {n}
      ansible.builtin.debug: {{msg: "{n}"}}
      when: state == 'gold' and probed is defined and flag_{n} | default(true)
""" for n in range(READERS))


fleet = walked_alone_fleet("[web]\n" + "".join(f"h{n:02d} rack={n % 3}" + (" tier=gold" if n % 4 == 1 else "") + "\n"
                              for n in range(12)), PLAYBOOK)


def test_answers_at_the_same_steps_are_asked_once_per_host(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    decided: list[str] = []
    many = walk_classes._decided_many

    def decided_many(*args):  # type: ignore[no-untyped-def]
        decided.extend(args[3])  # (the answers of the hosts asked, one or many at once)
        return many(*args)

    monkeypatch.setattr(walk_classes, "_decided_many", decided_many)
    keyed = hosts_asked(monkeypatch, walk_classes, "_host_key", 2)
    keys = walk_classes._host_keys  # (the keys of many hosts at once)
    monkeypatch.setattr(walk_classes, "_host_keys", lambda *args: keyed.extend(args[3]) or keys(*args))
    assert planned_rows(root) == alone
    readers = [row for row in alone if row[0].startswith("reader")]
    assert {outcome for _, _, outcome, _ in readers} >= {"runs", "skipped"}
    # every host the end_host leaves keyed, its key and answers found at most once per host and run
    # of steps, not again at each of the readers
    assert 8 <= len(keyed) <= 2 * 12
    assert 0 < len(decided) <= 2 * 12


def test_answers_are_asked_again_when_the_steps_differ(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept by the steps asked about: a task whose walk has other steps is not given them."""
    root, alone = fleet
    original = walk_classes._TaskSteps.keep_answers
    kept: list[int] = []

    def keep(self, follower, play_plan):  # type: ignore[no-untyped-def]
        original(self, follower, play_plan)
        if self.answers is not None:
            kept.append(id(self.answers))

    monkeypatch.setattr(walk_classes._TaskSteps, "keep_answers", keep)
    assert planned_rows(root) == alone
    assert kept and len(set(kept)) < len(kept)

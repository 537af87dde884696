"""A setter's effects (``set_fact``, ``register``) are followed once per class of hosts that give it
the same answers (engine.variables.setter_classes), and gathered facts are keyed by where the run
gathers them (host_outcome): the plan of a fleet is what following every host on its own gives.
Each part of the class key is needed: leaving one out gives another plan here."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import classes_followed, fleet_planned_alone, planned_rows, without_key_part

from engine.flow import host_outcome
from engine.variables import setter_classes

PLAYBOOK = """
- name: gathers on the web hosts only
  hosts: web
  tasks:
    - {name: noted, ansible.builtin.debug: {msg: x}}
- name: chains of setters
  hosts: all
  gather_facts: false
  tasks:
    - {name: from the inventory, ansible.builtin.set_fact: {doubled: "{{ rack | int * 2 }}"}, when: weight | int > 2}
    - {name: from an earlier setter, ansible.builtin.set_fact: {next_one: "{{ doubled | default(0) | int + 1 }}"}}
    - {name: from the name, ansible.builtin.set_fact: {last: "{{ inventory_hostname[-1] }}"}}
    - {name: from the groups, ansible.builtin.set_fact: {picked: "{{ 'picked' in group_names }}"}}
    - {name: from a template of a host value, ansible.builtin.debug: {msg: "{{ zone_label }}"}, register: said}
    - {name: from the facts, ansible.builtin.set_fact: {family: "{{ ansible_facts.os_family | default('none') }}"}}
    - {name: on the chain, ansible.builtin.debug: {msg: a}, when: next_one | int > 5}
    - {name: on the name, ansible.builtin.debug: {msg: b}, when: last == '3'}
    - {name: on the groups, ansible.builtin.debug: {msg: c}, when: picked | bool}
    - {name: on the register, ansible.builtin.debug: {msg: d}, when: said.msg == 'a-x'}
    - {name: on the facts, ansible.builtin.debug: {msg: e}, when: family == 'none'}
    - {name: on a fact itself, ansible.builtin.debug: {msg: f}, when: ansible_facts.os_family is not defined}
"""


def _fleet(root: Path) -> None:
    lines, n = [], 0
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for _ in range(8):
            extra = f" weight={n % 5}" if n % 3 == 0 else ""
            lines.append(f"h{n:02d} rack={n % 4} zone={'ab'[n % 2]}{extra}")
            n += 1
        lines.append("")
    lines += ["[picked]", *(f"h{n:02d}" for n in range(1, 16, 3)), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("weight: 1\nzone_label: \"{{ zone }}-x\"\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host followed on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    every_host_its_own = (host_outcome, "per_host_vars_files", lambda _play: True)
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (setter_classes, "SHARING", False),
                               every_host_its_own, planned=planned_rows)


def test_shared_setters_change_no_outcome(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    followed = classes_followed(monkeypatch)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped", "depends"}
    assert 0 < len(set(followed)) < 16 * 6 / 2  # hosts x setters, had each host been followed


@pytest.mark.parametrize("left_out", ["_inventory", "_earlier", "_name", "_groups", "_facts"])
def test_every_part_of_the_setter_key_counts(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch,  # type: ignore[type-arg]
                                             left_out: str) -> None:
    root, alone = fleet
    without_key_part(monkeypatch, left_out)
    assert planned_rows(root) != alone


def test_gathered_facts_keyed_by_where_they_are_gathered(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A task reading a fact shares its outcome only between hosts whose facts the run gathers
    alike (the web hosts' in the first play, the others' nowhere)."""
    root, alone = fleet
    monkeypatch.setattr(setter_classes, "SHARING", False)
    facts = [row for row in planned_rows(root) if row[0] == "on a fact itself"]
    assert facts == [row for row in alone if row[0] == "on a fact itself"]
    assert len({reason for _, _, _, reason in facts}) == 2

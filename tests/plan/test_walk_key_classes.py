"""A task's hosts are taken class by class of the walk of the setters before it
(engine.variables.walk_classes.host_classes) where that walk differs from host to host: hosts of
one class are given one walk, so they share the key of what the tasks before set and the task's
outcome, and each host's key is no longer looked up at each task. The plan is the one keying every
host on its own, also where a class's first host reads more than the classes were told apart by
(a setter reading ``b``, which on some hosts is a template reading ``c``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import shared_outcomes

PLAYBOOK = """
- name: setters read per class
  hosts: all
  gather_facts: false
  tasks:
    - {name: probe, ansible.builtin.command: /bin/true, register: probe, when: flag | bool or b | int > 1}
    - {name: on the probe, ansible.builtin.debug: {msg: p}, when: probe is skipped}
    - {name: pick, ansible.builtin.set_fact: {x: "{{ a if flag | bool else b }}"}}
    - {name: on x, ansible.builtin.debug: {msg: a}, when: x | int > 1}
    - {name: state, ansible.builtin.set_fact: {state: "{{ 'strict' if tier | default('') == 'gold' else 'low' }}"}}
    - {name: on both, ansible.builtin.debug: {msg: b}, when: state == 'strict' and x | int > 0}
    - {name: on x again, ansible.builtin.debug: {msg: c}, when: x | int == 3}
    - {name: on the state, ansible.builtin.debug: {msg: d}, when: state != 'strict'}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            flag = "true" if n < 3 else "false"
            b = f"b={1 + n % 3}" if n % 5 != 4 else f'b="{{{{ c }}}}" c={1 + n // 5 % 3}'  # c read on these alone
            lines.append(f"{group}{n:02d} flag={flag} {b}" + (" tier=gold" if n % 4 == 1 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("a: 2\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host's key looked up on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (shared_outcomes, "WALK_CLASSES", False),
                               planned=planned_rows)


def test_walk_classes_change_no_outcome(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    asked = hosts_asked(monkeypatch, shared_outcomes, "earlier_key", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"}
    assert 0 < len(asked) * 2 < 40 * 5  # each host's key at each task reading what setters set


def test_a_walk_reading_more_is_not_shared(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """Without asking again after the classes' first hosts are walked, hosts whose ``b`` is
    ``{{ c }}`` would be one class told apart by ``flag``, ``a`` and ``b`` alone, ``c`` left out."""
    root, alone = fleet
    original = shared_outcomes._SharedOutcomes.class_table

    def told_once(self):  # type: ignore[no-untyped-def]
        if "told" not in self.__dict__:
            self.told = original(self)
        return self.told

    monkeypatch.setattr(shared_outcomes._SharedOutcomes, "class_table", told_once)
    assert planned_rows(root) != alone

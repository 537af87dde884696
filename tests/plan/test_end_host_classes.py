"""A ``meta: end_host`` under a condition (an audit-only switch, a value an earlier ``set_fact`` gave)
at fleet scale (engine.variables.end_host_classes): every walk past it asks whether it ended the play
for the host; the conditions are evaluated once per class of hosts whose variables at the task answer
the names they read alike, not with each host's variables worked out whole. The plan is the one
evaluating them on each host."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import change_classes
from engine.variables.host_runtime import Follower

PLAYBOOK = """
- name: hardening with an audit-only switch
  hosts: all
  gather_facts: false
  tasks:
    - {name: pick, ansible.builtin.set_fact: {x: "{{ b | int }}"}}
    - {name: stop when auditing, ansible.builtin.meta: end_host, when: audit_only | bool}
    - {name: stop the small ones, ansible.builtin.meta: end_host, when: x | int == 1}
    - {name: on x, ansible.builtin.set_fact: {y: "{{ x | int + 1 }}"}}
    - {name: on y, ansible.builtin.debug: {msg: a}, when: y | int > 2}
    - {name: on y again, ansible.builtin.debug: {msg: c}, when: y | int == 3}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} b={1 + n % 3}" + (" audit_only=true" if n == 4 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("audit_only: false\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host's conditions evaluated on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (change_classes, "SHARING", False),
                               planned=planned_rows)


def test_end_host_conditions_are_evaluated_class_by_class(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    evaluated = hosts_asked(monkeypatch, Follower, "_end_host_holds", 2)
    shared = planned_rows(root)
    assert shared == alone
    outcomes = {(task, host): outcome for task, host, outcome, _ in shared}
    assert outcomes["on y", "web01"] == "runs" and outcomes["on y", "web02"] == "runs"
    assert outcomes["on y", "web04"] == "skipped"  # its own audit_only: ended by the first end_host
    assert outcomes["on y", "web00"] == "skipped"  # x is 1: ended by the second
    assert 0 < len(evaluated) < 40  # not each host for each end_host (2 x 40)

"""Hosts the inventory answers alike for the names a task reads (engine.variables.inventory_twins'
``inventory_twin``: the same groups, their own variables by other names, the same cached facts)
share their entry in the play's table: once one of them is worked out, the others are given it
without each being asked (a 2,000-host play asked every host at every task). The plan is the one
asking each host."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import inventory_twins

PLAYBOOK = """
- name: tiers
  hosts: all
  gather_facts: false
  tasks:
    - {name: web only, ansible.builtin.debug: {msg: w}, when: tier == 'web'}
    - {name: heavy, ansible.builtin.debug: {msg: h}, when: weight | default(1) | int > 2}
    - {name: in the canary, ansible.builtin.debug: {msg: c}, when: canary | default(false) | bool}
    - {name: port, ansible.builtin.debug: {msg: p}, when: port | int == 8080}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group, port in (("web", 8080), ("db", 5432)):
        lines.append(f"[{group}]")
        for n in range(20):
            own = " weight=3" if n % 7 == 3 else " rack=r1" if n % 5 == 2 else ""
            lines.append(f"{group}{n:02d}{own}")
        lines += [f"[{group}:vars]", f"tier={group}", f"port={port}", ""]
    lines += ["[canary]", "web03", "db04", "[canary:vars]", "canary=true", ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan asking each host


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch,
                               (inventory_twins, "inventory_twins", lambda *_: []), planned=planned_rows)


def test_twins_given_their_entry_change_no_outcome(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    asked = hosts_asked(monkeypatch, inventory_twins, "inventory_twin", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"}
    assert len(asked) < 40 * 2  # not every host at each of the 4 tasks

"""A play with a ``rescue`` still shares the walk of the setters before a task by class
(engine.variables.walk_classes) where the names a task reads are told: whether each setter in a
block with a rescue ran on a host by the reader (a task before it in the block failed there, or the
rescue ran) is asked of each host and kept in its class key, instead of every host walking every
setter at each task reading what they set. The plan is the one walking every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import host_runtime, walk_classes

PLAYBOOK = """
- name: a block with a rescue
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: first, ansible.builtin.set_fact: {x: "{{ b }}"}}
        - {name: may fail, ansible.builtin.fail: {msg: broken}, when: broken | bool}
        - {name: after the failure, ansible.builtin.set_fact: {y: "{{ b | int + 1 }}"}}
      rescue:
        - {name: rescued, ansible.builtin.set_fact: {y: 0}}
    - {name: on x, ansible.builtin.debug: {msg: a}, when: x | int > 1}
    - {name: on y, ansible.builtin.debug: {msg: b}, when: y | int > 2}
    - {name: on y again, ansible.builtin.debug: {msg: c}, when: y | int == 0}
    - {name: on both, ansible.builtin.debug: {msg: d}, when: y | int == x | int + 1}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} b={1 + n % 3}" + (" broken=true" if n % 5 == 2 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("broken: false\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_walks_shared_in_a_play_with_a_rescue(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    walks = hosts_asked(monkeypatch, host_runtime.Follower, "earlier_layers", 2)
    shared = planned_rows(root)
    assert shared == alone
    rescued = {host for task, host, outcome, _ in shared if task == "on y again" and outcome == "runs"}
    assert rescued and {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"}
    assert 0 < len(walks) < 40 * 5  # far fewer than each host at each reader and setter, had each walked

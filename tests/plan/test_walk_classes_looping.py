"""A task a looping include loads reads what the setters before the include set as a task outside
it does: the walk of those setters is shared between the hosts whose walks read the same
(engine.variables.walk_classes), not walked on each host (a hardening role's file looped over its
mount points read the role's facts host by host). The plan is the one walking every host alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import earlier_key, walk_classes

PLAYBOOK = """
- name: looping over mounts
  hosts: all
  gather_facts: false
  tasks:
    - {name: state, ansible.builtin.set_fact: {state: "{{ 'strict' if tier | default('') == 'gold' else 'low' }}"}}
    - {name: probe, ansible.builtin.command: /bin/true, register: probe, when: state == 'strict'}
    - name: each mount
      ansible.builtin.include_tasks: mount.yml
      loop: "{{ mounts }}"
      loop_control: {loop_var: mount}
"""

MOUNT = """
- {name: strict mount, ansible.builtin.debug: {msg: "{{ mount }}"}, when: state == 'strict' and mount != '/boot'}
- {name: probed mount, ansible.builtin.debug: {msg: "{{ mount }}"}, when: probe is not skipped}
"""


def _fleet(root: Path) -> None:
    lines = ["[web]", *(f"w{n:02d} rack={n % 3}" + (" tier=gold" if n % 4 == 1 else "") for n in range(12)), "",
             "[db]", *(f"d{n:02d} rack={n % 2}" for n in range(12)), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("mounts: [/boot, /home]\n")
    (root / "mount.yml").write_text(MOUNT)
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_looping_include_readers_share_walks(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    walked = hosts_asked(monkeypatch, earlier_key, "_walked", 3,
                         lambda args: args[4].name in ("strict mount", "probed mount"))
    shared = planned_rows(root)
    assert shared == alone
    outcomes = {(task, outcome) for task, _, outcome, _ in shared}
    assert {("strict mount", "runs"), ("strict mount", "skipped")} <= outcomes
    assert 0 < len(walked) < 24  # each of the 24 hosts walked for each of the two tasks, had none shared

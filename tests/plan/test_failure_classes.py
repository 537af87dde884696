"""Whether a task of a block with a ``rescue`` fails a host is worked out once per class of hosts
whose variables agree on what its conditions and arguments read (engine.variables.host_failures,
keyed as a setter's effects are: engine.variables.setter_classes.by_class), not once per host:
every later task whose walk asks whether a setter of that block ran asked it for each host of the
fleet. The outcomes are those of each host worked out on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, planned_rows

from engine.variables import block_runs, change_classes

PLAYBOOK = """
- name: sized hosts
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - name: check size
          ansible.builtin.assert: {that: size | int < 3}
        - name: sized
          ansible.builtin.set_fact: {sized: "{{ size }}"}
      rescue:
        - name: too big
          ansible.builtin.set_fact: {sized: big}
    - {name: on small, ansible.builtin.debug: {msg: s}, when: sized != 'big'}
    - {name: on two, ansible.builtin.debug: {msg: t}, when: sized == '2'}
"""


def _fleet(root: Path) -> None:
    groups: dict[str, list[str]] = {}
    for n in range(30):
        groups.setdefault(("small", "medium", "large")[n % 3], []).append(f"h{n:02d}")
    (root / "inventory.ini").write_text("".join(f"[{group}]\n" + "\n".join(hosts) + "\n\n"
                                                for group, hosts in groups.items()))
    (root / "group_vars").mkdir()
    for size, group in ((1, "small"), (2, "medium"), (5, "large")):
        (root / "group_vars" / f"{group}.yml").write_text(f"size: {size}\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host worked out on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (change_classes, "SHARING", False),
                               planned=planned_rows)


def test_a_blocks_failures_are_worked_out_per_class(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    asked: list[str] = []
    original = block_runs.fails

    def counted(task, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(task.name)
        return original(task, *args, **kwargs)

    monkeypatch.setattr(block_runs, "fails", counted)
    shared = planned_rows(root)
    assert shared == alone
    assert {(host, outcome) for task, host, outcome, _ in shared if task == "on small" and host in ("h00", "h02")} == \
        {("h00", "runs"), ("h02", "skipped")}
    assert 0 < asked.count("check size") <= 6  # a few per size, not one per host

"""A setter no host has walked yet when a task's hosts are taken class by class (the play that runs
it holds none of the hosts planned so far: an ``include_vars`` of a file per host's system in a play
of the fleet's nodes, the reader's first host a management host) reads nothing of them so far: the
hosts are told apart by what the walks read so far and by their plays, each class's first host walks
it, and the classes are made again from what it read (engine.variables.walk_classes._read_now), not
every host walked on its own. The plan is the one each host walked on its own gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import shared_outcomes
from engine.variables import walk_classes

PLAYBOOK = """
- name: nodes
  hosts: nodes
  gather_facts: false
  tasks:
    - name: system variables
      ansible.builtin.include_vars: "{{ item }}"
      with_first_found:
        - files: ["{{ system }}.yml", "default.yml"]
          paths: [vars]
          skip: true

- name: everyone
  hosts: all
  gather_facts: false
  tasks:
    - {name: probe, ansible.builtin.command: /bin/true, register: probe, changed_when: false, failed_when: false}
    - name: configure
      ansible.builtin.command: /bin/true
      when: probe.rc != 0 or (level | default(0) | int > 1) or extra | default(false)
      changed_when: true
"""


def _fleet(root: Path) -> None:
    lines = ["[mgmt]", "m1 system=alpha", "m2", "", "[nodes]"]
    lines += [f"n{n:02d} system={('alpha', 'beta', 'gamma')[n % 3]}" + (" level=3" if n % 4 == 0 else "")
              for n in range(60)]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "vars").mkdir()
    (root / "vars" / "alpha.yml").write_text("level: 2\n")
    (root / "vars" / "beta.yml").write_text("extra: true\n")
    (root / "vars" / "default.yml").write_text("other: 1\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_a_setter_no_host_walked_yet(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    keyed = hosts_asked(monkeypatch, shared_outcomes, "earlier_key", 2)
    shared = planned_rows(root)
    assert shared == alone
    configured = {outcome for task, _, outcome, _ in shared if task == "configure"}
    assert len(configured) > 1  # the hosts' systems and levels tell them apart
    assert len(keyed) < 50  # not each of the 62 hosts keyed by its own walk at 'configure' (62 before)

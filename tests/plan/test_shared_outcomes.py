"""Hosts that give the same answers share one evaluation (host_outcome._SharedOutcomes): what the
plan says of every task on every host is what it says when each host is evaluated on its own.
The fleet is bench/fleet.py's, small: groups and per-host values, a role with handlers, loops
over groups, ``hostvars`` of other hosts, ``group_names``, ``run_once`` and ``serial``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from fleet import generate  # noqa: E402

from engine.flow import host_outcome  # noqa: E402
from engine.flow.host_plan import plan_hosts  # noqa: E402
from engine.flow.plan import RunOptions, make_plan  # noqa: E402


def outcomes(root: Path) -> dict[tuple[str, str, str], tuple[str, str]]:
    plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")]))
    return {(play.name, f"{task.name}:{task.line}", host): (outcome.outcome, outcome.reason)
            for play in plan_hosts(plan) for task in play.tasks for host, outcome in task.hosts.items()}


EXTRA_PLAY = """
- name: conditions only some hosts share
  hosts: all
  gather_facts: false
  tasks:
    - name: groups alone
      ansible.builtin.debug:
        msg: canary
      when: "'canary' in group_names or 'lb' in group_names"
    - name: another host's value against this host's
      ansible.builtin.debug:
        msg: lighter
      when: hostvars[groups['web'][0]]['weight'] | int < weight | int
    - name: a loop over groups read through the host's groups
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: "{{ group_names }}"
      when: item is search('_')
    - name: a loop whose items name the host, through a variable
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: "{{ own_names }}"
      when: item == inventory_hostname
      vars:
        own_names: "{{ [inventory_hostname, 'elsewhere'] }}"
    - name: a loop whose items are every host's against this host's name
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: "{{ groups['canary'] }}"
      when: item != inventory_hostname
"""


def test_sharing_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(tmp_path, 150)
    (tmp_path / "site.yml").write_text((tmp_path / "site.yml").read_text() + EXTRA_PLAY)
    monkeypatch.chdir(tmp_path)
    shared = outcomes(tmp_path)
    monkeypatch.setattr(host_outcome, "per_host_vars_files", lambda _play: True)  # every host on its own
    alone = outcomes(tmp_path)
    assert len(shared) > 1000
    assert {kind for kind, _ in shared.values()} >= {"runs", "skipped"}
    assert shared == alone

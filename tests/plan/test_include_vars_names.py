"""The names an ``include_vars`` sets, told before the run (engine.variables.names_before): a file
named without a template is read for its keys, a ``name`` is the one name set; the tasks after it
are then planned class by class, not host by host, and the plan is what following each host on its
own gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import once_alone, planned_rows, readings_counted

from engine.variables import names_before

PLAYBOOK = """
- name: vars from files
  hosts: all
  gather_facts: false
  tasks:
    - {name: static file, ansible.builtin.include_vars: {file: common.yml}}
    - {name: under a name, ansible.builtin.include_vars: {file: "{{ tier }}.yml", name: tier_vars}}
    - {name: on the inventory, ansible.builtin.debug: {msg: a}, when: rack | int > 1}
    - {name: on the file, ansible.builtin.debug: {msg: b}, when: common_level == 'high'}
    - {name: on the named, ansible.builtin.debug: {msg: c}, when: tier_vars.size | int > 3}
    - {name: on the zone, ansible.builtin.debug: {msg: d}, when: zone == 'a'}
    - {name: templated file, ansible.builtin.include_vars: "{{ tier_file }}"}
    - {name: on the templated, ansible.builtin.debug: {msg: e}, when: disks | int > 2}
    - {name: on the zone again, ansible.builtin.debug: {msg: f}, when: zone == 'b'}
    - {name: probe, ansible.builtin.command: /bin/true, register: probe, changed_when: false}
    - {name: maybe more, ansible.builtin.include_vars: "{{ tier }}-more.yml", when: probe.rc == 0}
    - {name: on the more, ansible.builtin.debug: {msg: g}, when: flag | default(false) | bool}
    - {name: on the rack again, ansible.builtin.debug: {msg: h}, when: rack | int > 0}
"""


def _fleet(root: Path) -> None:
    (root / "site.yml").write_text(PLAYBOOK)
    (root / "common.yml").write_text("common_level: high\nrack: 1\n")
    (root / "web.yml").write_text("size: 5\n")
    (root / "db.yml").write_text("size: 2\n")
    (root / "vars").mkdir()
    (root / "vars" / "web-disks.yml").write_text("disks: 4\n")
    (root / "vars" / "db-disks.yml").write_text("disks: 1\nzone: c\n")
    (root / "web-more.yml").write_text("flag: true\n")
    (root / "db-more.yml").write_text("other: 1\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("tier_file: \"{{ tier }}-disks.yml\"\n")
    (root / "inventory.ini").write_text("[web]\nw[1:6] rack=2 tier=web zone=a\n[db]\nd[1:6] rack=3 tier=db zone=b\n")


_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


def test_include_vars_names_share_the_tasks_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    alone = once_alone(_ALONE, lambda: planned_rows(tmp_path), monkeypatch,
                       (names_before, "_file_names", lambda *_: None), (names_before, "NAMED", False),
                       (names_before, "FOLLOWED", False))
    readings = readings_counted(monkeypatch)
    shared = planned_rows(tmp_path)
    assert shared == alone
    reasons = {(task, host): reason for task, host, _, reason in shared}
    assert "rack = 1 (include_vars in task 'static file'" in reasons["on the inventory", "w1"]
    assert {outcome for task, _, outcome, _ in shared if task == "on the named"} == {"runs", "skipped"}
    assert {outcome for task, _, outcome, _ in shared if task == "on the templated"} == {"runs", "skipped"}
    assert {(host[0], outcome) for task, host, outcome, _ in shared if task == "on the zone again"} == \
        {("w", "skipped"), ("d", "skipped")}  # zone c from the db hosts' file
    # a file whose include only the run decides: what it may set is unknown where it may be included
    assert {outcome for task, host, outcome, _ in shared if task == "on the more" and host[0] == "w"} == {"depends"}
    assert len(readings) < 9 * 12 / 2  # 9 readings x 12 hosts, host by host

"""A task before that sets names not told before the run (an ``include_vars`` whose file a fact
names, facts the run gathers) no longer makes the tasks after it that read a set name host by host:
the names read are keyed by the walk of the tasks before on each host, the layer that may set
any name (and why) part of the key (engine.variables.earlier_key). The plan is what following
each host on its own gives, with far fewer readings."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import once_alone, planned_rows, readings_counted

from engine.variables import earlier_key

PLAYBOOK = """
- name: a file a fact names
  hosts: all
  gather_facts: true
  tasks:
    - {name: base, ansible.builtin.set_fact: {base: "{{ tier }}"}}
    - {name: audit only, ansible.builtin.meta: end_host, when: audit_only | default(false) | bool}
    - {name: os vars, ansible.builtin.include_vars: "vars/{{ ansible_facts['os_family'] }}.yml"}
    - {name: on the base, ansible.builtin.debug: {msg: a}, when: base == 'web'}
    - {name: on a name of the file, ansible.builtin.debug: {msg: b}, when: pkgs is defined}
    - {name: derived, ansible.builtin.set_fact: {derived: "{{ base }}-{{ rack }}"}}
    - {name: on the derived, ansible.builtin.debug: {msg: d}, when: derived == 'web-3'}
    - name: the leader knows
      ansible.builtin.set_fact: {leads: true}
      delegate_to: "{{ groups['db'] | first }}"
      delegate_facts: true
      run_once: true
    - {name: on the leader's, ansible.builtin.debug: {msg: e}, when: leads | default(false)}
    - {name: only where db, ansible.builtin.include_vars: {file: db.yml}, when: tier == 'db'}
    - {name: on either file, ansible.builtin.debug: {msg: f}, when: svc_name | default('none') == 'x'}
- name: later
  hosts: web
  gather_facts: false
  tasks:
    - {name: later base, ansible.builtin.debug: {msg: g}, when: base == 'web' and derived is search('-1')}
"""


def _fleet(root: Path) -> None:
    (root / "site.yml").write_text(PLAYBOOK)
    (root / "vars").mkdir()
    (root / "vars" / "RedHat.yml").write_text("pkgs: [a]\nsvc_name: x\n")
    (root / "vars" / "Debian.yml").write_text("pkgs: []\n")
    (root / "db.yml").write_text("svc_name: x\n")
    hosts = [f"w{i} rack={i % 4} tier=web" for i in range(12)] + \
        [f"d{i} rack={i % 4} tier=db{' audit_only=true' if i == 5 else ''}" for i in range(12)]
    (root / "inventory.ini").write_text("[web]\n" + "\n".join(hosts[:12]) + "\n[db]\n" + "\n".join(hosts[12:]) + "\n")


_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


def test_names_not_told_share_the_tasks_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    alone = once_alone(_ALONE, lambda: planned_rows(tmp_path), monkeypatch, (earlier_key, "OPEN", False))
    readings = readings_counted(monkeypatch)
    shared = planned_rows(tmp_path)
    assert shared == alone
    outcomes = {(task, host): (outcome, reason) for task, host, outcome, reason in shared}
    assert outcomes["on a name of the file", "w1"][0] == "depends"  # the file's names are the run's
    assert "os vars" in outcomes["on a name of the file", "w1"][1]
    assert outcomes["on the derived", "w3"][0] == "runs" and outcomes["on the derived", "w2"][0] == "skipped"
    assert outcomes["on the derived", "d5"][0] == "skipped"  # ended by audit_only
    # neither file the fact may name sets leads: d1 has none, whichever it reads
    assert outcomes["on the leader's", "d0"][0] == "runs" and outcomes["on the leader's", "d1"][0] == "skipped"
    assert outcomes["later base", "w1"][0] == "runs" and outcomes["later base", "w2"][0] == "skipped"
    assert len(readings) < 24 * 8 / 3  # 8 tasks reading a set name x 24 hosts, host by host

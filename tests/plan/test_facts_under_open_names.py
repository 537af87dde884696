"""A fact read where a task before may set any name (an ``include_vars`` whose file only the run
names, as hardening roles pick their OS's variables) is keyed by what the walk of the tasks before
gives it and by the host's facts (cached, or whether and where the run gathers them), so hosts
with equal keys share the reading: it was read on each host, the facts layer being below what the
tasks before may set. A fact named like a magic variable (``ansible_product_name``; the magic ones
named ``*_name`` are the play's, the roles' and the collection's) is such a fact too. The plan is
the one reading every host on its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_cases import readings_counted

from engine.flow import host_outcome
from engine.flow.host_plan import plan_hosts
from engine.flow.plan import RunOptions, make_plan
from engine.variables import host_runtime
from engine.variables.fact_cache import known_facts

PLAYBOOK = """
- name: cached facts
  hosts: all
  gather_facts: false
  tasks:
    - name: os variables
      ansible.builtin.include_vars: {file: "{{ item }}", name: os_vars}
      with_first_found:
        - files: ["{{ ansible_facts.distribution | default('x') }}.yml",
                  "{{ ansible_facts.os_family | default('x') }}.yml"]
          skip: true
    - name: each os variable
      ansible.builtin.set_fact: {"{{ item.key }}": "{{ item.value }}"}
      with_dict: "{{ os_vars | default({}) }}"
    - {name: on the family, ansible.builtin.debug: {msg: a}, when: "ansible_facts.os_family | default('') == 'RedHat'"}
    - {name: on a toggle, ansible.builtin.debug: {msg: b}, when: "hardening | bool and ansible_os_family is defined"}
- name: gathers
  hosts: all
  tasks:
    - {name: gather if not present, ansible.builtin.setup: {}, when: not ansible_facts}
    - name: os variables gathered
      ansible.builtin.include_vars: {file: "{{ item }}", name: gathered_vars}
      with_first_found:
        - files: ["{{ ansible_facts.distribution }}.yml", "{{ ansible_facts.os_family }}.yml"]
          skip: true
    - name: each gathered variable
      ansible.builtin.set_fact: {"{{ item.key }}": "{{ item.value }}"}
      with_dict: "{{ gathered_vars }}"
    - {name: on the gathered family, ansible.builtin.debug: {msg: c}, when: "ansible_facts.os_family == 'RedHat'"}
    - {name: on the product, ansible.builtin.debug: {msg: f}, when: "ansible_product_name == 'DGX-1'"}
    - {name: on the key file, ansible.builtin.debug: {msg: g}, when: "ansible_ssh_private_key_file | default('') == ''"}
    - {name: on a toggle again, ansible.builtin.debug: {msg: d}, when: hardening | bool}
    - {name: on another toggle, ansible.builtin.debug: {msg: e}, when: not hardening}
"""


def _fleet(root: Path) -> None:
    lines = ["[web]", *(f"w{n:02d}" for n in range(12)), "", "[db]", *(f"d{n:02d}" for n in range(12)), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "web.yml").write_text("hardening: true\n")
    (root / "group_vars" / "db.yml").write_text("hardening: false\n")
    (root / "ansible.cfg").write_text("[defaults]\nfact_caching = jsonfile\nfact_caching_connection = facts\n"
                                      "fact_caching_timeout = 0\n")
    (root / "facts").mkdir()
    for n in range(0, 12, 2):  # half the hosts of each group with cached facts, of two families
        for host in (f"w{n:02d}", f"d{n:02d}"):
            family = "Debian" if n % 4 else "RedHat"
            facts = {"ansible_os_family": family, "ansible_distribution": "Ubuntu" if n % 4 else "Rocky"}
            (root / "facts" / f"s1_{host}").write_text(json.dumps({"__payload__": json.dumps(facts)}))
    (root / "RedHat.yml").write_text("packages: [audit]\n")
    (root / "Ubuntu.yml").write_text("packages: [auditd]\n")
    (root / "site.yml").write_text(PLAYBOOK)


def outcomes(root: Path) -> dict[tuple[str, str, str], tuple[str, str]]:
    plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")]))
    plan.facts = known_facts(None)  # ansible.cfg's jsonfile cache, as the plan command reads it
    return {(play.name, task.name, host): (outcome.outcome, outcome.reason)
            for play in plan_hosts(plan) for task in play.tasks for host, outcome in task.hosts.items()}


def planned_both_ways(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict, list[str], list[str]]:  # type: ignore[type-arg]
    """The fleet's outcomes shared between hosts, then with every host read on its own, and the
    tasks of each reading made for each."""
    monkeypatch.chdir(root)
    readings = readings_counted(monkeypatch)
    shared = outcomes(root)
    read_shared = [task for task, _ in readings]
    monkeypatch.setattr(host_outcome, "per_host_vars_files", lambda _play: True)  # every host on its own
    monkeypatch.setattr(host_runtime, "uniform_walk", lambda *_args: False)
    readings.clear()
    return shared, outcomes(root), read_shared, [task for task, _ in readings]


def test_facts_under_open_names_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    shared, alone, read_shared, read_alone = planned_both_ways(tmp_path, monkeypatch)
    assert shared == alone
    kinds = {(task, kind) for (_, task, _), (kind, _) in shared.items()}
    assert {("on the family", "runs"), ("on the family", "skipped"), ("on a toggle", "runs"),
            ("on a toggle", "skipped"), ("on the gathered family", "depends"),
            ("on a toggle again", "depends")} <= kinds
    # a fact read under names a task before may set (one named *_name, not a magic variable), and a
    # connection setting named ansible_*, no fact: keyed as any name is
    for task in ("on the gathered family", "on the product", "on the key file"):
        assert 0 < read_shared.count(task) * 3 < read_alone.count(task)
    assert {kind for (_, task, _), (kind, _) in shared.items() if task == "on the product"} == {"depends"}

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
from plan_cases import readings_counted  # noqa: E402

from engine.flow import host_outcome  # noqa: E402
from engine.flow.host_plan import plan_hosts  # noqa: E402
from engine.flow.plan import RunOptions, make_plan  # noqa: E402


def outcomes(root: Path, playbook: str = "site.yml") -> dict[tuple[str, str, str], tuple[str, str]]:
    plan = make_plan(RunOptions(playbook=str(root / playbook), inventory=[str(root / "inventory.ini")]))
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


CHAINS = """
- name: what earlier tasks set
  hosts: all
  gather_facts: false
  tasks:
    - {name: base fact, ansible.builtin.set_fact: {base: "{{ tier }}-{{ datacenter }}"}}
    - {name: constant fact, ansible.builtin.set_fact: {const: 5}}
    - {name: register plain, ansible.builtin.debug: {msg: hello}, register: r_plain}
    - {name: register under a condition, ansible.builtin.debug: {msg: "{{ base }}"}, register: r_cond,
       when: "'canary' in group_names"}
    - {name: read it, ansible.builtin.debug: {msg: x}, when: r_cond is skipped}
    - {name: read the fact, ansible.builtin.debug: {msg: y}, when: base is search('web')}
    - {name: a module's result, ansible.builtin.command: echo hi, register: r_cmd, when: tier == 'web'}
    - {name: read the result, ansible.builtin.debug: {msg: z}, when: r_cmd is changed}
    - {name: read the output, ansible.builtin.debug: {msg: o}, when: "r_cmd.stdout | default('') == 'hi'"}
    - {name: weight fact, ansible.builtin.set_fact: {w2: "{{ (weight | default(1)) | int * 2 }}"}}
    - {name: read the weight, ansible.builtin.debug: {msg: w}, when: w2 | int > 2}
    - {name: read two, ansible.builtin.debug: {msg: b}, when: const == 5 and r_plain is succeeded}
    - {name: end some, ansible.builtin.meta: end_host, when: "'canary' in group_names and weight | int > 2"}
    - {name: after the end, ansible.builtin.debug: {msg: a}, when: const == 5}
    - {name: once, ansible.builtin.set_fact: {picked: "{{ inventory_hostname }}"}, run_once: true}
    - {name: read once, ansible.builtin.debug: {msg: p}, when: picked == inventory_hostname}
    - {name: delegated, ansible.builtin.set_fact: {given: "{{ datacenter }}"}, delegate_to: "{{ groups['lb'][0] }}",
       delegate_facts: true, run_once: true}
    - {name: read given, ansible.builtin.debug: {msg: g}, when: given is defined}
    - name: a block
      block:
        - {name: may fail, ansible.builtin.fail: {msg: no}, when: tier == 'db'}
        - {name: after the failure, ansible.builtin.set_fact: {fine: true}}
      rescue:
        - {name: rescued, ansible.builtin.set_fact: {fine: false}}
    - {name: read fine, ansible.builtin.debug: {msg: f}, when: fine | bool}
- name: carried to the next play
  hosts: web
  gather_facts: false
  tasks:
    - {name: carried, ansible.builtin.debug: {msg: c}, when: base is defined and r_cond is not skipped}
    - {name: carried weight, ansible.builtin.debug: {msg: d}, when: w2 | int == 4}
"""


def test_earlier_tasks_shared_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task reading what earlier tasks set is planned once per set of hosts those tasks gave the
    same definitions (engine.variables.earlier_key), a condition on the host's name once for all hosts
    (engine.flow.rebound): the same outcomes and reasons as each host followed on its own."""
    from engine.variables import host_runtime

    generate(tmp_path, 80)
    (tmp_path / "site.yml").write_text(CHAINS)
    monkeypatch.chdir(tmp_path)
    readings = readings_counted(monkeypatch)
    shared = outcomes(tmp_path)
    read_shared = len(readings)
    monkeypatch.setattr(host_outcome, "per_host_vars_files", lambda _play: True)  # every host on its own
    monkeypatch.setattr(host_runtime, "uniform_walk", lambda *_args: False)  # earlier tasks followed per host
    readings.clear()
    alone = outcomes(tmp_path)
    assert {kind for kind, _ in shared.values()} >= {"runs", "skipped", "depends"}
    assert shared == alone
    assert read_shared * 3 < len(readings)


SOME_PLAYS = """
- name: a fact set alike on the hosts of one group
  hosts: canary
  gather_facts: false
  tasks:
    - {name: flag them, ansible.builtin.set_fact: {flagged: true}}
- name: read on every host
  hosts: all
  gather_facts: false
  tasks:
    - {name: read the flag, ansible.builtin.debug: {msg: f}, when: flagged is defined}
"""


def test_hosts_by_class_change_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task's hosts taken class by class (engine.flow.host_classes: equal signatures, and equal
    plays when the tasks before set the names read alike) get what the host-by-host walk gives
    each of them, reasons included, in the same order."""
    from engine.flow import host_classes

    generate(tmp_path, 40)
    (tmp_path / "site.yml").write_text(EXTRA_PLAY + CHAINS + CHAINS.replace("hosts: all", "hosts: canary:lb"))
    (tmp_path / "some.yml").write_text(SOME_PLAYS)  # no end_host before: one walk for the hosts in the same plays
    monkeypatch.chdir(tmp_path)
    taken = []
    original = host_classes.by_class

    def counted(*args: object) -> object:
        found = original(*args)  # type: ignore[arg-type]
        taken.append(found is not None and len({id(outcome) for outcome in found.values()}) < len(found))
        return found

    monkeypatch.setattr(host_outcome, "by_class", counted)
    by_class = outcomes(tmp_path) | outcomes(tmp_path, "some.yml")
    monkeypatch.setattr(host_outcome, "by_class", lambda *_args: None)  # each host in turn
    walked = outcomes(tmp_path) | outcomes(tmp_path, "some.yml")
    assert sum(taken) >= 5
    assert list(by_class.items()) == list(walked.items())

"""A ``run_once`` setter on the way (a list of ready servers worked out once, delegated to the
controller) still lets hosts share the walk of the setters before a task by class
(engine.variables.walk_classes): its effects are those of the host of the batch that runs it, given
to every host of the batch, so which host that is goes in each host's class key, instead of every
host walking every setter at each later task. The plan is the one walking every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import shared_outcomes
from engine.variables import walk_classes

PLAYBOOK = """
- name: cluster nodes
  hosts: all
  gather_facts: false
  serial: "{{ batch | default(0) }}"
  tasks:
    - {name: kind, ansible.builtin.set_fact: {kind: "{{ 'server' if role_name == 'server' else 'agent' }}"}}
    - name: ready servers
      ansible.builtin.set_fact: {ready: "{{ groups['server'] | map('extract', hostvars, 'up') | select | list }}"}
      delegate_to: localhost
      run_once: true
    - name: first
      ansible.builtin.set_fact: {first: "{{ 'nobody' if ready | length == 0 else ready[0] }}"}
      run_once: true
    - {name: join, ansible.builtin.debug: {msg: join}, when: ready | length > 0 and kind == 'agent'}
    - {name: bootstrap, ansible.builtin.debug: {msg: boot}, when: ready | length == 0 and kind == 'server'}
    - {name: from first, ansible.builtin.debug: {msg: f}, when: first != 'nobody' and kind == 'agent'}
"""


def _fleet(root: Path, serial: int | None = None) -> None:
    lines = ["[server]"] + [f"s{n} role_name=server up={'true' if n == 1 else 'false'}" for n in range(3)]
    lines += ["", "[agent]"] + [f"a{n:02d} role_name=agent" for n in range(24)]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "group_vars").mkdir(exist_ok=True)
    (root / "group_vars" / "all.yml").write_text(f"batch: {serial}\n" if serial else "{}\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_walks_shared_past_a_run_once_setter(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    asked = hosts_asked(monkeypatch, shared_outcomes, "earlier_key", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {(task, outcome) for task, _, outcome, _ in shared if task in ("join", "bootstrap")} >= \
        {("join", "runs"), ("bootstrap", "skipped")}
    assert 0 < len(asked) < 27  # each host's key at each task reading what the setters set: a few, not every host


def test_batches_run_once_setters_on_their_own_first_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``serial``, each batch's first host runs the run_once setters for its batch: hosts of
    different batches are told apart, the same plan as every host walked on its own."""
    _fleet(tmp_path, serial=10)
    monkeypatch.chdir(tmp_path)
    shared = planned_rows(tmp_path)
    monkeypatch.setattr(walk_classes, "SHARING", False)
    assert planned_rows(tmp_path) == shared

"""A handler that ``force_handlers`` runs on the hosts a failure stopped (the flush in the play's
implicit ``always``) is planned for those hosts together, hosts alike sharing one reading of its
conditions (engine.flow.host_classes), not one reading per host: the readings do not grow with the
fleet. The plan is the one planning each host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import planned_rows

from engine.flow import host_outcome, host_plan

PLAYBOOK = """
- name: stopped fleet
  hosts: all
  gather_facts: false
  force_handlers: true
  tasks:
    - {name: configure, ansible.builtin.command: /bin/true, changed_when: true, notify: restart}
    - {name: maybe, ansible.builtin.command: /bin/true, changed_when: true, notify: reload, when: tier == 'gold'}
    - {name: stop here, ansible.builtin.fail: {msg: stopped}}
  handlers:
    - {name: restart, ansible.builtin.debug: {msg: restart}, when: not quiet | default(false)}
    - {name: reload, ansible.builtin.debug: {msg: reload}, when: tier != 'tin'}
"""


def _fleet(root: Path, hosts: int) -> None:
    lines = ["[web]"]
    lines += [f"web{n:03d} tier={'gold' if n % 3 == 0 else 'bronze'}" + (" quiet=true" if n % 5 == 0 else "")
              for n in range(hosts)]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "site.yml").write_text(PLAYBOOK)


def _readings(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, str, str, str]], list[str]]:
    read: list[str] = []
    outcome = host_outcome._HostTask._outcome

    def counted(self, conditions):  # type: ignore[no-untyped-def]
        read.append(self.task.name)
        return outcome(self, conditions)

    monkeypatch.setattr(host_outcome._HostTask, "_outcome", counted)
    return planned_rows(root), read


@pytest.mark.parametrize("hosts", [15, 60])
def test_forced_handlers_are_read_per_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hosts: int) -> None:
    _fleet(tmp_path, hosts)
    monkeypatch.chdir(tmp_path)
    shared, read = _readings(tmp_path, monkeypatch)
    forced = [row for row in shared if row[0] in ("restart", "reload")]
    assert {(task, outcome) for task, _, outcome, _ in forced} >= {("restart", "runs"), ("restart", "skipped"),
                                                                    ("reload", "runs")}
    assert 0 < read.count("restart") <= 4 and 0 < read.count("reload") <= 4  # a few classes, whatever the fleet
    # each host planned on its own (a run_once handler's way): the same plan, a reading per host
    monkeypatch.setattr(host_plan, "run_once_hosts", lambda *args: ({}, True))
    alone, read = _readings(tmp_path, monkeypatch)
    assert alone == shared
    assert read.count("restart") == hosts

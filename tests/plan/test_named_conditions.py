"""A task whose outcome reads the host's name beside other names (``hostname: name: "{{
inventory_hostname }}"`` when ``set_name | default(true)``): the hosts alike in the other names take
the first host's reading with their own name (engine.flow.shared_outcomes), also when a host after
the first is the first to read the name; a condition of it that reads none of the host's own values
takes the first host's value (engine.flow.named_readings.name_free), one whose values are templates reading
the name, or that reads a lookup, is evaluated on each host. The plan is the one with each host read
on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_cases import planned_rows

from engine.flow import host_outcome, shared_outcomes

PLAYBOOK = """
- name: named
  hosts: all
  gather_facts: false
  tasks:
    - name: set the host's name
      ansible.builtin.hostname:
        name: "{{ inventory_hostname }}"
      when: set_name | default(true)
    - name: by a flag whose value reads the name
      ansible.builtin.hostname:
        name: "{{ inventory_hostname }}"
      when: odd
    - name: by a template file that reads the name
      ansible.builtin.hostname:
        name: "{{ inventory_hostname }}"
      when:
        - inventory_hostname != skipped_host
        - lookup('template', 'flag.j2') | trim == 'yes'
"""


def _fleet(root: Path) -> None:
    web = [f"node{index:02d}" for index in range(0, 12, 3)]
    db = [f"node{index:02d}" for index in range(12) if index % 3]
    (root / "inventory.ini").write_text("\n".join(["[web]", *web, "[db]", *db, ""]))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("odd: \"{{ inventory_hostname is search('[13579]$') }}\"\n"
                                                 "skipped_host: none\n")
    (root / "group_vars" / "web.yml").write_text("set_name: false\n")
    (root / "templates").mkdir()
    (root / "templates" / "flag.j2").write_text("{{ 'yes' if inventory_hostname.endswith('2') else 'no' }}\n")
    (root / "site.yml").write_text(PLAYBOOK)


def _named(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The task of each outcome given by the first host's reading with the host's name."""
    given: list[str] = []
    original = shared_outcomes._SharedOutcomes._named_outcome

    def named_outcome(self: Any, host: Any, conditions: Any) -> Any:
        found = original(self, host, conditions)
        if found is not None:
            given.append(self.task.name)
        return found

    monkeypatch.setattr(shared_outcomes._SharedOutcomes, "_named_outcome", named_outcome)
    return given


def _evaluated(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (task, condition) of each condition evaluated on a reading rebound by name."""
    found: list[tuple[str, str]] = []
    original = host_outcome._HostTask._evaluated

    def evaluated(self: Any, condition: Any, item: Any) -> Any:
        if self._named_first is not None:
            found.append((self.task.name, str(condition)))
        return original(self, condition, item)

    monkeypatch.setattr(host_outcome._HostTask, "_evaluated", evaluated)
    return found


def test_hosts_read_by_name_take_the_first_hosts_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    named, evaluated = _named(monkeypatch), _evaluated(monkeypatch)
    shared = planned_rows(tmp_path)
    rebound = list(named)
    monkeypatch.setattr(shared_outcomes, "NAMED_CLASSES", False)
    named.clear()
    alone = planned_rows(tmp_path)
    assert sorted(shared) == sorted(alone)
    assert not named  # each host read on its own

    def running(task: str) -> list[str]:
        return sorted(host for name, host, outcome, _reason in shared if name == task and outcome == "runs")

    assert running("set the host's name") == [f"node{index:02d}" for index in range(12) if index % 3]
    assert running("by a flag whose value reads the name") == [f"node{index:02d}" for index in range(1, 12, 2)]
    assert running("by a template file that reads the name") == ["node02"]
    # the first db host reads the name beside `set_name`, the web hosts before it did not: the db
    # hosts after it are given its reading
    assert rebound.count("set the host's name") >= 6
    # they take its value of `set_name | default(true)`; `odd` (a template reading the name) is
    # evaluated on each host the first host's reading is given
    assert not [condition for task, condition in evaluated if task == "set the host's name"]
    assert evaluated.count(("by a flag whose value reads the name", "odd")) >= 8
    # a template file reads variables the condition does not name: each host is read on its own
    assert "by a template file that reads the name" not in rebound

"""Hosts whose groups differ only by groups without variables (a rack, an environment's subgroup:
a fleet puts every few hosts in a group of their own) have the same inventory levels, told by one
key (engine.variables.sources.inventory_layers): the inventory answers them alike, so a task's
hosts are told apart once per set of levels, not once per host, and every outcome is the same as
with each host told apart on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_cases import planned_rows, shared_and_alone

from engine.flow import shared_outcomes

PLAYBOOK = """
- name: tiers
  hosts: all
  gather_facts: false
  tasks:
    - name: web only
      ansible.builtin.debug:
        msg: web
      when: tier == 'web' and port | int > 80
    - name: staging ports
      ansible.builtin.debug:
        msg: staging
      when: port | int == 8081
    - name: a loop over the tier's ports
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: "{{ [port, 22] }}"
      when: item | int > 80 and tier != 'etcd'
"""


def _fleet(root: Path, hosts: int) -> None:
    groups: dict[str, list[str]] = {}
    for index in range(hosts):
        name = f"node{index:03d}.example.org"
        groups.setdefault(("web", "db", "etcd")[index % 3], []).append(name)
        groups.setdefault(f"rack_{index // 2:03d}", []).append(name)  # two hosts a rack, no variables
        groups.setdefault("staging" if index % 5 == 0 else "prod", []).append(name)
    lines = [line for group, names in groups.items() for line in (f"[{group}]", *names, "")]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("port: 80\n")
    (root / "group_vars" / "web.yml").write_text("tier: web\nport: 8080\n")
    (root / "group_vars" / "db.yml").write_text("tier: db\n")
    (root / "group_vars" / "etcd.yml").write_text("tier: etcd\n")
    (root / "group_vars" / "staging.yml").write_text("port: 8081\n")
    (root / "site.yml").write_text(PLAYBOOK)



def _entries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hosts whose inventory answers were worked out (not taken from a host answered alike)."""
    hosts: list[str] = []
    original = shared_outcomes._SharedOutcomes._entry_of

    def entry_of(self: Any, host: Any) -> Any:
        hosts.append(host.name)
        return original(self, host)

    monkeypatch.setattr(shared_outcomes._SharedOutcomes, "_entry_of", entry_of)
    return hosts


def test_hosts_in_groups_without_variables_answered_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = []
    for hosts in (30, 120):
        root = tmp_path / str(hosts)
        root.mkdir()
        _fleet(root, hosts)
        monkeypatch.chdir(root)
        entries = _entries(monkeypatch)
        sorted(planned_rows(root))
        counts.append(len(entries))
        monkeypatch.undo()
    assert 0 < counts[0] == counts[1], counts


def test_levels_key_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 60)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    assert {outcome for _task, _host, outcome, _reason in shared} == {"runs", "skipped"}
    assert shared == alone

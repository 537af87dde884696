"""A task whose conditions read the host's name beside other names (``inventory_hostname in
groups['x'] | list and tier == 'web'``; a plain test of membership of a group is keyed by that
membership instead: test_group_membership_classes): the hosts the inventory answers alike for the other names
(engine.variables.inventory_twins) share their entry (engine.flow.shared_outcomes), which leaves the
name out, instead of each building its inventory levels; the plan is the one with each host keyed on
its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_cases import planned_rows

from engine.flow import shared_outcomes
from engine.variables import inventory_twins

PLAYBOOK = """
- name: named
  hosts: all
  gather_facts: false
  tasks:
    - name: the first web host of a rack
      ansible.builtin.debug:
        msg: first
      when: inventory_hostname in groups['leads'] | list and tier == 'web'
    - name: by short name and port
      ansible.builtin.debug:
        msg: "{{ inventory_hostname_short }}"
      when: inventory_hostname_short.endswith('1') or port | int == 8081
"""


def _fleet(root: Path, hosts: int) -> None:
    groups: dict[str, list[str]] = {"leads": []}
    for index in range(hosts):
        name = f"node{index:03d}.example.org"
        groups.setdefault(("web", "db")[index % 2], []).append(name)
        groups.setdefault(f"rack_{index // 4:03d}", []).append(name)
        if index % 4 < 2:
            groups["leads"].append(name)
    lines = [line for group, names in groups.items() for line in (f"[{group}]", *names, "")]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("port: 80\n")
    (root / "group_vars" / "web.yml").write_text("tier: web\nport: 8081\n")
    (root / "group_vars" / "db.yml").write_text("tier: db\n")
    (root / "host_vars").mkdir()
    (root / "host_vars" / "node001.example.org.yml").write_text("tier: web\n")  # a db lead read as web
    (root / "site.yml").write_text(PLAYBOOK)


def _entries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    hosts: list[str] = []
    original = shared_outcomes._SharedOutcomes._entry_of

    def entry_of(self: Any, host: Any) -> Any:
        hosts.append(host.name)
        return original(self, host)

    monkeypatch.setattr(shared_outcomes._SharedOutcomes, "_entry_of", entry_of)
    return hosts


def test_hosts_read_by_name_share_their_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 40)
    monkeypatch.chdir(tmp_path)
    entries = _entries(monkeypatch)
    shared = sorted(planned_rows(tmp_path))
    twinned = len(entries)
    monkeypatch.setattr(inventory_twins, "inventory_twin", lambda *args: None)
    entries.clear()
    alone = sorted(planned_rows(tmp_path))
    assert shared == alone
    assert {outcome for _task, _host, outcome, _reason in shared} == {"runs", "skipped"}
    leads = ("node001.example.org", "node005.example.org")  # db leads, the first read as web
    assert [row[2] for row in shared if row[1] in leads and "first" in row[0]] == ["runs", "skipped"]
    assert twinned < len(entries) // 4, (twinned, len(entries))

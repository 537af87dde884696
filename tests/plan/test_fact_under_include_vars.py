"""A play that gathers facts includes the variables of a file named by a fact
(``include_vars: "{{ ansible_os_family }}.yml"``, its items known only to the run); then tasks read
that fact. The include may set the fact itself (a file it may name sets it): what the tasks before set tells
hosts apart, and the fact beneath it is keyed by where the run gathers it
(engine.flow.host_outcome, ``facts_read``), so hosts alike in both share a reading instead of each
being read on its own. The plan is the one reading every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import host_outcome
from engine.variables import earlier_key

PLAYBOOK = """
- name: os-specific variables
  hosts: all
  tasks:
    - name: os variables
      ansible.builtin.include_vars: "{{ item }}"
      with_first_found:
        - files: ["{{ ansible_os_family }}-{{ ansible_distribution_major_version }}.yml", "{{ ansible_os_family }}.yml"]
    - {name: unix, ansible.builtin.debug: {msg: u}, when: ansible_os_family != 'Windows'}
    - {name: unix server, ansible.builtin.debug: {msg: s}, when: ansible_os_family != 'Windows' and role == 'server'}
    - {name: clients, ansible.builtin.debug: {msg: c}, when: role == 'client'}
"""


def _fleet(root: Path) -> None:
    servers = "\n".join(f"s{n:02d}" for n in range(5))
    clients = "\n".join(f"c{n:02d}" for n in range(35))
    (root / "inventory.ini").write_text(f"[servers]\n{servers}\n\n[clients]\n{clients}\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "servers.yml").write_text("role: server\n")
    (root / "group_vars" / "clients.yml").write_text("role: client\n")
    (root / "vars").mkdir()
    (root / "vars" / "Debian.yml").write_text("service_name: ntp\n")
    (root / "tests").mkdir()  # a file the template may name too (any text, ``/`` included), setting the fact
    (root / "tests" / "vars.yml").write_text("ansible_os_family: Debian\nansible_distribution_major_version: '12'\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host read on its own after the include


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (earlier_key, "OPEN", False),
                               planned=planned_rows)


def test_a_fact_under_an_include_keys_hosts(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    read = hosts_asked(monkeypatch, host_outcome, "_HostTask", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert any(outcome == "depends" and "ansible_os_family" in reason for _, _, outcome, reason in shared)
    # 40 hosts in two groups, 3 tasks after the include: a few readings each, not one per host
    assert 0 < len(read) < 40

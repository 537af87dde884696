"""A level that may set any name (a vars file encrypted whole where ansible has vault secrets) sets no
value to compare, so two hosts alike in every value read are still told apart by it: a host with one
is never given the outcome of a host without (engine.variables.report.inventory_keys, the twin tokens of
engine.variables.inventory_twins). Each host's outcome in the fleet is its outcome planned alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import outcomes_by_host

VAULTED = "$ANSIBLE_VAULT;1.1;AES256\n6162636465666768\n"


def _fleet(root: Path) -> None:
    hosts = [f"w{index}" for index in range(1, 9)]
    (root / "inventory.ini").write_text("[web]\n" + "\n".join(hosts) + "\n\n[vaulted]\nw5\nw6\n\n[rack]\nw7\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("x: 1\n")
    (root / "group_vars" / "vaulted.yml").write_text(VAULTED)  # may set x for w5 and w6
    (root / "host_vars").mkdir()
    (root / "host_vars" / "w3.yml").write_text(VAULTED)  # may set x for w3
    (root / "site.yml").write_text(
        "- hosts: web\n  gather_facts: false\n  tasks:\n"
        "    - name: reads x\n      ansible.builtin.debug:\n        msg: one\n      when: x == 1\n"
        "    - name: reads the host's name and x\n      ansible.builtin.debug:\n        msg: named\n"
        "      when: inventory_hostname != 'w8' and x | int > 0\n")


def test_a_level_that_may_set_any_name_tells_hosts_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    (tmp_path / "secret.txt").write_text("not read\n")
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", str(tmp_path / "secret.txt"))
    monkeypatch.chdir(tmp_path)
    fleet = outcomes_by_host(tmp_path)
    alone: dict[tuple[str, str], str] = {}
    for index in range(1, 9):
        alone.update(outcomes_by_host(tmp_path, f"w{index}"))
    assert fleet == alone
    assert {host for (task, host), outcome in fleet.items() if task == "reads x" and outcome != "runs"} == \
        {"w3", "w5", "w6"}

"""The connection variables a delegated task's templates see: ansible's delegated connection gives
``ansible_host`` (``ConnectionBase.update_vars``) where the host defines none, the delegate's
address, which playbook-ls does not follow; it must say so, never give the host's own name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

PLAYBOOK = """\
- hosts: web
  gather_facts: false
  tasks:
    - name: seen while delegated
      set_fact:
        seen: "{{ ansible_host | default(inventory_hostname) }}"
      delegate_to: db1
    - name: seen at home
      set_fact:
        home: "{{ ansible_host }}"
    - name: show
      debug: var=seen
"""


def test_a_delegated_tasks_address_is_the_runs_and_an_undelegated_one_the_hosts_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\n[db]\ndb1 ansible_host=10.0.0.5\n")
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    assert main(["vars", "-i", "hosts.ini", "--host", "web1", "--format", "json", "--task", "site.yml:12",
                 "site.yml", "seen", "home"]) == 0
    found = json.loads(capsys.readouterr().out)[0]["variables"]
    assert found["seen"]["value"] is None  # ansible: '10.0.0.5', the delegate's address
    assert "the address of the host the task is delegated to" in found["seen"]["unknown"]
    assert found["home"]["value"] == "web1" and "unknown" not in found["home"]

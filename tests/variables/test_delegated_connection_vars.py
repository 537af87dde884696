"""The connection variables a delegated task's templates see, as ansible-core 2.19's play context
takes them from the delegate's variables (``PlayContext.set_task_and_variable_override``,
``update_vars``): the delegate's address (its ``ansible_ssh_host``, else ``ansible_host``, else
the name it is delegated to), port and user, below the host's own; ``ansible_connection`` a
task's ``connection`` keyword, a delegate's own (local for the implicit localhost), else the
command line's, which playbook-ls is not given: unknown. Recorded from ansible-playbook
(``delegated_connection/``). A ``delegate_to`` mixing text and templates gives an unknown address,
never the host's own name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

from playbook_ls.cli.main import main

PROJECT = Path(__file__).resolve().parent / "delegated_connection" / "connection_vars"

PLAYBOOK = """\
- hosts: web
  gather_facts: false
  tasks:
    - name: seen while delegated
      set_fact:
        seen: "{{ ansible_host | default(inventory_hostname) }}"
        port: "{{ ansible_port | default(22) }}"
      delegate_to: db1
    - name: seen at home
      set_fact:
        home: "{{ ansible_host }}"
    - name: seen while delegated by a name of text and templates
      set_fact:
        mixed: "{{ ansible_host }}"
      delegate_to: "db{{ 1 }}"
    - name: show
      debug: var=seen
"""


def test_recorded_values() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 138
    assert wrong == []


def test_recorded_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.ini", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared


def test_a_delegated_tasks_address_is_the_delegates_and_an_undelegated_one_the_hosts_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\n[db]\ndb1 ansible_host=10.0.0.5 ansible_port=2222\n")
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    assert main(["vars", "-i", "hosts.ini", "--host", "web1", "--format", "json", "--task", "site.yml:17",
                 "site.yml", "seen", "port", "home", "mixed"]) == 0
    found = json.loads(capsys.readouterr().out)[0]["variables"]
    assert found["seen"]["value"] == "10.0.0.5" and "unknown" not in found["seen"]
    assert found["port"]["value"] == 2222
    assert found["home"]["value"] == "web1" and "unknown" not in found["home"]
    assert found["mixed"]["value"] is None  # the delegate's name is the run's: its address too
    assert "the address of the host the task is delegated to" in found["mixed"]["unknown"]

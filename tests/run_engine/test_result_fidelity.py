"""Registered results as ansible 2.19 makes them: ``exception`` in failed results, no ``failed``
in a skip an action plugin raised, ``skipped`` in a loop's aggregate; BYPASS_HOST_LOOP actions
run once; modules resolve relative paths in the playbook's directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_playbook

RESULTS = """
- hosts: localhost
  gather_facts: false
  tasks:
    - {fail: {msg: boom}, register: failed_action, ignore_errors: true}
    - {command: "false", loop: [1], register: failed_loop, ignore_errors: true}
    - {script: /bin/true, check_mode: true, register: script_skip}
    - {command: "true", check_mode: true, register: command_skip}
    - copy:
        dest: "{{ playbook_dir }}/out.json"
        content: "{{ [failed_action, failed_loop, script_skip, command_skip] | to_json }}"
"""


def test_failed_and_skipped_results_have_ansibles_keys(tmp_path: Path) -> None:
    code, _, _ = run_playbook(tmp_path, RESULTS)
    assert code == 0
    failed_action, failed_loop, script_skip, command_skip = json.loads((tmp_path / "out.json").read_text())
    assert failed_action["exception"] == "(traceback unavailable)"
    assert "exception" not in failed_loop and failed_loop["skipped"] is False
    assert failed_loop["results"][0]["exception"] == "(traceback unavailable)"
    assert "failed" not in script_skip and script_skip["skipped"] is True
    assert command_skip["failed"] is False and command_skip["skipped"] is True


PAUSE = """
- hosts: all
  gather_facts: false
  tasks:
    - {pause: {seconds: 1}, register: paused}
    - debug: {msg: "{{ paused is defined }}"}
"""


def test_pause_runs_once_for_the_first_host(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text("h1\nh2\n[all:vars]\nansible_connection=local\n")
    code, out, data = run_playbook(tmp_path, PAUSE, inventory=[str(tmp_path / "hosts")])
    assert code == 0
    assert out.count("Pausing for 1 seconds") == 1
    assert [(t["host"], t["status"]) for t in data["tasks"]][:1] == [("h1", "ok")]
    assert '"msg": true' in out and '"msg": false' in out  # only h1 registered the result


RELATIVE = """
- hosts: localhost
  gather_facts: false
  tasks:
    - copy: {dest: out.txt, content: "x\\n"}
    - file: {path: touched, state: touch}
"""


def test_modules_resolve_relative_paths_in_the_playbook_directory(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, _ = run_playbook(tmp_path / "book", RELATIVE)
    assert code == 0
    assert (tmp_path / "book" / "out.txt").read_text() == "x\n"
    assert (tmp_path / "book" / "touched").exists()
    assert not list(elsewhere.iterdir())
    assert Path.cwd() == elsewhere  # the engine went back where it was started

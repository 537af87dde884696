"""become on the local connection as ansible-playbook 2.19 runs it: no sudo when the become user
is the current user, ansible's "Premature end of stream waiting for become success." failure
when sudo is missing (recorded with ansible-playbook -c local as root on a machine without
sudo), and a refusal before the run when sudo is there (the engine cannot run a module as
another user)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import run_playbook, write

import engine.run.become as become
from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan

PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  become: true
  tasks:
    - name: as myself
      command: echo me
      become_user: "{{ me }}"
    - name: as another user
      command: echo other
      become_user: pls-nobody-else
      ignore_errors: true
      register: other
    - name: debug executes nothing
      debug: msg=hi
      become_user: pls-nobody-else
    - name: skipped before become
      command: echo no
      become_user: pls-nobody-else
      when: false
"""


def test_become_runs_without_sudo_for_the_current_user_and_fails_as_ansible_otherwise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(become, "sudo_available", lambda: False)
    bin_dir = tmp_path / "bin"  # echo, and no sudo to find
    bin_dir.mkdir()
    (bin_dir / "echo").symlink_to(shutil.which("echo") or "/bin/echo")
    monkeypatch.setenv("PATH", str(bin_dir))
    code, out, record = run_playbook(tmp_path, PLAYBOOK, extra_vars={"me": become.current_user()})
    assert code == 0
    statuses = {t["task"]: t["status"] for t in record["tasks"]}
    assert statuses == {"as myself": "changed", "as another user": "failed", "debug executes nothing": "ok",
                        "skipped before become": "skipped"}
    assert ('"msg": "Task failed: Premature end of stream waiting for become success.\\n>>> Standard Error\\n'
            in out)
    assert "sudo" in out.split('"msg": "Task failed: Premature end of stream')[1].split("\n")[0]


def test_become_to_another_user_is_refused_when_sudo_is_there(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(become, "sudo_available", lambda: True)
    write(tmp_path, {"site.yml": PLAYBOOK})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    assert [keyword for keyword, _ in plan.unsupported] == ["become"]


def test_become_refusal_only_for_another_user_when_sudo_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(become, "sudo_available", lambda: True)
    me = become.current_user()
    assert not become.become_refusal(False, "someone")
    assert not become.become_refusal(True, me)
    assert become.become_refusal(True, "someone-else")
    assert become.become_refusal("{{ maybe }}", me)
    monkeypatch.setattr(become, "sudo_available", lambda: False)
    assert not become.become_refusal(True, "someone-else")


def test_actions_that_execute_nothing_ignore_become() -> None:
    assert not become.needs_sudo("someone-else", "debug")
    assert not become.needs_sudo(None, "command")
    assert not become.needs_sudo(become.current_user(), "command")
    assert become.needs_sudo("someone-else", "ansible.builtin.command")

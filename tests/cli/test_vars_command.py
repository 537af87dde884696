"""``playbook-ls vars``: every run of a task is its own context, the options become ansible's
option variables, and without ``-i`` the inventory ansible.cfg names is read (values recorded
from ansible-playbook 2.19 on the same files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

PLAYBOOK = """\
- hosts: web
  gather_facts: false
  vars:
    phase: play vars
  pre_tasks:
    - name: notify early
      ansible.builtin.debug:
        msg: early
      changed_when: true
      notify: show phase
  tasks:
    - name: change the phase
      ansible.builtin.set_fact:
        phase: set_fact
    - name: notify late
      ansible.builtin.debug:
        msg: late
      changed_when: true
      notify: show phase
  handlers:
    - name: show phase
      ansible.builtin.debug:
        msg: "{{ phase }}"
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1 role_of_host=frontend\n")
    (tmp_path / "ansible.cfg").write_text("[defaults]\ninventory = hosts.ini\nforks = 7\n")
    monkeypatch.chdir(tmp_path)
    for name in [n for n in __import__("os").environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    return tmp_path


def vars_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    assert main(["vars", "site.yml", "--host", "web1", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_handler_flushed_twice_has_two_contexts(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = vars_json(capsys, "--task", "site.yml:22", "phase")
    assert [(r["task"]["run"], r["variables"]["phase"]["value"]) for r in runs] == [(1, "play vars"), (2, "set_fact")]
    assert runs[1]["variables"]["phase"]["source"]["runtime"] is True


def test_options_are_ansibles_option_variables(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ["ansible_check_mode", "ansible_diff_mode", "ansible_forks", "ansible_run_tags", "ansible_skip_tags",
             "ansible_verbosity", "ansible_limit"]
    [context] = vars_json(capsys, "--check", "-t", "a,b", "--skip-tags", "c", "-l", "web1", "-vv", *names)
    values = {name: entry["value"] for name, entry in context["variables"].items()}
    # ansible de-duplicates the tags through a set: the order of two is the run's
    assert values.pop("ansible_run_tags") is None and "order" in context["variables"]["ansible_run_tags"]["unknown"]
    assert values == {"ansible_check_mode": True, "ansible_diff_mode": False, "ansible_forks": 7,
                      "ansible_skip_tags": ["c"], "ansible_verbosity": 2, "ansible_limit": "web1"}


def test_without_inventory_the_one_ansible_cfg_names(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [context] = vars_json(capsys, "role_of_host", "group_names")
    assert context["variables"]["role_of_host"]["value"] == "frontend"
    assert context["variables"]["group_names"]["value"] == ["web"]


def test_inventory_code_runs_only_when_asked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An inventory script (or plugin) is code from the repository: vars says the inventory is
    partial and how to allow it, and with --run-inventory-code shows what the script gives."""
    script = project / "inventory.py"
    script.write_text("#!/usr/bin/env python3\nimport json\n"
                      "print(json.dumps({'web': {'hosts': ['web1'], 'vars': {'from_script': 'yes'}}}))\n")
    script.chmod(0o755)
    assert main(["vars", "site.yml", "--host", "web1", "-i", "inventory.py", "from_script"]) == 2
    err = capsys.readouterr().err
    assert "no host 'web1' in the inventory" in err and "Pass --run-inventory-code to run it." in err
    runs = vars_json(capsys, "-i", "inventory.py", "--run-inventory-code", "from_script")
    assert runs[0]["variables"]["from_script"]["value"] == "yes"


RESCUE = """\
- hosts: web
  gather_facts: false
  tasks:
    - block:
        - name: break
          ansible.builtin.fail:
            msg: broken
      rescue:
        - name: report
          ansible.builtin.debug:
            msg: "{{ ansible_failed_task.name }}"
    - block:
        - name: break again
          ansible.builtin.fail:
            msg: broken again
      rescue:
        - name: report again
          ansible.builtin.debug:
            msg: "{{ ansible_failed_task.name }}"
"""


def test_a_value_known_only_at_run_time_is_shown_as_null(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ansible_failed_task`` is known by its name only: its whole is the run's, written as null
    with the reason (not as a Python object's address, which differs from run to run)."""
    (project / "site.yml").write_text(RESCUE)
    runs = vars_json(capsys, "--task", "site.yml:10", "ansible_failed_task")
    failed = runs[0]["variables"]["ansible_failed_task"]
    assert failed["value"] is None
    assert "known only at run time" in failed["unknown"] or "not known before the run" in failed["unknown"]
    second = vars_json(capsys, "--task", "site.yml:18", "ansible_failed_task")[0]
    overridden = second["variables"]["ansible_failed_task"]
    assert [each["value"] for each in overridden["overrides"]] == [None]
    assert main(["vars", "site.yml", "--host", "web1", "--task", "site.yml:18", "ansible_failed_task"]) == 0
    assert " at 0x" not in capsys.readouterr().out

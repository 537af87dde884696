"""The command line: JSON output, errors with positions and ansible's exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_json_gives_positions_and_provenance(capsys, monkeypatch) -> None:
    monkeypatch.chdir(EXAMPLE)
    rc, out, _ = run(capsys, "list-tasks", "-i", "localhost,", "playbook.yml", "--tags", "__role1", "--format", "json")
    assert rc == 0
    data = json.loads(out)
    tasks = data["playbooks"][0]["plays"][0]["tasks"]
    assert [t["name"] for t in tasks] == ["sample : task1", "sample : task2", "sample : task3"]
    task2 = tasks[1]
    assert task2["tags"] == ["__play", "__role1", "__tag2", "never"]
    assert task2["span"]["file"].endswith("roles/sample/tasks/main.yml") and task2["span"]["line"] == 7
    origin = {o["tag"]: o["from"]["kind"] for o in task2["tag_origins"]}
    assert origin == {"__play": "play", "__role1": "roles", "__tag2": "task", "never": "task"}


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["list-tasks", "missing.yml"], 1, "the playbook: missing.yml could not be found"),
        (["list-tasks", "roles"], 1, "does not appear to be a file"),
        (["list-tasks", "-i", "localhost,", "playbook.yml", "-l", "nohost"], 1, "leaves us with no hosts"),
        (["list-tasks", "playbook.yml", "-e", "{bad"], 5, "invalid extra vars"),
    ],
)
def test_usage_errors(capsys, monkeypatch, argv: list[str], code: int, message: str) -> None:
    monkeypatch.chdir(EXAMPLE)
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (code, "") and message in err


def test_parse_error_names_file_line_and_column(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks:\n    - debug: msg=x\n   bad: 1\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "list-tasks", "site.yml")
    assert rc == 4 and out == ""
    assert "site.yml:4:" in err and "Fix the YAML" in err


def test_extra_vars_resolve_import_paths(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks:\n    - import_tasks: '{{ which }}.yml'\n")
    (tmp_path / "blue.yml").write_text("- name: blue task\n  debug: msg=b\n")
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(capsys, "list-tasks", "site.yml", "-e", "which=blue")
    assert rc == 0 and "blue task\tTAGS: []" in out


def test_version_and_help_run_as_a_module() -> None:
    version = subprocess.run([sys.executable, "-m", "playbook_ls", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("playbook-ls ")
    helptext = subprocess.run([sys.executable, "-m", "playbook_ls", "list-tasks", "--help"], capture_output=True,
                              text=True)
    assert "examples:" in helptext.stdout


def _project_with_cfg_inventory(tmp_path: Path) -> Path:
    """ansible.cfg names the inventory; no -i is given, as ansible-playbook users often do."""
    (tmp_path / "ansible.cfg").write_text("[defaults]\ninventory = hosts.ini\n")
    (tmp_path / "hosts.ini").write_text("[web]\nweb1 ansible_connection=local\n")
    (tmp_path / "site.yml").write_text("- hosts: web\n  name: \"{{ ansible_inventory_sources }} {{ groups.web }}\"\n"
                                       "  gather_facts: false\n  tasks:\n    - debug: msg=hi\n")
    return tmp_path


def test_playbook_commands_without_i_read_the_configured_inventory(capsys, tmp_path, monkeypatch) -> None:
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(_project_with_cfg_inventory(tmp_path))
    rc, out, _ = run(capsys, "list-tasks", "site.yml", "--limit", "web1")
    assert rc == 0 and f"['{tmp_path / 'hosts.ini'}'] ['web1']" in out
    from engine.launch.profiles import LaunchProfile
    from engine.launch.prompting import option_vars, resolve_launch

    launch = resolve_launch(LaunchProfile("command line"), {})
    assert option_vars(launch, str(tmp_path))["ansible_inventory_sources"] == [str(tmp_path / "hosts.ini")]
    monkeypatch.setenv("ANSIBLE_INVENTORY", "other.ini,hosts.ini")
    assert option_vars(launch, str(tmp_path))["ansible_inventory_sources"] == [
        str(tmp_path / "other.ini"), str(tmp_path / "hosts.ini")]
    monkeypatch.delenv("ANSIBLE_INVENTORY")
    (tmp_path / "plain.yml").write_text("- hosts: web\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n")
    rc, out, _ = run(capsys, "run", "plain.yml", "--dry")
    assert rc == 0 and "PLAY [web]  hosts: web1" in out and "TASK [debug]" in out


@pytest.mark.parametrize("argv", [["list-tasks", "site.yml"], ["run", "site.yml", "--dry"],
                                  ["inventory", "--list"]])
def test_an_invalid_host_pattern_mismatch_stops_with_ansibles_error(capsys, tmp_path, monkeypatch,
                                                                    argv: list[str]) -> None:
    monkeypatch.chdir(_project_with_cfg_inventory(tmp_path))
    monkeypatch.setenv("ANSIBLE_HOST_PATTERN_MISMATCH", "bogus")
    rc, out, err = run(capsys, *argv)
    message = "Invalid value 'bogus' for config 'HOST_PATTERN_MISMATCH'. Valid values are: error, warning, ignore"
    prefix = "ERROR: " if argv[0] == "inventory" else "playbook-ls: error: "  # inventory prints as ansible does
    assert (rc, out, err) == (5, "", f"{prefix}{message}\n")


def test_run_stops_when_the_limit_leaves_no_host(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(_project_with_cfg_inventory(tmp_path))
    (tmp_path / "plain.yml").write_text("- hosts: web\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n")
    rc, out, err = run(capsys, "run", "plain.yml", "--dry", "--limit", "nomatch")
    assert (rc, out) == (1, "")
    assert err.endswith("[WARNING]: Could not match supplied host pattern, ignoring: nomatch\n[ERROR]: Specified "
                        "inventory, host pattern and/or --limit leaves us with no hosts to target.\n")


START_AT = """- hosts: localhost
  gather_facts: false
  tasks:
    - set_fact: {x: 1}
    - name: second
      debug: {msg: "{{ x | default('unset') }}"}
    - name: third
      debug: {msg: three}
      when: x is defined
- hosts: localhost
  gather_facts: false
  tasks:
    - name: other play
      debug: {msg: o}
"""


def test_a_dry_run_follows_start_at_task(capsys, tmp_path, monkeypatch) -> None:
    """The tasks --start-at-task passes over leave the plan, and what they would set with them
    (ansible-playbook skips 'third': x is never set); no match at all: nothing runs, ansible's error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site.yml").write_text(START_AT)
    rc, out, err = run(capsys, "run", "site.yml", "-i", "localhost,", "--dry", "--start-at-task", "second")
    assert rc == 0 and err == ""
    assert "TASK [set_fact]  site.yml:4\n    skipped  localhost: not run: before the task --start-at-task " \
           "'second' names\n  TASK [second]  site.yml:5\n    runs     localhost\n  TASK [third]" in out
    assert "    skipped  localhost: `x is defined` is false (this task)" in out
    assert "TASK [other play]  site.yml:13\n    runs     localhost" in out
    rc, out, err = run(capsys, "run", "site.yml", "-i", "localhost,", "--dry", "--start-at-task", "nomatch")
    assert rc == 0 and "runs" not in out and out.count("no task of the play (or one before it) matches") == 4
    assert err == ('playbook-ls: note: No matching task "nomatch" found. Note: --start-at-task can only follow '
                   'static includes.\n')


def test_a_dry_run_of_start_at_task_in_a_play_of_batches_skips_for_the_first_batch(capsys, tmp_path,
                                                                                   monkeypatch) -> None:
    """With serial, only the first batch starts at the task --start-at-task names (PlayIterator is made
    per batch, and only the first search matches): the tasks before it run for the later batches."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hosts").write_text("a ansible_connection=local\nb ansible_connection=local\n")
    (tmp_path / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  serial: 1\n  tasks:\n"
                                       "    - name: one\n      debug: {msg: one}\n"
                                       "    - name: two\n      debug: {msg: two}\n")
    rc, out, err = run(capsys, "run", "site.yml", "-i", "hosts", "--dry", "--start-at-task", "two")
    assert rc == 0 and err == ""
    assert "TASK [one]  site.yml:5\n    skipped  a: not run: before the task --start-at-task 'two' names (its first " \
           "batch)\n    runs     b\n  TASK [two]  site.yml:7\n    runs     a, b\n" in out


def test_run_takes_forks_as_ansible_playbook_does(capsys, tmp_path, monkeypatch) -> None:
    """``run --forks N`` (``-f``) is ansible-playbook's option: ansible_forks is N (it was refused)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                                       "    - debug: {msg: 'forks={{ ansible_forks }}'}\n")
    rc, out, err = run(capsys, "run", "site.yml", "-i", "localhost,", "--forks", "2")
    assert rc == 0 and '"msg": "forks=2"' in out + err

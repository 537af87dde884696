"""The command line: JSON output, errors with positions and ansible's exit codes."""

from __future__ import annotations

import json
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

"""Exit status of ``playbook-ls check``: 0 clean, 1 findings at or above the fail level, 2 usage errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

CLEAN = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n"
WARNING = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n      tags: all\n"  # PLS114
ERROR = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n      tag: x\n"  # PLS112
INFO = "- hosts: all\n  tasks:\n    - ansible.builtin.include_tasks: \"{{ ansible_facts.os }}.yml\"\n"  # PLS116


def test_clean_repository_exits_0(write, cli) -> None:
    write({"site.yml": CLEAN})
    assert cli("check") == (0, "All checks passed (1 playbook, 1 file).\n", "")


def test_warning_exits_1(write, cli) -> None:
    write({"site.yml": WARNING})
    rc, out, err = cli("check")
    assert (rc, err) == (1, "") and "PLS114" in out


def test_info_only_exits_0_at_the_default_fail_level(write, cli) -> None:
    write({"site.yml": INFO})
    rc, out, _ = cli("check")
    assert rc == 0
    assert "site.yml:3:38: PLS116" in out and out.endswith("Found 1 finding (1 info) in 1 file.\n")
    assert cli("check", "--fail-level", "info")[0] == 1


@pytest.mark.parametrize(("files", "level", "expected"), [
    ({"site.yml": WARNING}, "error", 0),
    ({"site.yml": WARNING}, "warning", 1),
    ({"site.yml": ERROR}, "error", 1),
    ({"site.yml": WARNING, "other.yml": ERROR}, "error", 1),
    ({"site.yml": INFO, "other.yml": WARNING}, "error", 0),
])
def test_fail_level_option(write, cli, files, level, expected) -> None:
    write(files)
    assert cli("check", "--fail-level", level)[0] == expected


def test_fail_level_from_config_and_the_command_line_wins(write, cli) -> None:
    write({"site.yml": WARNING, ".playbook-ls.yml": "fail-level: error\n"})
    assert cli("check")[0] == 0
    assert cli("check", "--fail-level", "warning")[0] == 1
    write({".playbook-ls.yml": "fail_level: info\n", "site.yml": INFO})
    assert cli("check")[0] == 1


def test_severity_override_changes_the_exit_status(write, cli) -> None:
    write({"site.yml": INFO, ".playbook-ls.yml": "severity:\n  PLS116: warning\n"})
    assert cli("check")[0] == 1
    write({"site.yml": WARNING, ".playbook-ls.yml": "severity:\n  reserved-tag-name: info\n"})
    rc, out, _ = cli("check")
    assert rc == 0 and "(1 info)" in out


@pytest.mark.parametrize(("name", "text", "position", "message"), [
    (".playbook-ls.yml", "select: [PLS101]\nignroe: [PLS114]\n", "2:1",
     "unknown setting 'ignroe'; did you mean 'ignore'?"),
    (".playbook-ls.yml", "severity:\n  PLS114: fatal\n", "2:3", "must be one of info, warning, error, not 'fatal'"),
    (".playbook-ls.yml", "a: [\n", "2:1", "did not find expected node content"),
    ("pyproject.toml", "[project]\nname = 'x'\n\n[tool.playbook-ls]\nselct = ['PLS101']\n", "5:1",
     "unknown setting 'selct'; did you mean 'select'?"),
    ("pyproject.toml", "[tool.playbook-ls]\nselect = [PLS101]\n", "2:11", "invalid TOML"),
])
def test_config_errors_exit_2_with_file_line_col(write, cli, name, text, position, message) -> None:
    write({"site.yml": WARNING, name: text})
    rc, out, err = cli("check")
    assert (rc, out) == (2, "")
    assert err.startswith("playbook-ls: config error: ") and f"{name}:{position}: " in err and message in err


def test_explicit_config_file_that_does_not_exist_exits_2(write, cli) -> None:
    write({"site.yml": CLEAN})
    rc, out, err = cli("check", "--config", "missing.toml")
    assert (rc, out) == (2, "") and "cannot read the config file" in err


@pytest.mark.parametrize("paths", [["nope.yml"], ["site.yml", "nope/"]])
def test_nonexistent_path_exits_2(write, cli, paths) -> None:
    write({"site.yml": WARNING})
    rc, out, err = cli("check", *paths)
    assert (rc, out) == (2, "") and err == f"playbook-ls: error: no such file or directory: {paths[-1]}\n"


@pytest.mark.parametrize(("option", "value"), [
    ("--select", "PLS999"), ("--select", "PLS101,PLS9"), ("--ignore", "no-such-rule"), ("--select", "XYZ")])
def test_unknown_rule_on_the_command_line_exits_2(write, cli, option, value) -> None:
    write({"site.yml": WARNING})
    rc, out, err = cli("check", option, value)
    assert (rc, out) == (2, "") and f"playbook-ls: error: {option}: no rule matches" in err


def test_rule_names_and_prefixes_are_accepted_on_the_command_line(write, cli) -> None:
    write({"site.yml": WARNING})
    assert cli("check", "--select", "reserved-tag-name")[0] == 1
    assert cli("check", "--select", "PLS11")[0] == 1
    assert cli("check", "--select", "PLS10")[0] == 0
    assert cli("check", "--ignore", "reserved-tag-name")[0] == 0
    assert cli("check", "--select", "ALL", "--ignore", "PLS114")[0] == 0


def test_bad_option_value_exits_2(write, cli) -> None:
    write({"site.yml": CLEAN})
    with pytest.raises(SystemExit) as exc:
        cli("check", "--format", "xml")
    assert exc.value.code == 2


def test_exit_status_of_the_installed_entry_point(write, tmp_path) -> None:
    """The same statuses through a real process (``python -m playbook_ls``)."""
    write({"site.yml": WARNING, "info.yml": INFO})
    command = [sys.executable, "-m", "playbook_ls", "check"]
    assert subprocess.run(command, capture_output=True).returncode == 1
    assert subprocess.run([*command, "--fail-level", "error"], capture_output=True).returncode == 0
    done = subprocess.run([*command, "missing.yml"], capture_output=True, text=True)
    assert done.returncode == 2 and "no such file or directory" in done.stderr

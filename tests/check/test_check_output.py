"""Output details: GitHub workflow-command escaping, colour, summaries, statistics, parallel runs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from engine.parsing.source import Span
from playbook_ls.check.formats import render
from playbook_ls.check.runner import CheckResult
from playbook_ls.rules.base import Finding, Related

ANSI = re.compile(r"\x1b\[[0-9;]*m")
WARNING = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n      tags: all\n"  # PLS114
ERROR = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n      tag: x\n"  # PLS112
INFO = "- hosts: all\n  tasks:\n    - ansible.builtin.include_tasks: \"{{ ansible_facts.os }}.yml\"\n"  # PLS116


def result_of(*findings: Finding, files: int = 1, playbooks: int = 1) -> CheckResult:
    result = CheckResult()
    result.findings, result.files, result.playbooks = list(findings), files, playbooks
    return result


def finding(message: str, path: str | None = "site.yml", code: str = "PLS114", severity: str = "warning",
            span: tuple[int, int, int, int] = (2, 4, 2, 9), related: tuple[Related, ...] = ()) -> Finding:
    from playbook_ls import rules

    where = Span(str(Path(path).resolve()), *span) if path is not None else None
    return Finding(message, where, related, code, severity, rules.RULES[code].NAME)


# -- GitHub workflow commands -------------------------------------------------------------------------

def unescape(text: str) -> str:
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """``::level k=v,k=v::data`` back into its parts, the way the Actions runner reads it."""
    match = re.fullmatch(r"::(\w+) ([^:]*)::(.*)", line)
    assert match, line
    properties = dict(item.split("=", 1) for item in match[2].split(","))
    return match[1], {key: unescape(value) for key, value in properties.items()}, unescape(match[3])


def test_github_escapes_data_and_properties(repo: Path) -> None:
    message = "100% sure:\r\nline two, with commas: and colons %0A"
    path = "dir:with,odd %chars/pläy.yml"
    out = render(result_of(finding(message, path)), "github")
    assert out.count("\n") == 1 and "\r" not in out
    line = out.rstrip("\n")
    assert "100%25 sure:%0D%0Aline two, with commas: and colons %250A" in line
    assert "file=dir%3Awith%2Codd %25chars/pläy.yml," in line
    level, properties, data = parse_command(line)
    assert level == "warning"
    assert properties == {"file": path, "line": "3", "col": "5", "endLine": "3", "endColumn": "10",
                          "title": "PLS114 reserved-tag-name"}
    assert data == f"PLS114 {message}"


def test_github_levels_multiline_spans_and_findings_without_a_file(repo: Path) -> None:
    out = render(result_of(
        finding("e", code="PLS112", severity="error", span=(0, 0, 4, 2)),
        finding("i", code="PLS116", severity="info"),
        finding("p", path=None, code="PLS106", severity="error"),
    ), "github")
    lines = out.splitlines()
    assert [parse_command(line)[0] for line in lines] == ["error", "notice", "error"]
    assert parse_command(lines[0])[1] == {"file": "site.yml", "line": "1", "col": "1", "endLine": "5",
                                          "title": "PLS112 unknown-keyword"}  # no endColumn across lines
    assert parse_command(lines[2])[1] == {"title": "PLS106 unknown-tag"}


def test_github_end_to_end_with_an_odd_file_name(write, cli) -> None:
    write({"we,ird:name.yml": """
        - hosts: all
          tasks:
            - name: t
              ansible.builtin.debug:
                msg: x
              when: "{{ x % 2 }}"
        """})
    rc, out, _ = cli("check", "--format", "github")
    (line,) = out.splitlines()
    assert rc == 1 and line.startswith("::warning file=we%2Cird%3Aname.yml,line=6,col=13,")
    level, properties, data = parse_command(line)
    assert properties["file"] == "we,ird:name.yml" and properties["title"] == "PLS105 when-with-jinja-delimiters"
    assert "{{ x %25 2 }}" in line and data.startswith("PLS105 when: '{{ x % 2 }}'")


def test_github_with_no_findings_prints_nothing(write, cli) -> None:
    write({"site.yml": "- hosts: all\n  tasks: []\n"})
    assert cli("check", "--format", "github") == (0, "", "")


# -- colour ---------------------------------------------------------------------------------------------

@pytest.fixture
def mixed(write) -> Path:
    return write({"a.yml": ERROR, "b.yml": WARNING, "c.yml": INFO})


def test_colour_always(mixed, cli) -> None:
    rc, out, _ = cli("check", "--color", "always")
    lines = out.splitlines()
    assert rc == 1 and len(lines) == 4
    assert lines[0].startswith("\x1b[1ma.yml\x1b[0m:5:7: \x1b[31mPLS112\x1b[0m ")
    assert lines[1].startswith("\x1b[1mb.yml\x1b[0m:5:13: \x1b[33mPLS114\x1b[0m ")
    assert lines[2].startswith("\x1b[1mc.yml\x1b[0m:3:38: \x1b[36mPLS116\x1b[0m ")
    assert ANSI.sub("", out) == cli("check", "--color", "never")[1]


@pytest.mark.parametrize("argv", [["--color", "never"], [], ["--color", "auto"]])
def test_no_colour_when_never_or_not_a_terminal(mixed, cli, argv) -> None:
    out = cli("check", *argv)[1]
    assert "\x1b" not in out and out.startswith("a.yml:5:7: PLS112 ")


def test_auto_colour_on_a_terminal_and_no_color(mixed, cli, monkeypatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert "\x1b[31mPLS112" in cli("check")[1]
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: ignored, as no-color.org says
    assert "\x1b[31mPLS112" in cli("check")[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in cli("check")[1]
    assert "\x1b" in cli("check", "--color", "always")[1]


@pytest.mark.parametrize("argv", [["--format", "json"], ["--format", "sarif"], ["--format", "github"],
                                  ["--statistics"], ["--statistics", "--format", "json"]])
def test_machine_formats_are_never_coloured(mixed, cli, argv) -> None:
    out = cli("check", "--color", "always", *argv)[1]
    assert "\x1b" not in out
    if "json" in argv or "sarif" in argv:
        json.loads(out)


# -- text summary and statistics --------------------------------------------------------------------------

@pytest.mark.parametrize(("files", "summary"), [
    ({"a.yml": "- hosts: all\n  tasks: []\n"}, "All checks passed (1 playbook, 1 file)."),
    ({"a.yml": "- hosts: all\n  tasks: []\n", "b.yml": "- hosts: all\n  tasks: []\n", "c.yml": "x: 1\n"},
     "All checks passed (2 playbooks, 3 files)."),
    ({"a.yml": WARNING}, "Found 1 finding (1 warning) in 1 file."),
    ({"a.yml": ERROR, "b.yml": ERROR, "c.yml": INFO}, "Found 3 findings (2 errors, 1 info) in 3 files."),
    ({"a.yml": INFO, "b.yml": INFO, "c.yml": WARNING}, "Found 3 findings (1 warning, 2 info) in 3 files."),
])
def test_text_summary(write, cli, files, summary) -> None:
    write(files)
    assert cli("check")[1].splitlines()[-1] == summary


def test_text_finding_without_a_location(repo: Path) -> None:
    out = render(result_of(finding("no place", path=None, code="PLS106", severity="error")), "text")
    assert out.splitlines()[0] == "PLS106 no place"


def test_statistics_sorts_by_count_then_code(write, cli) -> None:
    write({"a.yml": WARNING, "b.yml": WARNING, "c.yml": ERROR, "d.yml": INFO})
    rc, out, _ = cli("check", "--statistics")
    assert rc == 1
    assert out == "2\tPLS114\treserved-tag-name\n1\tPLS112\tunknown-keyword\n1\tPLS116\tdynamic-include\n"
    data = json.loads(cli("check", "--statistics", "--format", "json")[1])
    assert data == [{"code": "PLS114", "name": "reserved-tag-name", "count": 2},
                    {"code": "PLS112", "name": "unknown-keyword", "count": 1},
                    {"code": "PLS116", "name": "dynamic-include", "count": 1}]


def test_statistics_without_findings(write, cli) -> None:
    write({"a.yml": "- hosts: all\n  tasks: []\n"})
    assert cli("check", "--statistics") == (0, "", "")
    assert cli("check", "--statistics", "--format", "json") == (0, "[]\n", "")


def test_json_related_locations_and_spans(golden_repo: Path, cli) -> None:
    data = json.loads(cli("check", "--format", "json")[1])
    assert data["summary"] == {"files": 7, "playbooks": 2, "roles": 2, "findings": len(data["findings"]),
                               "module_names_checked": True}
    pls101 = next(f for f in data["findings"] if f["code"] == "PLS101")
    assert (pls101["path"], pls101["line"], pls101["column"], pls101["end_line"], pls101["end_column"]) == (
        "roles/app/tasks/main.yml", 7, 9, 7, 14)
    assert pls101["related"][0] == {"path": "site.yml", "line": 3, "column": 9,
                                    "message": "'web' is inherited from here"}


def test_paths_are_relative_to_the_cwd(golden_repo: Path, cli, monkeypatch) -> None:
    monkeypatch.chdir(golden_repo / "roles")
    out = cli("check", "--select", "PLS101,PLS105", "..")[1]
    assert out.splitlines()[0].startswith("app/tasks/main.yml:7:9: PLS101 ")
    assert str(golden_repo / "site.yml") + ":12:13: PLS105 " in out  # outside the cwd: absolute


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_parallel_and_serial_runs_print_the_same(golden_repo: Path, cli, fmt: str) -> None:
    serial = cli("check", "--no-cache", "-j", "1", "--format", fmt)
    assert cli("check", "--no-cache", "-j", "2", "--format", fmt) == serial

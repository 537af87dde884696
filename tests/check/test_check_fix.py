"""``check --fix`` and ``check --diff`` on a repository with comments everywhere
(fixtures/fix_repo): afterwards ``check`` reports none of the fixed findings, and the files
differ only on the lines of those findings' tasks (issue 19, item 3)."""

from __future__ import annotations

import difflib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.parsing.source import parse_text
from playbook_ls.fixes.base import walk

FIXTURE = Path(__file__).parent / "fixtures" / "fix_repo"
FIXED_CODES = {"PLS103", "PLS105", "PLS112", "PLS118"}


@pytest.fixture
def fix_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "fix_repo"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return root


def _texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.yml"))}


def _task_lines(text: str, line: int) -> range:
    """The lines of the innermost named task (or play) holding ``line``."""
    data = parse_text(text, "x").data
    spans = [node.span for _path, node in walk(data) if isinstance(node, dict) and "name" in node
             and node.span.line <= line < node.span.end_line + (node.span.end_col > 0)]
    span = min(spans, key=lambda s: s.end_line - s.line)
    return range(span.line, span.end_line + (span.end_col > 0))


def test_fix_then_check_reports_none_of_the_fixed_findings(fix_repo: Path, cli: Callable[..., tuple]) -> None:
    before = _texts(fix_repo)
    rc, out, _err = cli("check", "--no-cache", "--format", "json")
    found = json.loads(out)["findings"]
    assert rc == 1 and {f["code"] for f in found} >= FIXED_CODES | {"PLS102", "PLS114"}
    fixable = [f for f in found if f["code"] in FIXED_CODES]

    rc, out, err = cli("check", "--no-cache", "--fix")
    assert rc == 1  # PLS102 and PLS114 are left: they have no fix check --fix may apply
    # one more than reported: with 'whenn' renamed, its task's condition is checked, and fixed too
    assert f"fixed {len(fixable) + 1} findings ({len(found)} before, 2 remaining)" in err
    rc, out, _err = cli("check", "--no-cache", "--format", "json")
    assert sorted(f["code"] for f in json.loads(out)["findings"]) == ["PLS102", "PLS114"]

    after = _texts(fix_repo)
    allowed: dict[str, set[int]] = {}
    for finding in fixable:
        name = finding["path"]
        allowed.setdefault(name, set()).update(_task_lines(before[name], finding["line"] - 1))
    assert set(allowed) == {name for name in before if before[name] != after[name]}
    for name, old in before.items():
        old_lines, new_lines = old.split("\n"), after[name].split("\n")
        for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, old_lines, new_lines).get_opcodes():
            if tag == "equal":
                continue
            touched = set(range(i1, i2)) if i2 > i1 else {i1 - 1}  # an insertion: after line i1 - 1
            assert touched <= allowed[name], (name, tag, old_lines[i1:i2], new_lines[_j1:_j2])
        # every comment is still there, word for word (but the noqa code that silenced nothing)
        comments = [line.split("#", 1)[1] for line in old_lines if "#" in line and "noqa" not in line]
        assert all(comment in after[name] for comment in comments)


def test_diff_prints_the_fixes_and_writes_nothing(fix_repo: Path, cli: Callable[..., tuple]) -> None:
    before = _texts(fix_repo)
    rc, out, err = cli("check", "--no-cache", "--diff")
    assert rc == 1 and _texts(fix_repo) == before
    assert "--- a/site.yml\n+++ b/site.yml\n" in out
    assert "-      whenn: \"{{ deploy_enabled | bool }}\"   # a typo\n+      when: \"{{ deploy_enabled | bool }}\"" \
        in out  # the condition itself is fixed by the next pass, once the keyword is right
    assert "+          tags: [setup]\n" in out and "would fix" in err
    assert cli("check", "--no-cache", "--fix", "--diff")[0] == 1 and _texts(fix_repo) == before


def test_fix_exit_status_is_that_of_the_findings_left(repo: Path, write: Callable, cli: Callable[..., tuple]) -> None:
    write({"site.yml": "- hosts: all  # c\n  tasks:\n    - debug: {msg: x}\n      when: '{{ a | bool }}'  # c\n"})
    rc, out, err = cli("check", "--no-cache", "--fix", "--format", "json")
    assert (rc, json.loads(out)["findings"]) == (0, []) and "fixed 1 finding (1 before, 0 remaining)" in err
    expected = "- hosts: all  # c\n  tasks:\n    - debug: {msg: x}\n      when: a | bool  # c\n"
    assert (repo / "site.yml").read_text() == expected
    assert cli("check", "--no-cache", "--diff") == (0, "", "playbook-ls: nothing to fix\n")
    assert cli("check", "--fix", "--generate-ignore")[0] == 2


def test_fix_never_edits_a_role_outside_the_checked_paths(tmp_path: Path, repo: Path, write: Callable,
                                                         cli: Callable[..., tuple]) -> None:
    shared = tmp_path / "shared" / "common" / "tasks"
    shared.mkdir(parents=True)
    role_text = "- debug: {msg: x}\n  when: '{{ a }}'\n"
    (shared / "main.yml").write_text(role_text)
    write({"ansible.cfg": f"[defaults]\nroles_path = {tmp_path / 'shared'}\n",
           "site.yml": "- hosts: all\n  roles: [common]\n"})
    rc, _out, err = cli("check", "--no-cache", "--fix")
    assert rc == 1 and "fixed 0 findings (1 before, 1 remaining)" in err
    assert (shared / "main.yml").read_text() == role_text

"""The editor reports ``# noqa`` comments that silence nothing (PLS118) in open files, as ``check`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings
from playbook_ls.features.workspace import WorkspaceIndex

# the first task's noqa silences its PLS114 (tags: all); the second task has nothing to silence
PLAYBOOK = """\
- hosts: all
  tasks:
    - name: tagged  # noqa: PLS114
      ansible.builtin.debug:
        msg: x
      tags: all
    - name: plain  # noqa: PLS114, PLS9999
      ansible.builtin.debug:
        msg: y
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ansible of the machine
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "site.yml").write_text(PLAYBOOK, encoding="utf-8")
    (root / "other.yml").write_text(PLAYBOOK, encoding="utf-8")
    return root


def codes_and_lines(findings: list) -> list[tuple[str, int, str]]:
    return sorted((f.code, f.span.line, f.message) for f in findings)


def opened(root: Path, *names: str, check: bool = True) -> WorkspaceIndex:
    index = WorkspaceIndex(str(root))
    for name in names:
        index.set_document(str(root / name), (root / name).read_text(encoding="utf-8"))
    index.index(check=check)
    return index


def test_an_open_file_gets_the_unused_noqa_findings_check_reports(repo: Path) -> None:
    index = opened(repo, "site.yml")
    site = str(repo / "site.yml")
    editor = codes_and_lines(index.findings_for(site))
    checked = codes_and_lines([f for f in run_check([str(repo)], load_settings(None, str(repo)), use_cache=False)
                               .findings if f.span.file == site])
    assert [(code, line) for code, line, _ in editor] == [("PLS118", 6), ("PLS118", 6)]
    assert editor == checked


def test_files_not_open_are_not_read_for_it(repo: Path) -> None:
    index = opened(repo, "site.yml")
    assert index.findings_for(str(repo / "other.yml")) == []


def test_an_edit_that_removes_the_finding_makes_its_noqa_unused(repo: Path) -> None:
    index = opened(repo, "site.yml")
    site = str(repo / "site.yml")
    index.set_document(site, PLAYBOOK.replace("tags: all", "tags: web"))
    index.refresh([site])
    assert sorted(f.span.line for f in index.findings_for(site) if f.code == "PLS118") == [2, 6, 6]
    index.set_document(site, None)  # closed: back to the disk, and no longer looked at
    index.refresh([site])
    assert index.findings_for(site) == []


def test_nothing_is_reported_before_the_rules_have_run(repo: Path) -> None:
    """Indexing first only resolves: every comment would look unused until the rules have run."""
    index = opened(repo, "site.yml", check=False)
    assert index.findings_for(str(repo / "site.yml")) == []
    index.check()
    assert [f.code for f in index.findings_for(str(repo / "site.yml"))] == ["PLS118", "PLS118"]

"""Resolving playbooks in two processes gives exactly what one process gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings

ROOT = Path(__file__).resolve().parents[2]


def _findings(path: Path, jobs: int) -> list[tuple[object, ...]]:
    result = run_check([str(path)], load_settings(None, str(path)), use_cache=False, jobs=jobs)
    assert result.internal_errors == []
    return [(f.code, f.severity, f.span, f.message, f.related) for f in result.findings]


def test_two_jobs_match_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "tag-inheritance", repo)
    for name in ("web", "db", "site"):
        (repo / f"{name}.yml").write_text(
            f"- hosts: all\n  tags: [{name}]\n  roles:\n    - role: sample\n      tags: __x\n    - other\n")
    (repo / "all.yml").write_text("- import_playbook: web.yml\n- import_playbook: db.yml\n  tags: nightly\n")
    monkeypatch.chdir(repo)
    one = _findings(repo, 1)
    assert len(one) > 6
    assert _findings(repo, 2) == one


def test_plain_and_tagged_imports_give_one_finding_per_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "inner.yml").write_text("- hosts: all\n  tags: t\n  tasks:\n    - debug: msg=x\n      tags: never\n")
    (repo / "site.yml").write_text("- import_playbook: inner.yml\n- import_playbook: inner.yml\n  tags: extra\n")
    monkeypatch.chdir(repo)
    messages = sorted(message for _c, _s, _span, message, _r in _findings(repo, 1))
    # the plain import gives the same finding as inner.yml on its own (reported once); the
    # tagged import is another context with another finding
    assert len(messages) == 2
    assert "'extra'" in messages[0] and "'extra'" not in messages[1]

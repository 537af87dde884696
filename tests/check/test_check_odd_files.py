"""Symlink loops and file names that are not UTF-8: check and the editor index never trip on them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from playbook_ls.cli.main import main
from playbook_ls.features.workspace import WorkspaceIndex

BAD_NAME = os.fsdecode(b"bad\xff.yml")  # a name with a byte that is not UTF-8


@pytest.fixture
def odd_repo(tmp_path: Path) -> Path:
    os.symlink("b.yml", tmp_path / "a.yml")
    os.symlink("a.yml", tmp_path / "b.yml")  # a -> b -> a
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  tasks:\n    - debug: msg=x\n")
    (tmp_path / BAD_NAME).write_text("- hosts: all\n  tasks:\n    - debug: msg=1\n      tag: x\n")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_check_reports_in_every_format(odd_repo: Path, fmt: str, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(odd_repo)
    assert main(["check", ".", "--no-cache", "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "PLS112" in out
    if fmt == "sarif":
        assert "bad%FF.yml" in out and json.loads(out)
    elif fmt == "json":
        assert json.loads(out)["findings"]


def test_the_editor_index_is_ready(odd_repo: Path) -> None:
    index = WorkspaceIndex(str(odd_repo))
    index.index()
    assert str(odd_repo / "site.yml") in index.books
    assert any(path.endswith(BAD_NAME) for path in index.findings)

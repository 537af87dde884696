"""Fixtures of the ``playbook-ls check`` tests: an isolated environment, a repo and the CLI.

Every test gets its own result cache (``PLAYBOOK_LS_CACHE_DIR``), a ``HOME`` of its own (so
no ``~/.ansible`` roles or ``~/.ansible.cfg`` of the machine leak in), no ``ANSIBLE_*``
variables and no ``NO_COLOR``. ``repo`` is an empty directory made the cwd, so printed paths
are relative to it.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playbook_ls.check.inputs import is_ansible_variable
from playbook_ls.cli.main import main

CliResult = tuple[int, str, str]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache directory of this test."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(cache))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the cache key's place
    for name in [*filter(is_ansible_variable, os.environ), "NO_COLOR"]:
        monkeypatch.delenv(name, raising=False)
    return cache


@pytest.fixture
def cache_dir(isolated: Path) -> Path:
    return isolated


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    yield root


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (relative name -> text, dedented) under ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def write(repo: Path) -> Callable[[dict[str, str]], Path]:
    def _write(files: dict[str, str]) -> Path:
        write_files(repo, files)
        return repo

    return _write


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``playbook-ls ARGS`` in-process: (exit status, stdout, stderr)."""

    def _cli(*argv: str) -> CliResult:
        rc = main(list(argv))
        captured = capsys.readouterr()
        return rc, captured.out, captured.err

    return _cli



FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def golden_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of fixtures/golden_repo, made the cwd: findings of many rules, a profile, a role."""
    root = tmp_path / "golden_repo"
    shutil.copytree(FIXTURES / "golden_repo", root)
    monkeypatch.chdir(root)
    return root

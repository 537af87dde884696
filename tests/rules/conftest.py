"""The ``repo`` fixture of the rule tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty repository directory, made the cwd so findings print relative paths."""
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    for name in ("ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_RUN_TAGS", "ANSIBLE_SKIP_TAGS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    yield root

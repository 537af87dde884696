"""Fixtures the feature tests share."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from playbook_ls.features.workspace import WorkspaceIndex

PLAN_SCENARIOS = Path(__file__).resolve().parents[1] / "plan" / "scenarios"
"""The scenarios recorded from ansible-playbook runs (tests/plan/plan_cases.py)."""


@pytest.fixture
def plan_scenario_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], WorkspaceIndex]:
    """Indexes a copy of the named plan scenario, made the current directory as ansible's run was."""

    def indexed(name: str) -> WorkspaceIndex:
        root = tmp_path / "ws"
        shutil.copytree(PLAN_SCENARIOS / name, root)
        monkeypatch.chdir(root)
        built = WorkspaceIndex(str(root))
        built.index()
        return built

    return indexed

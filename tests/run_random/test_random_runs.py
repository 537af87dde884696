"""The random playbooks of random_playbook.py: reproducible, and (when ansible-playbook is installed)
run alike by the engine and by ansible-playbook on a few fixed seeds. ``fuzz.py`` runs many."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "run"))

from ansible_tools import find_tool  # noqa: E402
from random_playbook import write  # noqa: E402


def _files(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.iterdir())}


def test_a_seed_always_gives_the_same_playbook(tmp_path: Path) -> None:
    write(7, tmp_path / "a")
    write(7, tmp_path / "b")
    write(8, tmp_path / "c")
    assert _files(tmp_path / "a") == _files(tmp_path / "b") != _files(tmp_path / "c")


@pytest.mark.parametrize("seed", [307])  # any_errors_fatal with blocks: it once differed
def test_the_engine_runs_a_random_playbook_as_ansible_does(tmp_path: Path, seed: int) -> None:
    if find_tool("ansible-playbook") is None:
        pytest.skip("ansible-playbook is not installed")
    from fuzz import compare_seed

    assert compare_seed(seed, tmp_path, text=False) == []

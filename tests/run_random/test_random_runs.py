"""The random playbooks of random_playbook.py and random_roles.py: reproducible, and (when
ansible-playbook is installed) run alike by the engine and by ansible-playbook on a few fixed
seeds. ``fuzz.py`` runs many (``--roles``: the role playbooks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "run"))

from ansible_tools import find_tool  # noqa: E402
from random_playbook import write  # noqa: E402
from random_roles import write as write_roles  # noqa: E402


def _files(directory: Path) -> dict[str, str]:
    return {p.relative_to(directory).as_posix(): p.read_text() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("generate", [write, write_roles])
def test_a_seed_always_gives_the_same_playbook(tmp_path: Path, generate: object) -> None:
    generate(7, tmp_path / "a")  # type: ignore[operator]
    generate(7, tmp_path / "b")  # type: ignore[operator]
    generate(8, tmp_path / "c")  # type: ignore[operator]
    assert _files(tmp_path / "a") == _files(tmp_path / "b") != _files(tmp_path / "c")


def test_role_playbooks_use_what_they_are_for(tmp_path: Path) -> None:
    """Over a few seeds the role playbooks hold every feature they are meant to compare."""
    text = ""
    for seed in range(1, 13):
        write_roles(seed, tmp_path / str(seed))
        text += "".join(_files(tmp_path / str(seed)).values())
    for feature in ("dependencies:", "allow_duplicates", "include_role", "import_role", "public:", "apply:",
                    "tasks_from", "handlers_from", "vars_from", "listen:", "flush_handlers", "vars_files",
                    "force_handlers", "--tags", " : "):
        assert feature in text, feature


@pytest.mark.ansible
@pytest.mark.parametrize("seed", [307])  # any_errors_fatal with blocks: it once differed
def test_the_engine_runs_a_random_playbook_as_ansible_does(tmp_path: Path, seed: int) -> None:
    if find_tool("ansible-playbook") is None:
        pytest.skip("ansible-playbook is not installed")
    from fuzz import compare_seed

    assert compare_seed(seed, tmp_path, text=False) == []


@pytest.mark.ansible
@pytest.mark.parametrize("seed", [3, 10])  # an included role's dependency; a handler loaded twice
def test_the_engine_runs_a_random_role_playbook_as_ansible_does(tmp_path: Path, seed: int) -> None:
    if find_tool("ansible-playbook") is None:
        pytest.skip("ansible-playbook is not installed")
    from fuzz import compare_seed

    assert compare_seed(seed, tmp_path, text=True, kind="roles") == []

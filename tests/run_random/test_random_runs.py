"""The random playbooks of random_playbook.py and random_roles.py: reproducible, and run alike by
the engine and by ansible-playbook on a few fixed seeds, kept as recorded run scenarios.
``fuzz.py`` runs many against ansible-playbook (``--roles``: the role playbooks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "run"))

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


# Seeds that once differed, kept as recorded run scenarios (tests/run/scenarios): the engine is
# compared with their recordings offline, and ansible re-checks them with the other recordings.
RECORDED_SEEDS = [
    (write, 307, "random_seed_307"),  # any_errors_fatal with blocks
    (write_roles, 3, "random_roles_seed_3"),  # an included role's dependency
    (write_roles, 10, "random_roles_seed_10"),  # a handler loaded twice
]
RECORDINGS = ("expected.json", "stdout.")


@pytest.mark.parametrize(("generate", "seed", "name"), RECORDED_SEEDS, ids=[name for *_, name in RECORDED_SEEDS])
def test_a_recorded_seed_is_what_the_generator_writes(tmp_path: Path, generate: object, seed: int, name: str) -> None:
    scenario = Path(__file__).resolve().parent.parent / "run" / "scenarios" / name
    generate(seed, tmp_path / name)  # type: ignore[operator]
    kept = {path: text for path, text in _files(scenario).items() if not path.startswith(RECORDINGS)}
    assert kept == _files(tmp_path / name), f"re-copy and re-record: python tests/run/engine_cases.py {name}"

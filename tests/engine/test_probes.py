"""engine.parsing.probes: every question a reading asks about a path below a root is recorded,
whichever function asks it, and nothing is recorded once the recording ends."""

from __future__ import annotations

import builtins
import glob
import os
from pathlib import Path

import pytest

from engine.loading import paths
from engine.parsing import probes
from engine.parsing.probes import listdir_for, recording


def _tree(root: Path) -> None:
    for relative in ("roles/app/tasks/main.yml", "group_vars/all.yml", "library/thing.py", "README.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("x: 1\n")


def test_tests_opens_and_listings_are_recorded_relative_to_the_root(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path / "roles")
    with recording(str(tmp_path)) as asked:
        os.path.isfile(str(tmp_path / "roles/app/tasks/main.yaml"))  # looked for in vain
        os.path.isdir("app/defaults")  # relative to the working directory
        Path(tmp_path / "README.md").exists()
        with open(tmp_path / "group_vars/all.yml") as handle:
            handle.read()
        glob.glob(str(tmp_path / "library" / "*.py"))
        os.path.exists("/")  # outside the root: not kept
    assert {"roles/app/tasks/main.yaml", "roles/app/defaults", "README.md", "group_vars/all.yml"} <= asked.tested
    assert "library" in asked.listed
    assert all(not path.startswith("..") for path in asked.tested)
    assert asked.asked_about("roles/app/tasks/main.yaml")
    assert asked.asked_about("library/added.py")  # its directory was listed
    assert not asked.asked_about("roles/app/tasks/extra.yml")
    assert not asked.asked_about("docs/notes.yml")


def test_memoised_answers_are_asked_again_and_the_functions_restored(tmp_path: Path) -> None:
    _tree(tmp_path)
    target = str(tmp_path / "roles/app/meta/main.yml")
    paths.isfile(target)  # memoised before the recording
    originals = os.stat, os.lstat, os.listdir, os.scandir, builtins.open
    with recording(str(tmp_path)) as asked:
        paths.isfile(target)
    assert asked.asked_about("roles/app/meta/main.yml")
    assert (os.stat, os.lstat, os.listdir, os.scandir, builtins.open) == originals
    assert not probes._ACTIVE


def test_a_listing_for_some_names_asks_only_about_those(tmp_path: Path) -> None:
    _tree(tmp_path)
    with recording(str(tmp_path)) as asked:
        names = listdir_for(str(tmp_path), lambda name: name.endswith("requirements.yml"))
    assert "README.md" in names
    assert asked.asked_about("requirements.yml")
    assert asked.asked_about("collections-requirements.yml")
    assert not asked.asked_about(".markdownlint.yaml")


def test_nested_recordings_each_see_the_questions(tmp_path: Path) -> None:
    _tree(tmp_path)
    with recording(str(tmp_path)) as outer:
        with recording(str(tmp_path / "roles")) as inner:
            os.path.exists(str(tmp_path / "roles/app/vars/main.yml"))
        os.path.exists(str(tmp_path / "group_vars/web.yml"))
    assert outer.asked_about("roles/app/vars/main.yml") and outer.asked_about("group_vars/web.yml")
    assert inner.asked_about("app/vars/main.yml") and not inner.asked_about("../group_vars/web.yml")

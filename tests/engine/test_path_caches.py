"""The memoised file-system questions keep a bounded number of paths: an editor's server clears
them only when files change on disk, while its buffers name new paths at every edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.loading import paths


def test_each_memoised_question_keeps_at_most_paths_kept_paths(tmp_path: Path) -> None:
    paths.clear_cache()
    try:
        for number in range(paths.PATHS_KEPT + 100):
            typed = str(tmp_path / f"tasks{number}.yml")  # a name typed key by key in an import
            paths.exists(typed)
            paths.isfile(typed)
            paths.isdir(typed)
            paths.realpath(typed)
            paths.path_dwim_relative(str(tmp_path), "", "tasks", typed)
        paths._is_role(str(tmp_path / "roles" / "web"))
        for question in (paths.exists, paths.isfile, paths.isdir, paths.realpath, paths.path_dwim_relative):
            assert question.cache_info().currsize <= paths.PATHS_KEPT, question
        assert paths._is_role.cache_info().maxsize == paths.PATHS_KEPT
    finally:
        paths.clear_cache()


def test_realpath_answers_as_os_path_realpath_through_links_loops_and_dot_dots(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import random

    root = str(tmp_path)
    os.makedirs(f"{root}/a/b/c")
    os.makedirs(f"{root}/x/y")
    os.symlink(f"{root}/a/b", f"{root}/x/link")
    os.symlink("../a", f"{root}/x/rel")
    os.symlink(f"{root}/loop1", f"{root}/loop2")
    os.symlink(f"{root}/loop2", f"{root}/loop1")
    Path(f"{root}/a/b/c/f.yml").write_text("")
    os.symlink(f"{root}/a/b/c/f.yml", f"{root}/x/y/flink.yml")
    parts = ["a", "b", "c", "x", "y", "link", "rel", "..", ".", "f.yml", "flink.yml", "loop1", "missing", "", "//"]
    chosen = random.Random(4)
    try:
        for cwd in (f"{root}/x", f"{root}/x/link"):
            monkeypatch.chdir(cwd)
            for _ in range(3000):
                written = "/".join(chosen.choice(parts) for _ in range(chosen.randint(1, 6)))
                path = written if chosen.random() < 0.3 else f"{root}/{written}"
                if chosen.random() < 0.5:
                    paths.clear_cache()
                assert paths.realpath(path) == os.path.realpath(path), path
    finally:
        paths.clear_cache()


def test_realpath_of_a_path_thousands_of_levels_deep_does_not_recurse_into_a_crash(tmp_path: Path) -> None:
    import os

    typed = str(tmp_path) + "/a" * 3000 + "/tasks.yml"  # an import an editor buffer can name
    try:
        assert paths.realpath(typed) == os.path.realpath(typed)
    finally:
        paths.clear_cache()

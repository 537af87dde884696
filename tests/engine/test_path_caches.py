"""The memoised file-system questions keep a bounded number of paths: an editor's server clears
them only when files change on disk, while its buffers name new paths at every edit."""

from __future__ import annotations

from pathlib import Path

from engine import paths


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

"""The module names a directory offers are forgotten with the other file-system answers: a module
added to library/ while the editor is open is found at the next refresh."""

from __future__ import annotations

from pathlib import Path

from engine.loading import paths
from engine.plugins.names import _plugin_files


def test_a_module_added_later_is_found_once_the_file_system_is_read_again(tmp_path: Path) -> None:
    (tmp_path / "first.py").write_text("")
    assert "first" in _plugin_files(str(tmp_path), False)
    (tmp_path / "second.py").write_text("")
    assert "second" not in _plugin_files(str(tmp_path), False)  # memoised within one resolution
    paths.clear_cache()
    assert "second" in _plugin_files(str(tmp_path), False)

"""The server keeps its parses in the parse store: queued while it indexes, written when idle, and
read back by the next start, which then parses nothing and ends in the same index."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from engine.parsing.parse_store import DATABASE, ParseStore
from playbook_ls.features.workspace import WorkspaceIndex
from playbook_ls.lsp.stored_parses import LaterWrites

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "features"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "random_playbooks"))
from generator import generate  # noqa: E402
from test_workspace_refresh import snapshot  # noqa: E402


def test_parses_are_written_later_and_read_by_the_next_start(tmp_path: Path) -> None:
    generate(3).write(tmp_path / "repo")
    store = ParseStore(str(tmp_path / "parsed"), store_first_parse=True)
    first = LaterWrites(store)
    index = WorkspaceIndex(str(tmp_path / "repo"), None, first)
    index.index()
    files = len(index.files)
    assert files > 10 and index.sources.parsed == files
    assert len(first.queued) == files and not (tmp_path / "parsed").exists()  # nothing written meanwhile
    assert first.write_some(3) and len(first.queued) == files - 3
    while first.write_some():
        pass
    database = sqlite3.connect(tmp_path / "parsed" / DATABASE)
    assert database.execute("SELECT count(value) FROM parsed").fetchone()[0] == files

    again = WorkspaceIndex(str(tmp_path / "repo"), None, LaterWrites(store))
    again.index()
    assert again.sources.parsed == 0 and store.hits == files
    assert snapshot(again) == snapshot(index)

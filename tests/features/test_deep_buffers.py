"""Features walk a buffer nested as deep as the YAML guard allows without recursing per level:
in the server they run under the event loop's frames, with less of Python's stack left."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from playbook_ls.features import folding, symbols
from playbook_ls.features.workspace import WorkspaceIndex


def test_folding_and_symbols_on_a_deeply_nested_buffer(tmp_path: Path) -> None:
    path = tmp_path / "deep.yml"
    path.write_text("- hosts: all\n  vars:\n    x: " + "[" * 700 + "]" * 700 + "\n")
    index = WorkspaceIndex(str(tmp_path))
    assert index.load(str(path)).error is None  # parsed while the whole stack is available
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 300)  # as in a handler deep in the event loop
    try:
        assert folding.folding_ranges(index, str(path)) is not None
        assert symbols.document_symbols(index, str(path))
    finally:
        sys.setrecursionlimit(limit)


def test_an_alias_inside_itself_is_walked_once(tmp_path: Path) -> None:
    from playbook_ls.features import navigation

    path = tmp_path / "alias.yml"
    path.write_text("- hosts: all\n  tasks:\n    - import_role:\n        name: &a [*a]\n"
                    "    - debug: {msg: &m [*m]}\n      when: &w [*w]\n")
    index = WorkspaceIndex(str(tmp_path))
    assert folding.folding_ranges(index, str(path)) is not None
    assert symbols.document_symbols(index, str(path))
    for line, column in ((3, 16), (4, 20), (5, 15)):
        assert navigation.references(index, str(path), line, column) is not None
        navigation.definition(index, str(path), line, column)

"""What an editor's edits replace is let go: after many edits, each followed by a variable hover
and value hints, the plays of the old texts are not kept alive by what the variable model
remembers (it kept every replaced play: RSS 180 MB to 429 MB on debops after 3,000 edits)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from engine.model import Play
from playbook_ls.features import variables
from playbook_ls.features.workspace import WorkspaceIndex

EDITS = 40


def _live_plays() -> int:
    gc.collect()  # replaced plays are cycles: the server collects them (test_the_server_collects_...)
    return sum(1 for thing in gc.get_objects() if isinstance(thing, Play))


def test_plays_replaced_by_edits_are_released(tmp_path: Path) -> None:
    tasks = tmp_path / "roles" / "web" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text("- debug: msg=start\n")
    for number in range(3):
        (tmp_path / f"site{number}.yml").write_text(
            f"- hosts: localhost\n  gather_facts: false\n  vars:\n    v: {number}\n  roles: [web]\n")
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    path = str(tasks / "main.yml")
    baseline = None
    for edit in range(EDITS):
        text = f'- name: edit {edit}\n  debug:\n    msg: "{{{{ v }}}} {edit}"\n'
        index.set_document(path, text)
        index.refresh([path])
        hover = variables.hover_markdown(index, path, 2, text.splitlines()[2].index("v }}"))
        assert hover is not None and "`0` on localhost" in hover
        assert variables.value_hints(index, path, 0, 3)
        if edit == 4:
            baseline = _live_plays()
    assert baseline is not None and _live_plays() <= baseline + 3, "the plays of old texts are kept"


def test_the_server_collects_what_edits_replaced_when_they_pause(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Replaced plays are cycles (tasks and blocks refer to each other) that only a full collection
    frees, and the thresholds that make indexing fast make those rare: the refresher collects
    when edits pause."""
    from playbook_ls.lsp import server as server_module
    from playbook_ls.lsp.setup import create_server

    collected = threading.Event()
    monkeypatch.setattr(server_module, "COLLECT_AFTER_IDLE", 0.05)
    monkeypatch.setattr(server_module.Refresher, "_collect", staticmethod(lambda: collected.set() or 0))
    server = create_server()
    server.root = str(tmp_path)
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  tasks: []\n")
    server.refresher.start()
    server.refresher.jobs.put(("edit", str(tmp_path / "site.yml")))
    assert collected.wait(10), "no collection after the edits paused"

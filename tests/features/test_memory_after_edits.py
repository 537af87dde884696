"""What an editor's edits replace is let go: after many edits, each followed by a variable hover
and value hints, the plays of the old texts are not kept alive by what the variable model
remembers (it kept every replaced play: RSS 180 MB to 429 MB on debops after 3,000 edits)."""

from __future__ import annotations

import gc
from pathlib import Path

from engine.model import Play
from playbook_ls.features import variables
from playbook_ls.features.workspace import WorkspaceIndex

EDITS = 40


def _live_plays() -> int:
    """Plays alive, or dead but not collected: the server's collection thresholds (cli.main.tune_gc)
    make full collections rare, so what only a full collection frees stays for a long time."""
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
    gc.collect()
    gc.disable()
    try:
        _edit(index, path)
    finally:
        gc.enable()


def _edit(index: WorkspaceIndex, path: str) -> None:
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

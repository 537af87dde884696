"""What an editor's edits replace is let go: after many edits, each followed by a variable hover
and value hints, the plays of the old texts are not kept alive by what the variable model
remembers (it kept every replaced play: RSS 180 MB to 429 MB on debops after 3,000 edits)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from engine.loading.model import Play
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
    when edits pause, and then hands what was freed back to the system (lsp.heap)."""
    from playbook_ls.lsp import server as server_module
    from playbook_ls.lsp.setup import create_server

    collected, released = threading.Event(), threading.Event()
    monkeypatch.setattr(server_module, "COLLECT_AFTER_IDLE", 0.05)
    monkeypatch.setattr(server_module.Refresher, "_collect", staticmethod(lambda: collected.set() or 0))
    monkeypatch.setattr(server_module, "release_free_memory", lambda: collected.is_set() and released.set() or True)
    server = create_server()
    server.root = str(tmp_path)
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  tasks: []\n")
    server.refresher.start()
    server.refresher.jobs.put(("edit", str(tmp_path / "site.yml")))
    assert collected.wait(10), "no collection after the edits paused"
    assert released.wait(10), "the collected memory was not released after the edits paused"


def test_the_server_collects_once_replaced_plays_are_a_share_of_those_held(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A steady stream of edits never pauses: the plays it replaces are collected once they are a
    quarter of those held, not after 100 refreshes (the heap grown to hold them stayed)."""
    from playbook_ls.lsp import server as server_module
    from playbook_ls.lsp.setup import create_server

    collected = threading.Event()
    monkeypatch.setattr(server_module, "COLLECT_AFTER_IDLE", 600.0)  # no pause
    monkeypatch.setattr(server_module, "gc", type("NoGc", (), {"collect": staticmethod(collected.set)}))
    site = tmp_path / "site.yml"
    site.write_text("- hosts: localhost\n  tasks:\n    - debug: msg=1\n")
    server = create_server()
    server.root = str(tmp_path)
    server.index = server.make_index(str(tmp_path))
    server.refresher.jobs.put(("index", None))
    server.refresher.start()
    assert not collected.wait(1), "collected with nothing replaced"
    server.index.set_document(str(site), "- hosts: localhost\n  tasks:\n    - debug: msg=2\n")
    server.refresher.jobs.put(("edit", str(site)))
    assert collected.wait(10), "the replaced play was not collected"
    assert server.index.replaced_tasks == 0


def _two_directories(tmp_path: Path) -> tuple[WorkspaceIndex, list[str]]:
    """A role's tasks and a playbook's, in two directories, both reading ``v`` from the inventory."""
    (tmp_path / "hosts.ini").write_text("web1 v=1\n")
    (tmp_path / "ansible.cfg").write_text("[defaults]\ninventory = hosts.ini\n")
    tasks = tmp_path / "roles" / "web" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text('- debug:\n    msg: "{{ v }}"\n')
    (tmp_path / "site.yml").write_text('- hosts: all\n  gather_facts: false\n  roles: [web]\n  tasks:\n'
                                       '    - debug:\n        msg: "{{ v }}"\n')
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    return index, [str(tasks / "main.yml"), str(tmp_path / "site.yml")]


def _hover_v(index: WorkspaceIndex, path: str) -> None:
    line = 1 if path.endswith("main.yml") else 5
    text = Path(path).read_text().splitlines()[line]
    hover = variables.hover_markdown(index, path, line, text.index("v }}"))
    assert hover is not None and "`1` on web1" in hover, hover


def test_hovers_in_a_role_and_its_playbook_in_turn_read_the_inventory_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inventory is read with the playbook's directory (ansible-playbook adds its
    inventory_plugins/ before reading the inventory), whichever file the playbook reaches is
    hovered: a role's file and the playbook in turn read it once, not once per directory (RSS on
    debops grew with the number of hovers when each directory kept one)."""
    from engine.inventory import manager

    index, paths = _two_directories(tmp_path)
    variables._inventories.clear()
    loads = []
    load = manager.load_inventory
    monkeypatch.setattr(manager, "load_inventory", lambda *args, **kwargs: loads.append(1) or load(*args, **kwargs))
    for turn in range(6):
        _hover_v(index, paths[turn % 2])
    assert len(loads) == 1


def test_an_inventory_read_again_is_not_kept_by_the_variable_levels_of_the_old_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import weakref

    from engine.parsing.source import files_changed

    index, paths = _two_directories(tmp_path)
    variables._inventories.clear()
    _hover_v(index, paths[1])
    (read,) = [inventory for _, _, inventory in variables._inventories.values()]
    old = [weakref.ref(inventory) for inventory in (read, *read._per_playbook_dir.values())]  # one per playbook
    assert len(old) > 1
    del read
    variables._inventories.clear()  # as when a file of the inventory changes
    files_changed()  # and the play's scopes, with their inventory, go with the files they were read from
    _hover_v(index, paths[1])
    gc.collect()
    assert not [ref for ref in old if ref() is not None], "the replaced inventory is still referred to"


def test_closing_edited_files_lets_their_buffers_parses_go(tmp_path: Path) -> None:
    """Opening, editing and closing many files kept one parse of each file's last buffer (beside
    its disk parse) until it was edited again: memory grew with every file ever edited."""
    roles = []
    for number in range(5):
        tasks = tmp_path / "roles" / f"r{number}" / "tasks"
        tasks.mkdir(parents=True)
        (tasks / "main.yml").write_text(f"- debug: msg={number}\n")
        roles.append(str(tasks / "main.yml"))
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  roles: [r0, r1, r2, r3, r4]\n")
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    for path in roles:
        index.set_document(path, Path(path).read_text() + "- debug: msg=edited\n")
        index.refresh([path])
        index.set_document(path, None)
        index.refresh([path])
    kept = [text for text, _ in index.sources._by_content.values() if "edited" in text]
    assert not kept, f"{len(kept)} closed buffers' parses kept"
    hover_target = index.load(roles[0])
    assert hover_target.error is None and "edited" not in index.text(roles[0])


def test_template_results_of_earlier_resolutions_are_forgotten(tmp_path: Path) -> None:
    """Remembered template results keep the values they read alive, keyed by their identity: a
    re-resolved play's values are new objects, so the results of earlier texts were never met
    again and stayed, up to 65,536 of them, with what they kept (RSS grew with every edit)."""
    from engine.templating import load_time as templating

    tasks = tmp_path / "roles" / "web" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text("- debug: msg=start\n")
    (tmp_path / "roles" / "web" / "defaults").mkdir()
    (tmp_path / "roles" / "web" / "defaults" / "main.yml").write_text("packages: [a, b]\n")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  roles: [web]\n")
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    path = str(tasks / "main.yml")
    sizes = []
    for edit in range(30):
        text = f'- name: edit {edit}\n  debug:\n    msg: hi\n  tags: "{{{{ packages + [\'e{edit}\'] }}}}"\n'
        index.set_document(path, text)
        index.refresh([path])
        assert f"e{edit}" in index.books[str(tmp_path / "site.yml")].tags
        sizes.append(len(templating._results) + len(templating._older))
    assert sizes[-1] <= sizes[5], f"remembered template results grew with the edits: {sizes}"

"""One broken file never affects another's results, and an edit never waits for a refresh."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from bounded import HANG_SECONDS

from playbook_ls.features.convert import from_units, to_units
from playbook_ls.features.workspace import WorkspaceIndex


def _repo(tmp_path: Path) -> WorkspaceIndex:
    (tmp_path / "a.yml").write_text("- hosts: all\n  tasks:\n    - debug: msg=a\n      tags: [never]\n")
    (tmp_path / "b.yml").write_text("- hosts: all\n  tasks:\n    - debug: msg=b\n")
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    return index


def test_an_edit_does_not_wait_for_a_refresh_in_progress(tmp_path: Path) -> None:
    index = _repo(tmp_path)
    path = str(tmp_path / "b.yml")
    with index.lock:  # a refresh holding the index for a long time
        done = threading.Event()
        worker = threading.Thread(target=lambda: (index.set_document(path, "- hosts: all\n  tasks: []\n"),
                                                  done.set()))
        worker.start()
        assert done.wait(HANG_SECONDS), "set_document waited for the index lock"
        assert index.text(path) == "- hosts: all\n  tasks: []\n"  # features see the buffer at once
        assert index.load(path).data[0]["tasks"] == []
    index.refresh([path])
    assert index.sources.read_text(path) == "- hosts: all\n  tasks: []\n"  # taken in by the refresh


def test_a_playbook_whose_resolution_crashes_does_not_take_the_others_down(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    index = _repo(tmp_path)
    real = index._resolve

    def flaky(path: str, *args: object, **kwargs: object) -> object:
        if path.endswith("b.yml"):
            raise RuntimeError("a bug")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(index, "_resolve", flaky)
    index.set_document(str(tmp_path / "a.yml"), "- hosts: all\n  tasks:\n    - debug: msg=a\n")
    index.set_document(str(tmp_path / "b.yml"), "- hosts: all\n  tasks:\n    - debug: msg=c\n")
    index.refresh([str(tmp_path / "a.yml"), str(tmp_path / "b.yml")])
    assert str(tmp_path / "a.yml") in index.books
    assert str(tmp_path / "b.yml") in index.books  # the last good resolution stays
    assert any("resolving" in error and "a bug" in error for error in index.internal_errors)


def test_lone_surrogates_in_a_buffer_convert_in_every_encoding() -> None:
    line = "- name: a\udc80b: x"
    for encoding in ("utf-8", "utf-16", "utf-32"):
        units = to_units(line, 12, encoding)
        assert from_units(line, units, encoding) == 12

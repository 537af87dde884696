"""A file the client opens by a name through a symlink (debops' ``roles -> ansible/roles``) is the
file the playbooks read by its real name: its edits are resolved, and its diagnostics are
published under the URI the client used."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from raw_client import RawClient
from waiting import indexed_hover

TASK = "- name: hello\n  debug:\n    msg: hi\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ansible" / "roles" / "web" / "tasks").mkdir(parents=True)
    (tmp_path / "ansible" / "playbooks").mkdir()
    (tmp_path / "ansible" / "playbooks" / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n"
                                                                 "  roles: [web]\n")
    (tmp_path / "ansible" / "roles" / "web" / "tasks" / "main.yml").write_text(TASK)
    (tmp_path / "ansible.cfg").write_text("[defaults]\nroles_path = ansible/roles\n")
    os.symlink("ansible/roles", tmp_path / "roles")
    return tmp_path


def _published(client: RawClient, uri: str, code: str, seconds: float = 20) -> list[str]:
    """The URIs diagnostics were published for until ``code`` came for ``uri``."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = client.read(max(0.1, deadline - time.monotonic()))
        if message.get("method") == "textDocument/publishDiagnostics":
            params = message["params"]
            seen.append(params["uri"])
            if params["uri"] == uri and code in [d.get("code") for d in params["diagnostics"]]:
                return seen
    raise AssertionError(f"no {code} published for {uri} within {seconds:g} s; published for {seen}")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symlinks")
@pytest.mark.parametrize("name", ["roles/web/tasks/main.yml", "ansible/roles/web/tasks/main.yml"])
def test_an_edit_through_either_name_is_diagnosed_under_that_name(root: Path, name: str) -> None:
    client = RawClient(root)
    uri = (root / name).as_uri()
    hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}
    try:
        client.initialize(root)
        deadline = time.monotonic() + 60
        while not indexed_hover(client.response(client.send("textDocument/hover", hover)).get("result")):
            assert time.monotonic() < deadline, "no hover on the role's task"
            time.sleep(0.2)
        client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ansible", "version": 1,
                                                              "text": TASK}}, request=False)
        client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"text": TASK + '  when: "{{ x }}"\n'}]}, request=False)
        published = _published(client, uri, "PLS105")
        other = (root / "ansible/roles/web/tasks/main.yml" if name.startswith("roles") else root / "roles/web/tasks"
                 / "main.yml").as_uri()
        assert other not in published
    finally:
        client.process.kill()

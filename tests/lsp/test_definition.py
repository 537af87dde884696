"""textDocument/definition end to end: roles, imports, notify, and UTF-16 positions."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until, where

HANDLERS = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - {name: "🚀 launch", import_tasks: roles/other/tasks/other_sub.yml}
    - name: notify
      debug: msg=x
      notify: say hi
  handlers:
    - name: say hi
      debug: msg=hi
"""


@pytest.fixture(scope="module")
def workspace(workspace: Path) -> Path:
    (workspace / "handlers.yml").write_text(HANDLERS)
    return workspace


async def definition(client: LanguageClient, path: Path, line: int, character: int) -> list[types.Location]:
    async def ask() -> list[types.Location]:
        result = await client.text_document_definition_async(types.DefinitionParams(
            text_document=doc(path), position=types.Position(line=line, character=character)))
        assert result is None or isinstance(result, list)
        return result or []  # type: ignore[return-value]

    return await until(ask)


@pytest.mark.asyncio(loop_scope="module")
async def test_role_names_open_the_role(client: LanguageClient, workspace: Path) -> None:
    found = await definition(client, workspace / "playbook.yml", 14, 15)  # - role: sample
    assert where(found, workspace) == [("roles/sample/tasks/main.yml", 0, 0, 0)]
    found = await definition(client, workspace / "playbook.yml", 7, 15)  # import_role name: other
    assert where(found, workspace) == [("roles/other/tasks/main.yml", 0, 0, 0)]


@pytest.mark.asyncio(loop_scope="module")
async def test_import_tasks_opens_the_file(client: LanguageClient, workspace: Path) -> None:
    found = await definition(client, workspace / "roles/other/tasks/main.yml", 7, 20)
    assert where(found, workspace) == [("roles/other/tasks/other_sub.yml", 0, 0, 0)]


@pytest.mark.asyncio(loop_scope="module")
async def test_notify_opens_the_handler(client: LanguageClient, workspace: Path) -> None:
    found = await definition(client, workspace / "handlers.yml", 6, 16)
    assert where(found, workspace) == [("handlers.yml", 8, 12, 18)]


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_count_utf16_units(client: LanguageClient, workspace: Path) -> None:
    line = HANDLERS.splitlines()[3]
    end = line.index("}")  # in code points; the rocket is two UTF-16 units
    found = await definition(client, workspace / "handlers.yml", 3, end + 1)  # the end of the path
    assert where(found, workspace) == [("roles/other/tasks/other_sub.yml", 0, 0, 0)]


@pytest.mark.asyncio(loop_scope="module")
async def test_nothing_to_follow(client: LanguageClient, workspace: Path) -> None:
    await definition(client, workspace / "playbook.yml", 14, 15)  # wait for the index
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(workspace / "playbook.yml"), position=types.Position(line=1, character=4)))
    assert result is None

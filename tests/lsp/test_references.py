"""textDocument/references end to end: tags and roles."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until, where


async def references(client: LanguageClient, path: Path, line: int, character: int) -> list[types.Location]:
    async def ask() -> list[types.Location]:
        return await client.text_document_references_async(types.ReferenceParams(
            text_document=doc(path), position=types.Position(line=line, character=character),
            context=types.ReferenceContext(include_declaration=True))) or []

    return await until(ask)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_tag_lists_the_tasks_carrying_it_then_where_it_is_written(
        client: LanguageClient, workspace: Path) -> None:
    found = await references(client, workspace / "playbook.yml", 15, 15)  # tags: __role1
    assert where(found, workspace) == [
        ("roles/sample/tasks/main.yml", 1, 8, 13), ("roles/sample/tasks/main.yml", 6, 8, 13),
        ("roles/sample/tasks/main.yml", 13, 8, 13), ("playbook.yml", 15, 12, 19)]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_tag_in_a_list(client: LanguageClient, workspace: Path) -> None:
    found = await references(client, workspace / "roles/sample/tasks/main.yml", 10, 8)  # - __tag2
    assert where(found, workspace) == [("roles/sample/tasks/main.yml", 6, 8, 13),
                                       ("roles/sample/tasks/main.yml", 10, 6, 12)]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_role_lists_every_use(client: LanguageClient, workspace: Path) -> None:
    expected = [("playbook.yml", 7, 14, 19), ("playbook.yml", 17, 12, 17)]
    assert where(await references(client, workspace / "playbook.yml", 17, 14), workspace) == expected
    assert where(await references(client, workspace / "playbook.yml", 7, 16), workspace) == expected

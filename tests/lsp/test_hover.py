from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import indexed_hover, until


async def hover(client: LanguageClient, path: Path, line: int, character: int = 6) -> str | None:
    result = await until(lambda: client.text_document_hover_async(types.HoverParams(  # the index is built
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),  # in the background after initialize
        position=types.Position(line=line, character=character))), indexed_hover)
    return result.contents.value if indexed_hover(result) else None  # type: ignore[union-attr]


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_each_context_of_a_shared_file(client: LanguageClient, workspace: Path) -> None:
    text = await hover(client, workspace / "roles/other/tasks/other_sub.yml", 1)
    assert text is not None
    assert "Reached from 2 contexts" in text
    assert '`__role2` ← roles: entry "other" (playbook.yml:19)' in text
    assert "`__other` ← import_role other (playbook.yml:9)" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_never_task_says_why_it_is_skipped(client: LanguageClient, workspace: Path) -> None:
    # on the value: on an option key the hover is the option's documentation
    text = await hover(client, workspace / "roles/sample/tasks/main.yml", 8, 14)
    assert text is not None
    assert "**sample : task2**" in text
    assert "`never` (this task)" in text and '`__role1` ← roles: entry "sample" (playbook.yml:16)' in text
    assert "default run: skipped (`never`)" in text

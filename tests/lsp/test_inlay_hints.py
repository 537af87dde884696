"""textDocument/inlayHint end to end: inherited tags at the end of the task's name line."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until

ROCKET = """\
- hosts: localhost
  tags: launch
  tasks:
    - name: deploy 🚀
      debug: msg=x
"""


@pytest.fixture(scope="module")
def workspace(workspace: Path) -> Path:
    (workspace / "rocket.yml").write_text(ROCKET)
    return workspace


async def hints(client: LanguageClient, path: Path, first: int, last: int) -> list[types.InlayHint]:
    async def ask() -> list[types.InlayHint]:
        return await client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=doc(path), range=types.Range(start=types.Position(line=first, character=0),
                                                        end=types.Position(line=last, character=0)))) or []

    return await until(ask)


@pytest.mark.asyncio(loop_scope="module")
async def test_union_over_contexts(client: LanguageClient, workspace: Path) -> None:
    found = await hints(client, workspace / "roles/other/tasks/main.yml", 0, 20)
    # the import_tasks below is expanded in place, not a task: no hint there
    assert [(h.position.line, h.position.character) for h in found] == [(1, 13)]
    label = found[0].label
    assert isinstance(label, str) and label.startswith(" ⟵ inherited: ")
    assert set(label.removeprefix(" ⟵ inherited: ").split(", ")) == {"__play", "__role2", "__other"}


@pytest.mark.asyncio(loop_scope="module")
async def test_only_within_the_range(client: LanguageClient, workspace: Path) -> None:
    await hints(client, workspace / "roles/other/tasks/main.yml", 0, 20)  # wait for the index
    result = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=doc(workspace / "roles/other/tasks/main.yml"),
        range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=5, character=0))))
    assert result is not None and list(result) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_hint_position_counts_utf16_units(client: LanguageClient, workspace: Path) -> None:
    found = await hints(client, workspace / "rocket.yml", 0, 10)
    assert [(h.position.line, h.position.character, h.label) for h in found] == [
        (3, len(ROCKET.splitlines()[3]) + 1, " ⟵ inherited: launch")]

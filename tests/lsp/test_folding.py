"""textDocument/foldingRange end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc


@pytest.mark.asyncio(loop_scope="module")
async def test_plays_sections_tasks_and_arguments_fold(client: LanguageClient, workspace: Path) -> None:
    result = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc(workspace / "playbook.yml")))
    assert result is not None
    assert all(r.start_character is None and r.end_character is None for r in result)  # whole lines only
    assert [(r.start_line, r.end_line) for r in result] == [
        (1, 18),  # the play, up to its last value
        (5, 11), (6, 8), (9, 11), (10, 11),  # tasks:, the import_role task, the debug task, its arguments
        (13, 18), (14, 15), (17, 18)]  # roles: and each entry


@pytest.mark.asyncio(loop_scope="module")
async def test_a_task_file(client: LanguageClient, workspace: Path) -> None:
    result = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc(workspace / "roles/sample/tasks/main.yml")))
    assert [(r.start_line, r.end_line) for r in result or []] == [
        (1, 4), (2, 3), (6, 11), (7, 8), (9, 11), (13, 17), (14, 15), (16, 17)]

"""The selection preview (seed example): playbook-ls.setSelection greys out, as Unnecessary hints,
the tasks the selection runs in no context, adds a section to the hover and tells the client its
label; null clears it; the previewSelection setting does the same."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until

SOURCE = "playbook-ls selection"


def task_line(path: Path, name: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines()) if line.strip() == f"- name: {name}")


async def hints(client: LanguageClient, path: Path, ready: Any, timeout: float = 15.0) -> list[tuple[int, str]]:
    """The selection hints published for ``path`` once ``ready(hints)`` holds: (start line, message)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = [(d.range.start.line, d.message) for d in client.diagnostics.get(path.as_uri(), [])
                 if d.source == SOURCE]
        if ready(found) or loop.time() > deadline:
            return found
        await asyncio.sleep(0.05)


async def set_selection(client: LanguageClient, selection: dict[str, Any] | None) -> Any:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="playbook-ls.setSelection", arguments=[selection]))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_selection_greys_what_it_does_not_run_and_clearing_restores(client: LanguageClient,
                                                                            workspace: Path) -> None:
    labels: list[Any] = []
    client.feature("playbook-ls/selection")(lambda params: labels.append(params.label))
    sample = workspace / "roles/sample/tasks/main.yml"
    # the index is ready once the rules' findings are out
    await until(lambda: asyncio.sleep(0.05, client.diagnostics.get(sample.as_uri(), [])), lambda d: len(d) == 2)

    answer = await set_selection(client, {"tags": "__tag1"})
    assert answer["label"] == "--tags __tag1"
    found = await hints(client, sample, lambda h: len(h) == 2)
    assert found == [(task_line(sample, "task2"), "not run by --tags __tag1: none of its tags is in --tags __tag1"),
                     (task_line(sample, "task3"), "not run by --tags __tag1: none of its tags is in --tags __tag1")]
    playbook = workspace / "playbook.yml"
    assert [line for line, _ in await hints(client, playbook, bool)] == [task_line(playbook, "sample task")]
    full = [d for d in client.diagnostics[sample.as_uri()] if d.source == SOURCE][0]
    assert list(full.tags or []) == [types.DiagnosticTag.Unnecessary] and full.severity == types.DiagnosticSeverity.Hint
    assert full.range.end.line > full.range.start.line  # the task's whole range
    assert len([d for d in client.diagnostics[sample.as_uri()] if d.code == "PLS101"]) == 2  # merged, not replaced

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(sample), position=types.Position(line=task_line(sample, "task2"), character=8)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "**Under `--tags __tag1`:** does not run, because none of its tags is in `--tags __tag1`" in text
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(sample), position=types.Position(line=task_line(sample, "task1"), character=8)))
    assert "**Under `--tags __tag1`:** runs, because `--tags __tag1` names `__tag1`" in hover.contents.value  # type: ignore[union-attr]

    await set_selection(client, None)
    assert await hints(client, sample, lambda h: not h) == []
    assert await hints(client, playbook, lambda h: not h) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(sample), position=types.Position(line=task_line(sample, "task2"), character=8)))
    assert "Under `" not in hover.contents.value  # type: ignore[union-attr]
    await until(lambda: asyncio.sleep(0.05, labels), lambda seen: len(seen) >= 2)
    assert labels[-2:] == ["--tags __tag1", None]


@pytest.mark.asyncio(loop_scope="module")
async def test_the_preview_setting_and_bad_selections(client: LanguageClient, workspace: Path) -> None:
    sample = workspace / "roles/sample/tasks/main.yml"
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"playbook-ls": {"previewSelection": {"tags": ["__tag2"], "skip_tags": "__play"}}}))
    found = await hints(client, sample, lambda h: len(h) == 3)
    assert [message for _, message in found][0].startswith("not run by --tags __tag2 --skip-tags __play: ")
    with pytest.raises(Exception, match="no launch profile 'nightly'") as raised:
        await set_selection(client, {"profile": "nightly"})
    assert getattr(raised.value, "code", -32602) == -32602
    with pytest.raises(Exception, match="must be a string"):
        await set_selection(client, {"tags": 3})
    assert len(await hints(client, sample, lambda h: len(h) == 3)) == 3  # the previous selection stays
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"playbook-ls": {"previewSelection": None}}))
    assert await hints(client, sample, lambda h: not h) == []

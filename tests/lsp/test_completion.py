"""Completion end to end: tags with counts from the index, keys, module options, UTF-16 ranges."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import waiting
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import indexed_hover

PLAYBOOK_TAIL = "    - role: other\n      tags: __role2\n"


def open_edited(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    """Put unsaved text for ``path`` into the server, as an editor does while one types."""
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="ansible", version=version, text=text)))
    return uri


async def complete(client: LanguageClient, uri: str, line: int, character: int,
                   until: Callable[[list[types.CompletionItem]], bool] = bool) -> list[types.CompletionItem]:
    """Ask until ``until`` holds: the index is built in the background after initialize."""
    async def ask() -> list[types.CompletionItem]:
        result = await client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character)))
        return result.items if isinstance(result, types.CompletionList) else list(result or [])

    items = await waiting.until(ask, until)
    assert until(items), f"completion never matched: {[i.label for i in items]}"
    return items


async def indexed(client: LanguageClient, workspace: Path) -> None:
    """Wait for the first index: until then a broken buffer would have no good state to keep."""
    uri = (workspace / "roles/sample/tasks/main.yml").as_uri()
    assert indexed_hover(await waiting.until(lambda: client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=4))),
        indexed_hover)), "the workspace was never indexed"


def by_label(items: list[types.CompletionItem]) -> dict[str, types.CompletionItem]:
    return {item.label: item for item in items}


@pytest.mark.asyncio(loop_scope="module")
async def test_tags_mid_edit_come_with_task_counts(client: LanguageClient, workspace: Path) -> None:
    await indexed(client, workspace)
    path = workspace / "playbook.yml"
    text = path.read_text()
    assert text.endswith(PLAYBOOK_TAIL)
    line = "      tags: [__role2, 😀, __ro"
    uri = open_edited(client, path, text[: -len("      tags: __role2\n")] + line + "\n")
    number = text.count("\n") - 1
    character = len(line.encode("utf-16-le")) // 2

    def counted(items: list[types.CompletionItem]) -> bool:
        found = by_label(items).get("__role1")
        return found is not None and found.detail == "3 tasks"

    items = await complete(client, uri, number, character, counted)
    labels = by_label(items)
    assert "__role2" not in labels  # already in this value
    assert labels["__other"].detail == "2 tasks" and labels["__play"].detail == "6 tasks"
    edit = labels["__role1"].text_edit
    assert isinstance(edit, types.TextEdit) and edit.new_text == "__role1"
    # the emoji counts two UTF-16 units: the replaced "__ro" starts 4 units before the cursor
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (
        number, character - 4, character)


@pytest.mark.asyncio(loop_scope="module")
async def test_task_keys_offer_keywords_and_modules_with_lazy_docs(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "roles/sample/tasks/main.yml"
    text = path.read_text() + "\n- name: new task\n  ansible.builtin.co"
    uri = open_edited(client, path, text)
    number = text.count("\n")
    items = await complete(client, uri, number, len("  ansible.builtin.co"))
    labels = by_label(items)
    assert {"when", "tags", "register", "copy", "ansible.builtin.copy", "ansible.builtin.command"} <= set(labels)
    assert "name" not in labels and "hosts" not in labels
    copy = labels["ansible.builtin.copy"]
    assert copy.kind == types.CompletionItemKind.Module and copy.detail == "Copy files to remote locations"
    assert isinstance(copy.text_edit, types.TextEdit) and copy.text_edit.range.start.character == 2
    assert copy.text_edit.new_text == "ansible.builtin.copy: " and copy.documentation is None
    resolved = await client.completion_item_resolve_async(copy)
    assert isinstance(resolved.documentation, types.MarkupContent)
    assert "`dest` *path, required*" in resolved.documentation.value


@pytest.mark.asyncio(loop_scope="module")
async def test_module_options_and_play_keys(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "playbook.yml"
    text = path.read_text().replace('        msg: "sample tasks"\n', '        msg: "sample tasks"\n        \n')
    text = text.replace("  tags: __play\n\n", "  tags: __play\n  \n")
    uri = open_edited(client, path, text, version=5)
    number = text.splitlines().index("        ")
    labels = by_label(await complete(client, uri, number, 8))
    assert {"var", "verbosity"} <= set(labels) and "msg" not in labels
    assert labels["verbosity"].detail == "int, default: 0"
    assert labels["verbosity"].kind == types.CompletionItemKind.Field
    play = by_label(await complete(client, uri, 4, 2))  # the blank line inside the play
    assert {"pre_tasks", "handlers", "vars_files"} <= set(play) and "debug" not in play
    assert "tasks" not in play and "roles" not in play and "hosts" not in play


@pytest.mark.asyncio(loop_scope="module")
async def test_nothing_in_plain_values(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "playbook.yml"
    uri = open_edited(client, path, path.read_text(), version=9)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=9, character=14)))
    assert result is None


def test_completion_is_advertised_with_trigger_characters_and_resolve() -> None:
    from playbook_ls.lsp.setup import create_server

    features = create_server().protocol.fm
    options = features.feature_options[types.TEXT_DOCUMENT_COMPLETION]
    assert set(options.trigger_characters or []) >= {",", "[", " ", ":"} and options.resolve_provider
    assert types.COMPLETION_ITEM_RESOLVE in features.features

"""textDocument/documentSymbol and workspace/symbol end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until


def tree(symbols: list[types.DocumentSymbol]) -> list[object]:
    return [(s.name, s.kind, s.range.start.line, s.range.end.line, *([tree(s.children)] if s.children else []))
            for s in symbols]


@pytest.mark.asyncio(loop_scope="module")
async def test_playbook_outline(client: LanguageClient, workspace: Path) -> None:
    result = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(workspace / "playbook.yml")))
    assert result is not None and all(isinstance(s, types.DocumentSymbol) for s in result)
    kinds = types.SymbolKind
    assert tree(result) == [  # type: ignore[arg-type]
        ("hosts: localhost", kinds.Module, 1, 18, [
            ("tasks", kinds.Namespace, 5, 11, [
                ("import_role other", kinds.Function, 6, 8),
                ("sample task", kinds.Function, 9, 11)]),
            ("roles", kinds.Namespace, 13, 18, [
                ("sample", kinds.Package, 14, 15),
                ("other", kinds.Package, 17, 18)])])]
    sample = result[0].children[1].children[0]  # type: ignore[union-attr,index]
    assert sample.selection_range == types.Range(start=types.Position(line=14, character=12),
                                                 end=types.Position(line=14, character=18))


@pytest.mark.asyncio(loop_scope="module")
async def test_outline_of_an_unsaved_task_file(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "roles/other/tasks/other_sub.yml"
    text = "---\n- name: first\n  debug: msg=1\n- block:\n    - name: inner\n      ping:\n"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="ansible", version=1, text=text)))
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(path)))
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc(path)))
    assert tree(result) == [("first", types.SymbolKind.Function, 1, 2),  # type: ignore[arg-type]
                            ("block", types.SymbolKind.Struct, 3, 5, [("inner", types.SymbolKind.Function, 4, 5)])]


@pytest.mark.asyncio(loop_scope="module")
async def test_workspace_symbols(client: LanguageClient, workspace: Path) -> None:
    async def ask() -> list[types.WorkspaceSymbol]:
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="SAMPLE"))
        return found or []  # type: ignore[return-value]

    found = await until(ask, lambda result: len(result) >= 5)
    assert [(s.name, s.kind) for s in found] == [
        ("sample", types.SymbolKind.Package), ("sample : task1", types.SymbolKind.Function),
        ("sample : task2", types.SymbolKind.Function), ("sample : task3", types.SymbolKind.Function),
        ("sample task", types.SymbolKind.Function)]
    location = found[0].location
    assert isinstance(location, types.Location) and location.uri.endswith("roles/sample/tasks/main.yml")
    tags = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="__tag"))
    assert [(s.name, s.location.range.start.line) for s in tags or []] == [  # type: ignore[union-attr]
        ("__tag1", 4), ("__tag2", 10)]

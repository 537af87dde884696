from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient


async def diagnostics_for(client: LanguageClient, uri: str, predicate, timeout: float = 10.0) -> list:
    """Wait until the diagnostics published for ``uri`` satisfy ``predicate``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        found = client.diagnostics.get(uri, [])
        if predicate(found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"diagnostics for {uri} never matched: {client.diagnostics.get(uri)}")


@pytest.mark.asyncio(loop_scope="module")
async def test_index_publishes_pls101_with_origins(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "roles/sample/tasks/main.yml").as_uri()
    found = await diagnostics_for(client, uri, lambda d: len(d) == 2)
    first = found[0]
    assert (first.code, first.range.start.line, first.severity) == ("PLS101", 11, types.DiagnosticSeverity.Warning)
    assert first.code_description is not None and first.code_description.href.endswith("/PLS101.md")
    related = first.related_information or []
    assert [(r.location.uri.endswith("playbook.yml"), r.location.range.start.line) for r in related] == [
        (True, 3), (True, 15)]


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_follow_the_buffer(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "playbook.yml"
    uri, text = path.as_uri(), path.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="ansible", version=1, text=text)))
    edited = text.replace('        msg: "sample tasks"\n', '        msg: "sample tasks"\n      when: "{{ go }}"\n')
    assert edited != text
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
    found = await diagnostics_for(client, uri, lambda d: any(x.code == "PLS105" for x in d))
    assert [x.range.start.line for x in found if x.code == "PLS105"] == [12]
    # a broken buffer mid-edit: the syntax error is reported, the server stays up
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited + "  - [unclosed\n")]))
    await diagnostics_for(client, uri, lambda d: any(x.code == "PLS111" for x in d))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=4),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    await diagnostics_for(client, uri, lambda d: len(d) == 0)
    # the role's findings survive all of it
    assert len(client.diagnostics[(workspace / "roles/sample/tasks/main.yml").as_uri()]) == 2


@pytest.mark.asyncio(loop_scope="module")
async def test_files_changed_on_disk_are_taken_in(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "roles/other/tasks/main.yml").as_uri()
    path = workspace / "roles/other/tasks/main.yml"
    path.write_text(path.read_text() + "- name: gated\n  debug: msg=x\n  when: \"{{ flag }}\"\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]))
    found = await diagnostics_for(client, uri, lambda d: any(x.code == "PLS105" for x in d))
    assert {x.range.start.line for x in found if x.code == "PLS105"} == {10}

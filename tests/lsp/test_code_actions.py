"""Quick fixes end to end: textDocument/codeAction on a finding answers quickfix actions that
carry the diagnostic and edit only the finding's text (issue 19, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_diagnostics import diagnostics_for

from playbook_ls.fixes import Edit, apply_edits

ADDED = ('      debug:\n        msg: "sample tasks"\n'
         '      when: "{{ go }}"   # keep this comment\n'
         '      tag: sample\n')


def _apply(text: str, action: types.CodeAction, uri: str) -> str:
    assert action.edit is not None and action.edit.changes is not None
    edits = [Edit(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text)
             for e in action.edit.changes[uri]]
    return apply_edits(text, edits)  # ASCII text: UTF-16 units are code points


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio(loop_scope="module")
async def test_code_actions_fix_and_silence(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "playbook.yml"
    uri, text = path.as_uri(), path.read_text()
    edited = text.replace('      debug:\n        msg: "sample tasks"\n', ADDED)
    assert edited != text
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="ansible", version=1, text=edited)))
    found = await diagnostics_for(client, uri, lambda d: any(x.code == "PLS112" for x in d))
    unknown = next(x for x in found if x.code == "PLS112")
    actions = await _actions(client, uri, unknown)
    titles = [a.title for a in actions]
    assert titles[0] == "Rename 'tag' to 'tags'" and actions[0].is_preferred
    assert all(a.kind == types.CodeActionKind.QuickFix and a.diagnostics and a.diagnostics[0].code == "PLS112"
               for a in actions)
    assert any("'# noqa: PLS112' on this line" in t for t in titles)
    assert any("first line of the task" in t for t in titles)
    fixed = _apply(edited, actions[0], uri)
    assert fixed == edited.replace("      tag: sample\n", "      tags: sample\n")

    # with the keyword right, the condition is checked: drop the {{ }}, keep the comment
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    found = await diagnostics_for(client, uri, lambda d: any(x.code == "PLS105" for x in d))
    jinja = next(x for x in found if x.code == "PLS105")
    actions = await _actions(client, uri, jinja)
    assert actions[0].title.startswith("Write when: go")
    after = _apply(fixed, actions[0], uri)
    assert after == fixed.replace('when: "{{ go }}"   # keep this comment', "when: go   # keep this comment")
    noqa = next(a for a in actions if a.title.endswith("on this line"))
    assert _apply(fixed, noqa, uri) == fixed.replace("# keep this comment", "# keep this comment  # noqa: PLS105")

    # nothing is offered away from the findings, nor for a kind other than quickfix
    elsewhere = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=3)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not elsewhere
    refactor = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=jinja.range,
        context=types.CodeActionContext(diagnostics=[jinja], only=[types.CodeActionKind.Refactor])))
    assert not refactor
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))

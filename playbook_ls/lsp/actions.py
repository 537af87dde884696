"""LSP glue for quick fixes: ``textDocument/codeAction`` answered from
:func:`playbook_ls.fixes.fixes_for` (the same fixes ``check --fix`` applies, plus the ones only
offered, such as "add ``# noqa: CODE``"), each a ``quickfix`` carrying its diagnostic.
"""

from __future__ import annotations

from lsprotocol import types

from engine.span import Span
from playbook_ls.features.convert import lsp_range, uri_to_path
from playbook_ls.features.diagnostics import to_diagnostic
from playbook_ls.features.yamltext import split_lines
from playbook_ls.fixes import Fix, Source, fixes_for
from playbook_ls.lsp.server import PlaybookServer, query, rule_docs_uri


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def _intersects(a: types.Range, b: types.Range) -> bool:
    return not (_before(a.end, b.start) or _before(b.end, a.start))


def code_actions(ls: PlaybookServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    only = params.context.only
    if ls.index is None or (only and not any(types.CodeActionKind.QuickFix.value.startswith(kind) for kind in only)):
        return []
    uri = params.text_document.uri
    path = uri_to_path(uri)
    text = ls.buffer(uri)
    try:
        resolved = ls.index.sources.read_text(path)
    except (OSError, UnicodeDecodeError):
        return []
    if resolved != text:
        return []  # the findings are those of another version of the buffer: wait for the next
    lines, source, docs = split_lines(text), Source(text, path), rule_docs_uri()
    actions = []
    for finding in ls.index.findings_for(path):
        if finding.span is None or not _intersects(lsp_range(finding.span, lines, ls.encoding), params.range):
            continue
        diagnostic = to_diagnostic(finding, ls.lines, docs, ls.encoding)
        fixes = fixes_for(finding, source)
        actions += [_action(uri, path, fix, diagnostic, lines, ls.encoding, preferred=fix is fixes[0] and fix.safe)
                    for fix in fixes]
    return actions


def _action(uri: str, path: str, fix: Fix, diagnostic: types.Diagnostic, lines: list[str], encoding: str,
            preferred: bool) -> types.CodeAction:
    edits = [types.TextEdit(range=lsp_range(Span(path, *edit[:4]), lines, encoding), new_text=edit.new_text)
             for edit in fix.edits]
    return types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                            is_preferred=preferred or None, edit=types.WorkspaceEdit(changes={uri: edits}))


def register(server: PlaybookServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @query()
    def on_code_action(ls: PlaybookServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        return code_actions(ls, params) or None

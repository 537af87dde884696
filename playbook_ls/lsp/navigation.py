"""LSP glue for reading and navigating: hover, definition, references, document and workspace
symbols, folding ranges and inlay hints. The answers come from the pure functions in
:mod:`playbook_ls.features`; here they are only converted to LSP types (UTF-16 or the
negotiated encoding) and registered on the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from lsprotocol import types

from engine.span import Span
from playbook_ls.features import folding, inlay, navigation, symbols
from playbook_ls.features.convert import lsp_range, path_to_uri, to_units, uri_to_path
from playbook_ls.lsp.server import PlaybookServer, position_column, query

log = logging.getLogger("playbook-ls")
# the work one inlay hint request spends on values: a client asking for a whole 50,000-line file
# gets the values of its first tasks, one asking for the lines on screen (most do) gets them all
VALUE_HINT_SECONDS = 0.5
SYMBOL_KINDS = {
    symbols.PLAY: types.SymbolKind.Module,
    symbols.IMPORT: types.SymbolKind.File,
    symbols.SECTION: types.SymbolKind.Namespace,
    symbols.BLOCK: types.SymbolKind.Struct,
    symbols.TASK: types.SymbolKind.Function,
    symbols.HANDLER: types.SymbolKind.Event,
    symbols.ROLE: types.SymbolKind.Package,
    symbols.TAG: types.SymbolKind.Constant,
}


class Lines:
    """Each file's lines read once per request, for converting spans to LSP ranges."""

    def __init__(self, ls: PlaybookServer) -> None:
        self.ls = ls
        self.cache: dict[str, list[str]] = {}

    def range(self, span: Span) -> types.Range:
        lines = self.cache.get(span.file)
        if lines is None:
            lines = self.cache[span.file] = self.ls.lines(span.file)
        return lsp_range(span, lines, self.ls.encoding)

    def locations(self, spans: Iterable[Span]) -> list[types.Location]:
        return [types.Location(uri=path_to_uri(span.file), range=self.range(span)) for span in spans]


def _locations_at(ls: PlaybookServer, params: types.TextDocumentPositionParams,
                  find: Callable[..., Iterable[Span]]) -> list[types.Location] | None:
    """Locations ``find(index, path, line, column)`` gives for the requested position."""
    if ls.index is None:
        return None
    path = uri_to_path(params.text_document.uri)
    column = position_column(ls, path, params.position)
    return Lines(ls).locations(find(ls.index, path, params.position.line, column)) or None


def _selection_section(ls: PlaybookServer, path: str, line: int) -> str | None:
    """With a preview selection: whether it runs the task at ``line``, and why. A failure here
    leaves the rest of the hover as it is."""
    preview = ls.selection
    if preview is None or ls.index is None:
        return None
    try:
        from playbook_ls.features import selection

        return selection.hover_section(selection.explain(ls.index, path, line, preview), preview)
    except Exception:  # noqa: BLE001
        log.exception("the hover's selection section failed")
        return None


def _hosts_section(ls: PlaybookServer, path: str, line: int) -> str | None:
    """With an ``inventory`` setting: on which of its hosts the task runs, and why not on the
    others. A failure here leaves the rest of the hover as it is."""
    inventory = ls.inventory_setting()
    if inventory is None or ls.index is None:
        return None
    try:
        from playbook_ls.features.host_hover import hosts_section

        return hosts_section(ls.index, path, line, inventory)
    except Exception:  # noqa: BLE001
        log.exception("the hover's host summary failed")
        return None


def _variable_hover(ls: PlaybookServer, path: str, line: int, column: int) -> str | None:
    """The variable hover, guarded on its own: a failure there leaves the other hovers working."""
    from playbook_ls.features import variables

    try:
        return variables.hover_markdown(ls.index, path, line, column, ls.inventory_setting())  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - one broken feature never takes the others with it
        log.exception("the variable hover failed")
        return None


def _value_hints(ls: PlaybookServer, path: str, first: int, last: int) -> list[Any]:
    """The resolved values of templated arguments, guarded on their own."""
    from playbook_ls.features import variables

    try:
        return list(variables.value_hints(ls.index, path, first, last, ls.inventory_setting(),  # type: ignore[arg-type]
                                          VALUE_HINT_SECONDS))
    except Exception:  # noqa: BLE001 - the tag hints stay when the value hints fail
        log.exception("the value inlay hints failed")
        return []


def register(server: PlaybookServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @query()
    def on_hover(ls: PlaybookServer, params: types.HoverParams) -> types.Hover | None:
        from playbook_ls.features import hover

        path, line = uri_to_path(params.text_document.uri), params.position.line
        if not ls.answers(path):  # said, not left empty: an empty hover reads as "nothing here"
            stage = ls.index.stage if ls.index is not None else None
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                            value=hover.indexing_markdown(stage)))
        from playbook_ls.features.token_hover import token_hover

        column = position_column(ls, path, params.position)
        text = _variable_hover(ls, path, line, column) or token_hover(ls.index, path, line, column)
        task_hover = text is None  # the hover of the task itself, not of a value or a word in it
        text = text or hover.hover_markdown(ls.index, path, line)
        if text is None:
            return None
        for section in (_selection_section(ls, path, line), _hosts_section(ls, path, line) if task_hover else None):
            if section:
                text += "\n\n---\n\n" + section
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @query()
    def on_definition(ls: PlaybookServer, params: types.DefinitionParams) -> list[types.Location] | None:
        from playbook_ls.features import variables

        def definition(index: Any, path: str, line: int, column: int) -> list[Span]:
            if variables.variable_at(index.text(path), line, column) is not None:
                return variables.definitions(index, path, line, column, ls.inventory_setting())
            return navigation.definition(index, path, line, column)

        return _locations_at(ls, params, definition)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @query()
    def on_references(ls: PlaybookServer, params: types.ReferenceParams) -> list[types.Location] | None:
        from playbook_ls.features import variables

        def references(index: Any, path: str, line: int, column: int) -> list[Span]:
            if variables.variable_at(index.text(path), line, column) is not None:
                return variables.references(index, path, line, column)
            return navigation.references(index, path, line, column)

        return _locations_at(ls, params, references)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @query(default=[])
    def on_document_symbol(ls: PlaybookServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        if ls.index is None:
            return []
        lines = Lines(ls)

        def convert(entry: symbols.Outline) -> types.DocumentSymbol:
            return types.DocumentSymbol(
                name=entry.name or "?", detail=entry.detail or None, kind=SYMBOL_KINDS[entry.kind],
                range=lines.range(entry.span), selection_range=lines.range(entry.selection),
                children=[convert(child) for child in entry.children])

        return [convert(entry) for entry in symbols.document_symbols(ls.index, uri_to_path(params.text_document.uri))]

    @server.feature(types.WORKSPACE_SYMBOL)
    @query(default=[])
    def on_workspace_symbol(ls: PlaybookServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        if ls.index is None:
            return []
        lines = Lines(ls)
        return [types.WorkspaceSymbol(
                    name=found.name, kind=SYMBOL_KINDS[found.kind], container_name=found.container or None,
                    location=types.Location(uri=path_to_uri(found.span.file), range=lines.range(found.span)))
                for found in symbols.workspace_symbols(ls.index, params.query)]

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @query()
    def on_folding_range(ls: PlaybookServer, params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
        if ls.index is None:
            return None
        ranges = folding.folding_ranges(ls.index, uri_to_path(params.text_document.uri))
        if ranges is None:
            return None
        # lines only: clients may announce lineFoldingOnly, and lines are all that is folded here
        return [types.FoldingRange(start_line=start, end_line=end) for start, end in ranges]

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @query(default=[])
    def on_inlay_hint(ls: PlaybookServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        if ls.index is None:
            return []
        path = uri_to_path(params.text_document.uri)
        lines = ls.lines(path)
        found: list[Any] = inlay.inherited_tag_hints(ls.index, path, params.range.start.line, params.range.end.line)
        found += _value_hints(ls, path, params.range.start.line, params.range.end.line)
        return [types.InlayHint(
                    position=types.Position(line=hint.line, character=to_units(lines[hint.line], hint.col,
                                                                               ls.encoding)),
                    label=hint.label, tooltip=hint.tooltip)
                for hint in found if hint.line < len(lines)]

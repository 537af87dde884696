"""LSP glue for editing help: completion (tags, keywords, modules, module options).

The answers come from :mod:`playbook_ls.features.completion` (pure functions on the raw
text); here they become LSP items whose edits replace the word before the cursor, in the
client's position encoding. A module's full documentation is sent only when the client
resolves that one item, so a list of every module stays small.
"""

from __future__ import annotations

from lsprotocol import types

from playbook_ls.features import completion
from playbook_ls.features.convert import from_units, to_units, uri_to_path
from playbook_ls.features.yamltext import split_lines
from playbook_ls.lsp.server import PlaybookServer, guarded, query

TRIGGER_CHARACTERS = [",", "[", " ", ":"]
KINDS = {
    "tag": types.CompletionItemKind.Constant,
    "keyword": types.CompletionItemKind.Keyword,
    "module": types.CompletionItemKind.Module,
    "option": types.CompletionItemKind.Field,
    "value": types.CompletionItemKind.EnumMember,
    "variable": types.CompletionItemKind.Variable,
}


def to_lsp(found: completion.Completion, line: int, text: str, character: int,
           encoding: str) -> list[types.CompletionItem]:
    start = types.Position(line=line, character=to_units(text, found.start, encoding))
    edit_range = types.Range(start=start, end=types.Position(line=line, character=character))
    return [types.CompletionItem(
        label=item.label, kind=KINDS.get(item.kind), detail=item.detail or None,
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=item.documentation)
        if item.documentation else None,
        sort_text=item.sort, filter_text=item.label,
        text_edit=types.TextEdit(range=edit_range, new_text=item.insert),
        data={"module": item.data} if item.data else None) for item in found.items]


def register(server: PlaybookServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=True))
    @query()
    def on_completion(ls: PlaybookServer, params: types.CompletionParams) -> types.CompletionList | None:
        uri = params.text_document.uri
        path = uri_to_path(uri)
        # the editor's buffer, which may be newer than what the index last resolved
        text = ls.buffer(uri)
        lines = split_lines(text)
        number = params.position.line
        line_text = lines[number] if 0 <= number < len(lines) else ""
        column = from_units(line_text, params.position.character, ls.encoding)
        inventory = ls.options.get("inventory")
        found = completion.complete(ls.index, path, number, column, text,
                                    [inventory] if isinstance(inventory, str) and inventory.strip() else None)
        if found is None or not found.items:
            return None
        items = to_lsp(found, number, line_text, params.position.character, ls.encoding)
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    @guarded()
    def on_completion_resolve(ls: PlaybookServer, item: types.CompletionItem) -> types.CompletionItem:
        data = item.data if isinstance(item.data, dict) else {}
        text = completion.resolve_documentation(data.get("module"))
        if text:
            item.documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
        return item

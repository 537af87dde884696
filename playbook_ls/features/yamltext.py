"""YAML structure read from raw lines and indentation, for text that is being edited.

Completion runs on text that usually does not parse (``tags: [a, b`` or a task with half a
key), so the parsed model cannot answer "what mapping is the cursor in?". These functions
answer it from indentation alone, the way a reader does: a key belongs to the mapping of the
keys at its column, a mapping that starts with ``- `` is an item of the sequence above, and
a sequence belongs to the nearest ``key:`` with an empty value above it. Block scalars, flow
mappings spread over lines and anchors are not followed; those simply give no context.
Columns are code points, 0-based.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple, overload

from playbook_ls.features.cursor import Context, item_context, nested_context, play_keys

# A mapping key: double-quoted, single-quoted or plain (not starting with an indicator), then ':'.
_KEY = re.compile(r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'"""
                  r"""|([^\s#'"\[\]{},&*!|>%@`-][^#]*?|-[^\s#][^#]*?))\s*:(?=\s|$)""")
_EOL = re.compile(r"\r\n|\r|\n")
TOP = -1  # sequence_parent: the sequence is the document itself


class Line(NamedTuple):
    """One line: ``indent`` is where its content starts, ``dashes`` the columns of its ``- ``
    indicators, ``key_col`` where the key (or scalar) after them starts."""

    indent: int
    dashes: tuple[int, ...]
    key_col: int
    key: str | None
    key_end: int
    value: str
    value_col: int
    blank: bool


def parse_line(text: str) -> Line:
    stripped = text.lstrip(" ")
    indent = len(text) - len(stripped)
    if not stripped or stripped.startswith("#") or (indent == 0 and stripped.rstrip() in ("---", "...")):
        return Line(indent, (), indent, None, indent, "", len(text), True)
    col, dashes = indent, []
    while text.startswith("-", col) and (col + 1 == len(text) or text[col + 1] in " \t"):
        dashes.append(col)
        col += 1
        while col < len(text) and text[col] in " \t":
            col += 1
    match = _KEY.match(text, col)
    if match is None:
        value, value_col = _strip_comment(text, col)
        return Line(indent, tuple(dashes), col, None, col, value, value_col, False)
    key = next(g for g in match.groups() if g is not None)
    key_end = match.start(3) + len(key) if match.group(3) is not None else match.end() - 1
    key = key.replace("''", "'") if match.group(2) is not None else key
    value, value_col = _strip_comment(text, match.end())
    return Line(indent, tuple(dashes), col, key, key_end, value, value_col, False)


def _strip_comment(text: str, col: int) -> tuple[str, int]:
    """The value starting at ``col`` without leading blanks or a trailing comment."""
    while col < len(text) and text[col] in " \t":
        col += 1
    quote = None
    for index in range(col, len(text)):
        char = text[index]
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"" and (index == col or text[index - 1] in " [,{"):
            quote = char
        elif char == "#" and index > col and text[index - 1] in " \t":
            return text[col:index].rstrip(), col
    return text[col:].rstrip(), col


class Piece(NamedTuple):
    text: str
    start: int
    end: int


def pieces(value: str, value_col: int, split_commas: bool) -> list[Piece]:
    """The items of a flow list ``[a, 'b']`` (or of ``a, b`` with ``split_commas``), unquoted."""
    body, offset = value, value_col
    flow = body.startswith("[")
    if flow:
        body, offset = body[1:], offset + 1
        body = body[:-1] if body.endswith("]") else body
    if not (flow or split_commas):
        return [_piece(body, offset)] if body else []
    result, start = [], 0
    for index, char in enumerate(body + ","):
        if char == ",":
            piece = _piece(body[start:index], offset + start)
            if piece.text or index < len(body):
                result.append(piece)
            start = index + 1
    return result


def _piece(raw: str, offset: int) -> Piece:
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    start = offset + lead
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return Piece(text[1:-1], start + 1, start + len(text) - 1)
    return Piece(text, start, start + len(text))


def split_lines(text: str) -> list[str]:
    """Lines as LSP counts them: only CR, LF and CRLF end a line (``str.splitlines`` also
    breaks at form feeds and U+2028), and an empty last line exists for the cursor to sit on."""
    return list(_split(text))


@functools.lru_cache(maxsize=4)
def _split(text: str) -> tuple[str, ...]:
    # one request splits the same buffer several times (positions, the word at the cursor, the
    # hover's context): 30 ms each for a 50,000-line file; a copy of the list costs a hundredth
    return tuple(_EOL.split(text))


class ParsedLines(Sequence[Line]):
    """Each line parsed when first looked at, then kept: a hover or a completion reads the lines
    around the cursor, not all 50,000 of a generated playbook (a second and more, every time)."""

    def __init__(self, raw: list[str]) -> None:
        self.raw = raw
        self.parsed: list[Line | None] = [None] * len(raw)

    def __len__(self) -> int:
        return len(self.raw)

    @overload
    def __getitem__(self, index: int) -> Line: ...

    @overload
    def __getitem__(self, index: slice) -> list[Line]: ...

    def __getitem__(self, index: int | slice) -> Line | list[Line]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.raw)))]
        found = self.parsed[index]
        if found is None:
            found = self.parsed[index] = parse_line(self.raw[index])
        return found


class Doc:
    """The lines of a document, each parsed once."""

    def __init__(self, text: str) -> None:
        self.raw = split_lines(text)
        self.lines = ParsedLines(self.raw)

    def deeper(self, index: int, col: int) -> bool:
        """Whether line ``index`` starts right of ``col`` (or is blank): told from its indentation
        alone, so that walking past the lines of thousands of tasks parses none of them."""
        raw = self.raw[index]
        return len(raw) - len(raw.lstrip(" ")) > col

    def item_at(self, index: int, col: int) -> bool:
        """Whether line ``index`` starts with a ``- `` at ``col`` (told without parsing it)."""
        raw = self.raw[index]
        return raw.startswith("-", col) and not raw[:col].strip(" ") and (len(raw) == col + 1
                                                                         or raw[col + 1] in " \t")

    def mapping_start(self, line: int, col: int) -> tuple[int, int | None, int | None]:
        """For a key at ``col`` on ``line``: the mapping's first line, the column of the ``- ``
        that starts it (None if it is not a sequence item) and the line of its parent key."""
        here = self.lines[line]
        if here.dashes and here.key_col == col:
            return line, here.dashes[-1], None
        first = line
        for index in range(line - 1, -1, -1):
            if self.deeper(index, col):
                continue
            other = self.lines[index]
            if other.blank or other.indent > col:
                continue
            if other.indent == col:
                if not other.dashes:  # dashes here are items of a sibling key's indentless sequence
                    first = index
                continue
            if other.dashes and other.key_col == col:
                return index, other.dashes[-1], None
            return first, None, index
        return first, None, None

    def mapping_keys(self, start: int, col: int, skip: int = -1) -> dict[str, int]:
        """The keys (and their lines) of the mapping at ``col`` that starts on ``start``."""
        keys: dict[str, int] = {}
        for index in range(start, len(self.lines)):
            if index != start and self.deeper(index, col):
                continue
            other = self.lines[index]
            if other.blank:
                continue
            if index == start:
                if other.key is not None and other.key_col == col and index != skip:
                    keys[other.key] = index
                continue
            if other.indent < col:
                break
            if other.indent == col and not other.dashes and other.key is not None and index != skip:
                keys.setdefault(other.key, index)
        return keys

    def sequence_parent(self, line: int, dash: int) -> int | None:
        """The line of the ``key:`` whose sequence has an item at ``dash`` on ``line``; TOP
        for a top-level sequence, None when the text says nothing sensible."""
        for index in range(line - 1, -1, -1):
            if self.deeper(index, dash) or self.item_at(index, dash):
                continue  # nested in an earlier item, or an earlier item of the same sequence
            other = self.lines[index]
            if other.blank:
                continue
            if other.key is not None and not other.value and other.key_col <= dash:
                return index
            return None
        return TOP if dash == 0 else None


def context(doc: Doc, line: int, col: int, top: str, skip: int = -1, depth: int = 0) -> Context:
    """The context of a key at ``col`` on ``line``. ``top`` is what a top-level sequence item
    is in this file ("play", "task" or "handler"); ``skip`` a line whose key is being typed."""
    start, dash, parent = doc.mapping_start(line, col)
    keys = doc.mapping_keys(start, col, skip)
    if depth > 64:
        return Context("other", keys)

    def action_text(key: str) -> str:
        return doc.lines[keys[key]].value

    if dash is not None:
        owner = doc.sequence_parent(start, dash)
        if owner is None:
            return Context("other", keys)
        if owner == TOP:
            return item_context(keys, None, top, lambda: Context("other", {}), action_text)
        above = doc.lines[owner]
        return item_context(keys, above.key or "", top,
                            lambda: context(doc, owner, above.key_col, top, depth=depth + 1), action_text)
    if parent is None:
        return Context("top", keys)
    above = doc.lines[parent]
    if above.value.startswith(("|", ">")):
        return Context("scalar", keys)
    if above.key is None or above.value:
        return Context("other", keys)
    return nested_context(keys, above.key, lambda: context(doc, parent, above.key_col, top, depth=depth + 1))


def top_kind_from_text(doc: Doc) -> str | None:
    """'play' when a top-level item has a key only plays have."""
    found = [line.key for line in doc.lines if line.key is not None and line.key_col == 2 and line.indent <= 2]
    return "play" if play_keys(found) else None

"""What every fix shares: text edits, the parsed file they are made on, and their verification.

A fix is a few minimal text edits computed from source positions, never a re-dump of the file:
every byte outside the edited ranges (comments, quoting, indentation, key order, blank lines)
stays as it was. Each fix also says what it does to the data (``expect``): the edited text
must parse, and parse to exactly the old data with that change, or the fix is not offered.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.parsing.source import parse_text
from engine.span import Span, YMap, YSeq


class Edit(NamedTuple):
    """Replace the text from (line, col) to (end_line, end_col) with ``new_text``. Lines and
    columns are 0-based and count code points, as :class:`engine.span.Span` does."""

    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str

    def start(self) -> tuple[int, int]:
        return (self.line, self.col)

    def end(self) -> tuple[int, int]:
        return (self.end_line, self.end_col)


@dataclass
class Fix:
    """One correction of one finding. ``safe`` fixes are applied by ``check --fix``; the others
    (several plausible corrections, a ``# noqa``) are only offered in the editor."""

    title: str
    edits: list[Edit]
    safe: bool
    expect: Callable[[Any], Any] = field(default=lambda data: data, repr=False)
    code: str = ""


class Source:
    """One file's text, its lines and (parsed on demand) its data with positions."""

    def __init__(self, text: str, path: str = "<fix>") -> None:
        self.text, self.path = text, path
        self.lines = text.split("\n")  # a "\r" stays at the end of its line
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._data: Any = None
        self._parsed = False

    @property
    def data(self) -> Any:
        """The parsed data (YMap/YSeq with spans), or None when the file does not parse."""
        if not self._parsed:
            loaded = parse_text(self.text, self.path)
            self._data, self._parsed = (None if loaded.error else loaded.data), True
        return self._data

    def line(self, number: int) -> str:
        """Line ``number`` without its line break."""
        return self.lines[number].rstrip("\r") if 0 <= number < len(self.lines) else ""

    def slice(self, span: Span | Edit) -> str:
        return self.text[self.offset(span.line, span.col):self.offset(span.end_line, span.end_col)]

    def offset(self, line: int, col: int) -> int:
        return sum(len(text) + 1 for text in self.lines[:line]) + col


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (in any order given)."""
    source = Source(text)
    result = text
    for edit in sorted(edits, key=Edit.start, reverse=True):
        start, end = source.offset(edit.line, edit.col), source.offset(edit.end_line, edit.end_col)
        result = result[:start] + edit.new_text + result[end:]
    return result


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether two edits touch the same text (two insertions at one point count as touching)."""
    return not (a.end() < b.start() or b.end() < a.start())


def plain(data: Any) -> Any:
    """Parsed data without positions, for comparing before and after."""
    if isinstance(data, dict):
        return {key: plain(value) for key, value in data.items()}
    if isinstance(data, list):
        return [plain(item) for item in data]
    return data


def verified(fix: Fix, source: Source) -> bool:
    """The edited text parses, to the old data changed as ``fix.expect`` says and no other way."""
    if source.data is None or not fix.edits:
        return False
    after = parse_text(apply_edits(source.text, fix.edits), source.path)
    if after.error is not None:
        return False
    try:
        expected = fix.expect(copy.deepcopy(plain(source.data)))
    except (KeyError, IndexError, TypeError, ValueError):
        return False
    return bool(plain(after.data) == expected)


# -- finding things in the parsed data --------------------------------------------------------
Path = tuple[Any, ...]


def _same(a: Span | None, b: Span) -> bool:
    return a is not None and (a.line, a.col, a.end_line, a.end_col) == (b.line, b.col, b.end_line, b.end_col)


def walk(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every mapping and sequence in ``data`` with its path from the root."""
    if isinstance(data, YMap | YSeq):
        yield path, data
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from walk(value, (*path, key))


def mapping_with(data: Any, span: Span, spans: str) -> tuple[Path, YMap, Any] | None:
    """The mapping whose key (``spans="key_spans"``) or value (``"value_spans"``) is at ``span``,
    its path and that key."""
    for path, node in walk(data):
        if isinstance(node, YMap):
            for key, at in getattr(node, spans).items():
                if _same(at, span):
                    return path, node, key
    return None


def value_at(data: Any, span: Span) -> tuple[Path, Any] | None:
    """The path of the value or sequence item written at ``span``."""
    for path, node in walk(data):
        if isinstance(node, YMap):
            for key, at in node.value_spans.items():
                if _same(at, span):
                    return (*path, key), node[key]
        else:
            for index, at in enumerate(node.item_spans):
                if _same(at, span):
                    return (*path, index), node[index]
    return None


def get(data: Any, path: Path) -> Any:
    for key in path:
        data = data[key]
    return data


def setter(path: Path, change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An ``expect`` that replaces the value at ``path`` with ``change(value)``."""

    def expect(data: Any) -> Any:
        if not path:
            return change(data)
        parent = get(data, path[:-1])
        parent[path[-1]] = change(parent[path[-1]])
        return data

    return expect


# -- writing scalars --------------------------------------------------------------------------
_PLAIN = re.compile(r"[A-Za-z0-9_(][^#:,\[\]{}\n\r\t]*")


def scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as that string anywhere (block or flow):
    plain when it can be, else double-quoted."""
    if _PLAIN.fullmatch(text) and text == text.strip():
        loaded = parse_text(f"[{text}]", "<scalar>")
        if loaded.error is None and plain(loaded.data) == [text]:
            return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))

"""Conversions between engine spans and LSP positions.

Engine spans are 0-based and count code points; LSP columns count UTF-16 code units unless
the client negotiated another position encoding. Lines are the same in both.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from lsprotocol import types

from engine.span import Span


def to_units(line: str, column: int, encoding: str = "utf-16") -> int:
    """A code-point column of ``line`` in the client's units."""
    prefix = line[:column]
    # surrogatepass: a lone surrogate (typed or pasted into a buffer) counts as one unit, not an error
    if encoding == "utf-8":
        return len(prefix.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(prefix)
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2


def from_units(line: str, units: int, encoding: str = "utf-16") -> int:
    """A client column of ``line`` as a code-point column."""
    if encoding == "utf-32":
        return units
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += len(char.encode("utf-8", "surrogatepass")) if encoding == "utf-8" else (2 if ord(char) > 0xFFFF else 1)
    return len(line)


def lsp_range(span: Span, lines: list[str], encoding: str = "utf-16") -> types.Range:
    """The LSP range of ``span`` in a document whose lines are ``lines``."""

    def position(line: int, col: int) -> types.Position:
        text = lines[line] if 0 <= line < len(lines) else ""
        return types.Position(line=max(line, 0), character=to_units(text, col, encoding))

    return types.Range(start=position(span.line, span.col), end=position(span.end_line, span.end_col))


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return uri
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return os.path.normpath(path)


def path_to_uri(path: str) -> str:
    from pathlib import Path

    return Path(os.path.abspath(path)).as_uri()

"""Splitting ``key=value`` argument strings as ansible does (``ansible.parsing.splitter``).

``msg="{{ item }}" other='a b'`` splits into ``msg="{{ item }}"`` and ``other='a b'``: words
are joined back together while a quote or a Jinja2 block (``{{ }}``, ``{% %}``, ``{# #}``) is
open, and newlines are kept. ``shlex`` cannot do this: it knows nothing of Jinja2.
"""

from __future__ import annotations

import codecs
import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HEXCHAR = "[a-fA-F0-9]"
_ESCAPE_SEQUENCE = (rf"""
    ( \\U{_HEXCHAR * 8}   # 8-digit hex escapes
    | \\u{_HEXCHAR * 4}   # 4-digit hex escapes
    | \\x{_HEXCHAR * 2}   # 2-digit hex escapes
    | \\N\{{[^}}]+\}}     # Unicode characters by name
    | \\[\\'"abfnrtv]     # Single-character escapes
    )""", re.UNICODE | re.VERBOSE)


class SplitError(ValueError):
    """Unbalanced quotes or Jinja2 blocks; the message is ansible's."""


@functools.cache
def _escape_sequence() -> re.Pattern[str]:
    return re.compile(*_ESCAPE_SEQUENCE)  # compiled when first needed: it is slow to compile


def _decode_escapes(text: str) -> str:
    return _escape_sequence().sub(lambda match: codecs.decode(match.group(0), "unicode-escape"), text)


def is_quoted(data: str) -> bool:
    return len(data) > 1 and data[0] == data[-1] and data[0] in "\"'" and data[-2] != "\\"


def unquote(data: str) -> str:
    """The string without its enclosing quotes, if the same quote starts and ends it."""
    return data[1:-1] if is_quoted(data) else data


def parse_kv(args: str, raw_keys: frozenset[str] | None = None) -> dict[str, Any]:
    """``key=value`` pairs of ``args``. With ``raw_keys`` (the free-form modules: command,
    shell, ...), only those keys are options and every other word goes to ``_raw_params``."""
    options: dict[str, Any] = {}
    raw_params: list[str] = []
    for original in split_args(args):
        word = _decode_escapes(original)
        if "=" not in word:
            raw_params.append(original)
            continue
        pos = _unescaped_equals(word)
        if pos is None:  # only escaped equals signs: a free-form word
            raw_params.append(word.replace("\\=", "="))
            continue
        key, value = word[:pos], word[pos + 1:]
        if raw_keys is not None and key not in raw_keys:
            raw_params.append(original)
        else:
            options[key.strip()] = unquote(value.strip())
    if raw_params:
        options["_raw_params"] = join_args(raw_params)
    return options


def _unescaped_equals(word: str) -> int | None:
    """The position of the first ``=`` not preceded by a backslash (never the first character)."""
    pos = 0
    while True:
        pos = word.find("=", pos + 1)
        if pos < 0:
            return None
        if word[pos - 1] != "\\":
            return pos


def join_args(words: list[str]) -> str:
    """The words back into one string, with the newlines and spaces ``split_args`` kept."""
    result = ""
    for word in words:
        result += word if not result or result.endswith("\n") else " " + word
    return result


def _quote_state(token: str, quote_char: str | None) -> str | None:
    """The quote still open after ``token`` (None if none), given the one open before it."""
    previous = None
    for index, char in enumerate(token):
        if index > 0:
            previous = token[index - 1]
        if char in "\"'" and previous != "\\":
            if quote_char:
                if char == quote_char:
                    quote_char = None
            else:
                quote_char = char
    return quote_char


def _depth(token: str, depth: int, opening: str, closing: str) -> int:
    opened, closed = token.count(opening), token.count(closing)
    return max(depth + opened - closed, 0) if opened != closed else depth


def split_args(args: str) -> list[str]:
    """Split on whitespace, keeping quoted strings and Jinja2 blocks whole (ansible's
    ``split_args``, including its handling of repeated spaces, newlines and ``\\`` line ends)."""
    if not args:
        return []
    params: list[str] = []
    quote_char: str | None = None
    inside_quotes = False
    print_depth = block_depth = comment_depth = 0
    lines = args.split("\n")
    for line_index, line in enumerate(lines):
        continued = False
        for index, token in enumerate(line.split(" ")):
            if not token and index != 0:  # repeated spaces are kept for the reassembly
                if not params:
                    params.append("")
                params[-1] += " "
                continue
            if token == "\\" and not inside_quotes:
                continued = True
                continue
            was_inside_quotes = inside_quotes
            quote_char = _quote_state(token, quote_char)
            inside_quotes = quote_char is not None
            in_block = bool(print_depth or block_depth or comment_depth)
            appended = False
            if inside_quotes and not was_inside_quotes and not in_block:
                params.append(token)
                appended = True
            elif in_block or inside_quotes or was_inside_quotes:
                if index == 0 and was_inside_quotes:
                    params[-1] += token
                else:
                    params[-1] += (" " if index > 0 else "") + token
                appended = True
            for opening, closing in (("{{", "}}"), ("{%", "%}"), ("{#", "#}")):
                before = (print_depth, block_depth, comment_depth)
                if opening == "{{":
                    print_depth = _depth(token, print_depth, opening, closing)
                elif opening == "{%":
                    block_depth = _depth(token, block_depth, opening, closing)
                else:
                    comment_depth = _depth(token, comment_depth, opening, closing)
                if (print_depth, block_depth, comment_depth) != before and not appended:
                    params.append(token)
                    appended = True
            if not (print_depth or block_depth or comment_depth) and not inside_quotes and not appended and token:
                params.append(token)
        if len(lines) > 1 and line_index != len(lines) - 1 and not continued:
            if not params:
                params.append("")
            params[-1] += "\n"
    if print_depth or block_depth or comment_depth or inside_quotes:
        raise SplitError(f"failed at splitting arguments, either an unbalanced jinja2 block or quotes: {args}")
    return params

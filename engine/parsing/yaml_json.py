"""JSON text read as ansible reads it: as JSON, with positions.

ansible-core's loader (``ansible.parsing.utils.yaml.from_yaml``) tries ``json.loads`` before
YAML, for playbooks, vars files and inventories alike, so a text that is JSON has JSON's values,
not YAML 1.1's: ``1e3`` is the float 1000.0 (a string to YAML 1.1), ``NaN`` is a float, escaped
surrogate pairs make one character, and ``{"__ansible_unsafe": "..."}`` /
``{"__ansible_vault": "..."}`` are an unsafe and a vaulted string (its legacy JSON profile).

The C JSON scanner reads each string and number; the walk around it keeps the positions
(:class:`YMap`/:class:`YSeq` with the spans the YAML path gives), and is also several times faster
than composing YAML nodes: an export of 20,000 job templates (17 MB) is mostly this. A text
``json.loads`` refuses (not JSON, a control character in a string, extra data) returns ``None``
and the YAML path reads it, as ansible's loader then does; so does one that ansible's JSON
profile would treat in a way not followed here (``__ansible_type``, an unpaired surrogate).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from json.decoder import scanstring

from engine.span import Span, YMap, YSeq
from engine.values import UnsafeText, VaultText

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# where lines start, as editors count them (LSP: "\n", "\r\n" and a lone "\r" end a line)
_LINE_END = re.compile("\r\n?|\n")
_BLANK = frozenset(" \t\n\r")
_scan_scalar = json.scanner.make_scanner(json.JSONDecoder())  # numbers and literals, as json.loads
_new_span = tuple.__new__  # Span's fields in order, without NamedTuple's generated __new__


class _NotPlainJson(Exception):
    """The text is not JSON this reader takes; the YAML path reads it instead."""


def parse_json(text: str, file: str) -> Any | None:
    """The positioned value of a JSON text as ansible loads it, or None when the YAML path
    must read it."""
    line_starts = [0, *(match.end() for match in _LINE_END.finditer(text))]
    reader = _Reader(text, file, line_starts, bool(_SURROGATE_ESCAPE.search(text)))
    try:
        value, _span, end = reader.item(_SPACE.match(text).end())
    except (_NotPlainJson, ValueError, RecursionError, IndexError, StopIteration):
        return None
    if _SPACE.match(text, end).end() != len(text):
        return None  # more after the value: json.loads refuses it, YAML decides what it is
    return value


class _Reader:
    """The walk. Hot: a 17 MB export has over a million values, so spans are made inline (a
    string or number is on one line in JSON) and whitespace is skipped only where there is any."""

    def __init__(self, text: str, file: str, line_starts: list[int], surrogates: bool) -> None:
        self.text, self.file, self.line_starts = text, file, line_starts
        self.surrogates = surrogates  # escaped ones in the text: a string may keep an unpaired one

    def string(self, start: int) -> tuple[str, int]:
        value, end = scanstring(self.text, start + 1, True)
        if self.surrogates and _SURROGATE.search(value):
            raise _NotPlainJson  # ansible's profile refuses a string UTF-8 cannot encode
        return value, end

    def span(self, start: int, end: int) -> Span:
        line_starts = self.line_starts
        line = bisect_right(line_starts, start) - 1
        end_line = bisect_left(line_starts, end + 1) - 1  # an end may sit on the newline it stops before
        return _new_span(Span, (self.file, line, start - line_starts[line], end_line, end - line_starts[end_line]))

    def item(self, start: int) -> tuple[Any, Span, int]:
        """The value at ``start``, its span (a collection's own, made once) and where it ends."""
        text = self.text
        char = text[start]
        if char == '"':
            value, end = self.string(start)
        elif char == "[":
            value, end = self.sequence(start)
            return value, value.span, end
        elif char == "{":
            value, end = self.mapping(start)
            if type(value) is YMap:
                return value, value.span, end
            return value, self.span(start, end), end  # an object ansible reads as an unsafe or vaulted string
        else:
            value, end = _scan_scalar(text, start)  # StopIteration where there is no JSON value
        line_starts = self.line_starts
        line = bisect_right(line_starts, start) - 1
        line_start = line_starts[line]
        return value, _new_span(Span, (self.file, line, start - line_start, line, end - line_start)), end

    def sequence(self, start: int) -> tuple[YSeq, int]:
        text, space, item = self.text, _SPACE.match, self.item
        result = YSeq()
        append, append_span = result.append, result.item_spans.append
        at = space(text, start + 1).end()
        if text[at] == "]":
            at += 1
        else:
            while True:
                value, span, at = item(at)
                append(value)
                append_span(span)
                if text[at] in _BLANK:
                    at = space(text, at).end()
                if text[at] == ",":
                    at = space(text, at + 1).end()
                elif text[at] == "]":
                    at += 1
                    break
                else:
                    raise _NotPlainJson
        result.span = self.span(start, at)
        return result, at

    @staticmethod
    def tagged(result: YMap) -> Any:
        """What ansible's legacy JSON profile makes of an object with one of its type keys."""
        unsafe, vault = result.get("__ansible_unsafe"), result.get("__ansible_vault")
        if "__ansible_type" not in result and (type(unsafe) is str) != (type(vault) is str):
            return UnsafeText(unsafe) if type(unsafe) is str else VaultText(vault)
        raise _NotPlainJson  # a serialized type, or a value the profile refuses: not followed here

    def mapping(self, start: int) -> tuple[Any, int]:
        text, space, item, file, line_starts = self.text, _SPACE.match, self.item, self.file, self.line_starts
        result = YMap()
        key_spans, value_spans = result.key_spans, result.value_spans
        at = space(text, start + 1).end()
        if text[at] == "}":
            at += 1
        else:
            while True:
                if text[at] != '"':
                    raise _NotPlainJson
                key, key_end = self.string(at)
                line = bisect_right(line_starts, at) - 1
                line_start = line_starts[line]
                key_span = _new_span(Span, (file, line, at - line_start, line, key_end - line_start))
                at = key_end if text[key_end] not in _BLANK else space(text, key_end).end()
                if text[at] != ":":
                    raise _NotPlainJson
                value, span, at = item(space(text, at + 1).end())
                result[key] = value
                key_spans.setdefault(key, key_span)  # a key given again keeps its first place, as in YAML
                value_spans[key] = span
                if text[at] in _BLANK:
                    at = space(text, at).end()
                if text[at] == ",":
                    at = space(text, at + 1).end()
                elif text[at] == "}":
                    at += 1
                    break
                else:
                    raise _NotPlainJson
        result.span = self.span(start, at)
        if "__ansible_unsafe" in result or "__ansible_vault" in result or "__ansible_type" in result:
            return self.tagged(result), at
        return result, at

"""YAML 1.1 plain scalars resolved as PyYAML's SafeLoader resolves them, so as ansible-core sees them.

A plain (untagged, unquoted) scalar is null, a bool, an int, a float, a timestamp or the text itself;
:func:`plain_value` decides which, lazily, for :mod:`engine.parsing.yaml_compose`.
"""

from __future__ import annotations

import re

from engine.lazy_regex import LazyRegex
from engine.values import YamlTimestamp, timestamp_moment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BOOL = {
    "yes": True, "Yes": True, "YES": True, "no": False, "No": False, "NO": False,
    "true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False,
    "on": True, "On": True, "ON": True, "off": False, "Off": False, "OFF": False,
}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = LazyRegex(
    r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0[0-7_]+
        |[-+]?(?:0|[1-9][0-9_]*)
        |[-+]?0x[0-9a-fA-F_]+
        |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_FLOAT = LazyRegex(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
    re.X,
)
# PyYAML's implicit resolver for timestamps: a plain scalar that matches is one (a date needs two-digit
# month and day, a time its seconds), built as ansible builds it or failing where it fails.
_IMPLICIT_TIMESTAMP = LazyRegex(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)
PLAIN = "!plain"
COLLECTION_TAGS = frozenset(f"tag:yaml.org,2002:{kind}" for kind in ("set", "omap", "pairs"))
STR = "tag:yaml.org,2002:str"


def int_value(text: str) -> int:
    text = text.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    if text[:1] in "+-":
        text = text[1:]
    if text == "0":
        return 0
    if text.startswith("0b"):
        return sign * int(text[2:], 2)
    if text.startswith("0x"):
        return sign * int(text[2:], 16)
    if text.startswith("0"):
        return sign * int(text, 8)
    if ":" in text:
        value = 0
        for part in text.split(":"):
            value = value * 60 + int(part)
        return sign * value
    return sign * int(text)


def float_value(text: str) -> float:
    text = text.replace("_", "").lower()
    sign = -1.0 if text.startswith("-") else 1.0
    if text[:1] in "+-":
        text = text[1:]
    if text == ".inf":
        return sign * float("inf")
    if text == ".nan":
        return float("nan")
    if ":" in text:
        value = 0.0
        for part in text.split(":"):
            value = value * 60 + float(part)
        return sign * value
    return sign * float(text)


_SPECIAL: dict[str, bool | None] = {**dict.fromkeys(_NULL), **_BOOL}
_MISSING = object()


def plain_value(text: str) -> Any:
    """What an untagged plain scalar is: null, a bool, a number or the text itself."""
    special = _SPECIAL.get(text, _MISSING)
    if special is not _MISSING:
        return special
    if text == "=":  # PyYAML resolves it to tag:yaml.org,2002:value, which nothing constructs
        raise ValueError("could not determine a constructor for the tag 'tag:yaml.org,2002:value'")
    first = text[0]
    if first.isdigit() or first in "+-.":
        if _INT.match(text):
            return int_value(text)
        if _FLOAT.match(text):
            return float_value(text)
        if _IMPLICIT_TIMESTAMP.match(text):
            timestamp_moment(text)  # a 13th month fails as in PyYAML
            return YamlTimestamp(text)
    return text

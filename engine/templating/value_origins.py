"""Where a value a template gives back is written, as ansible 2.19's Origin tags have it.

A template's result keeps the tag of what it gives back unchanged (a variable's value, named
alone or through ``default()``); anything else it builds gets the template's own origin
(``TemplateEngine._post_render_mutation``). A broken conditional names that origin, and set_fact
stores the value with it, so a later conditional on the fact names it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from engine.templating.errors import CallFailure, value_origin
from engine.templating.template_syntax import conditional_expression

_DEFAULTED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*(?:default|d)\s*\(\s*([^()]*?)\s*\)\s*")

# "and" / "or" between two operands, outside brackets and quotes (_operands finds where)
_JOIN = re.compile(r"\s+(and|or)\s+")
# an operand whose value is certainly a boolean: a comparison, a test, a negation, a literal
_BOOLEAN = re.compile(r"==|!=|<|>|\bin\b|\bis\b|^not\b|^(?:true|false|True|False)$")

# a name in parentheses of its own (``(a) or (b)``), not a call's argument (``f(a)``)
_BRACKETED_NAME = re.compile(r"(?<![\w)\]])\(\s*([A-Za-z_]\w*)\s*\)")

OriginOf = Callable[[str, bool], Any]


def _operands(text: str) -> tuple[set[str], list[str]]:
    """The operators and operands of ``a and b == 'x' and c`` at the top level (outside brackets
    and quotes); no operator for an expression that is no such chain."""
    operators: set[str] = set()
    parts, depth, quote, start, index = [], 0, "", 0, 0
    while index < len(text):
        char = text[index]
        if quote:
            index += 2 if char == "\\" else 1
            quote = "" if char == quote else quote
            continue
        if char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and (join := _JOIN.match(text, index)):
            parts.append(text[start:index].strip())
            operators.add(join.group(1))
            index = start = join.end()
            continue
        index += 1
    return operators, [*parts, text[start:].strip()]


def _top_level(operand: str) -> str:
    """``operand`` without its quoted strings and bracketed parts."""
    operand = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", operand)
    while (shorter := re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", operand)) != operand:
        operand = shorter
    return operand


def _chain_origin(operator: str, operands: list[str], variables: Mapping[str, Any], origin_of: OriginOf) -> Any:
    """The origin of the operand ``a and b ...`` (the first false one, else the last) or
    ``a or b ...`` (the first true one, else the last) gives back, for a chain whose value is no
    boolean: an operand that is certainly one (``b == 'x'``) did not end the chain, else the
    value would be that boolean. None when an operand ansible may have given back is neither a
    variable nor certainly a boolean, or cannot be read."""
    wanted = operator == "or"  # the truth that stops the chain
    try:
        for index, operand in enumerate(operands):
            operand = _unwrapped(operand)
            last = index == len(operands) - 1
            if _BOOLEAN.search(_top_level(operand)):
                if last:
                    return None
                continue
            if not operand.isidentifier():
                return None
            if last or bool(variables[operand]) is wanted:
                return origin_of(operand, True)
    except Exception:  # noqa: BLE001 - an operand that fails to read: the rendering said so already
        return None
    return None


def expression_origin(text: str, variables: Mapping[str, Any], origin_of: OriginOf | None) -> Any:
    """The origin of the value of the bare expression ``text``: that of the variable it gives
    back (``NAME``; ``NAME | default(OTHER)``: NAME when defined, else OTHER when a variable);
    None when the expression builds its value or the variable's origin is not known."""
    if origin_of is None:
        return None
    text = _unwrapped(_BRACKETED_NAME.sub(r"\1", text).strip())
    if text.isidentifier():
        return origin_of(text, True)
    operators, operands = _operands(text)
    if operators:
        return _chain_origin(operators.pop(), operands, variables, origin_of) if len(operators) == 1 else None
    match = _DEFAULTED.fullmatch(text)
    if match is None:
        return None
    name, fallback = match.group(1), match.group(2)
    if name in variables:
        return origin_of(name, True)
    return origin_of(fallback, True) if fallback.isidentifier() and fallback in variables else None


_KEYS = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def given_back(text: str, variables: Mapping[str, Any]) -> str | None:
    """The variable (``NAME`` or ``NAME.KEY...``) whose value the bare expression ``text`` gives
    back as it is, through ``default(OTHER)`` too; None when it builds another value."""
    text = _unwrapped(text.strip())
    if _KEYS.fullmatch(text):
        return text
    match = _DEFAULTED.fullmatch(text)
    if match is None:
        return None
    name, fallback = match.group(1), match.group(2)
    return name if name in variables else fallback if fallback.isidentifier() and fallback in variables else None


def _unwrapped(text: str) -> str:
    """``text`` without the parentheses around it all (``(a or b)`` is ``a or b``)."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for index, char in enumerate(text):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and index < len(text) - 1:
                return text  # the first parenthesis closes before the end: (a) or (b)
        text = text[1:-1].strip()
    return text


def set_fact_origins(raw_args: Mapping[str, Any], task_data: Any, variables: Mapping[str, Any],
                     origin_of: OriginOf | None, absolute: Callable[[str], str]) -> dict[str, Any]:
    """The origin of each value set_fact sets from ``raw_args`` (as written): the variable's
    that a one-expression template gives back, else where the value is written in the task
    (``task_data``, the task as loaded; ``absolute`` makes its file a full path), else None."""
    spans: dict[str, Any] = {}
    if isinstance(task_data, Mapping):  # the action's own mapping wins over args:
        for key in sorted(task_data, key=lambda key: key != "args"):
            if key == "args" or str(key).rpartition(".")[2] == "set_fact":
                spans.update(getattr(task_data[key], "value_spans", {}) or {})
    origins: dict[str, Any] = {}
    for name, raw in raw_args.items():
        origin = None
        if isinstance(raw, str) and (text := conditional_expression(raw)) != raw.strip():
            origin = expression_origin(text, variables, origin_of)
        if origin is None and name in spans:
            span = spans[name]
            origin = span._replace(file=absolute(span.file))
        origins[str(name)] = origin
    return origins


def failed_at(exc: BaseException, container: Any, place: Any) -> None:
    """Give ``exc``, raised templating ``container[place]``, that value's place as written for its
    origin when nothing inside it had one: ansible's error names the innermost template it rendered
    (a call's error, which no template wraps, has none: errors.CallFailure)."""
    if isinstance(exc, CallFailure):
        return
    if value_origin(exc) is None and (span := item_span(container, place)) is not None:
        exc.value_origin = span  # type: ignore[attr-defined]


def item_span(container: Any, place: Any) -> Any:
    """Where ``container[place]`` is written (a loaded list's or mapping's item), if known."""
    spans = getattr(container, "value_spans" if isinstance(container, dict) else "item_spans", None)
    if not spans:
        return None
    if isinstance(spans, dict):
        return spans.get(place)
    return spans[place] if isinstance(place, int) and 0 <= place < len(spans) else None

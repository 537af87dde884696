"""A ``when`` condition decided before the run when it can be: in three values.

Some of a condition's operands need what only the run knows (a registered result, a gathered
fact); the others may already decide it: ``a and b`` with ``a`` false is false whatever ``b``
is. :func:`parse` splits a condition at its top-level ``or``, ``and`` and ``not`` (Jinja's
precedence: ``or`` below ``and`` below ``not``, which binds looser than a comparison or a test)
into operands kept as the text they are written as; :func:`decide` evaluates them left to right
as Jinja does (``and``/``or`` give back an operand, short-circuiting), asking the caller for the
value of each operand it reaches. An operand the caller cannot know is :class:`Unknown`, taken to
be a boolean (a test or a comparison, as run-time operands of a condition almost always are).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.templating.errors import RunTimeOnly


@dataclass(frozen=True)
class Expr:
    """``op`` is ``or``, ``and``, ``not`` or ``operand``; ``text`` is the source it covers."""

    op: str
    text: str
    parts: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Unknown:
    """A value only the run knows; ``truthy`` when its truth is decided anyway (``u or true``)."""

    reason: str
    truthy: bool | None = None


class OperandFailure(Exception):
    """Evaluating an operand fails (an undefined variable, a filter error): ansible fails the task
    if the run gets to evaluate it."""


def operand_failure(exc: Exception) -> OperandFailure | Unknown:
    """What an operand's failure to evaluate before the run is: what stops ansible too (an
    undefined variable, a non-boolean result, a filter failing, values that do not compare) fails
    the host; anything else a static templar refuses (a value only the run knows, a lookup, a value
    too large to evaluate) is an operand the run knows, which the others may still decide. The plan
    (engine.flow.host_outcome) and ``vars`` (engine.variables.failing.three_valued) both ask here."""
    from engine.templating.errors import ansible_fails_too

    message = str(exc)
    if ansible_fails_too(exc) or "Conditionals must have a boolean result" in message:
        return OperandFailure(message)
    return Unknown(message)


_OPENING = {"(": ")", "[": "]", "{": "}"}


@lru_cache(maxsize=4096)
def parse(text: str) -> Expr:
    """The condition's top-level boolean structure; an operand when it has none or cannot be
    split with certainty (a conditional expression, a syntax the lexer refuses)."""
    from jinja2.exceptions import TemplateSyntaxError

    from engine.templating.templar import parsing_environment

    try:
        tokens = [(kind, value) for _line, kind, value in parsing_environment().lexer.tokeniter("{{ " + text + " }}",
                                                                                               None)]
    except TemplateSyntaxError:
        return Expr("operand", text.strip())
    return _split(tokens[1:-1])


def _split(tokens: list[tuple[str, str]]) -> Expr:
    tokens = _trimmed(tokens)
    text = "".join(value for _kind, value in tokens)
    depth_zero = _top_level(tokens)
    if any(tokens[i] == ("name", "if") for i in depth_zero):
        return Expr("operand", text)  # `a or b if c else d`: a conditional expression, kept whole
    for op in ("or", "and"):
        cuts = [i for i in depth_zero if tokens[i] == ("name", op)]
        if cuts:
            bounds = [-1, *cuts, len(tokens)]
            parts = tuple(_split(tokens[a + 1:b]) for a, b in zip(bounds, bounds[1:], strict=False))
            # `a and` does not parse: evaluated whole, it fails as ansible's evaluation does
            return Expr(op, text, parts) if all(part.text for part in parts) else Expr("operand", text)
    if len(tokens) > 1 and tokens[0] == ("name", "not"):
        return Expr("not", text, (_split(tokens[1:]),))
    if tokens and tokens[0] == ("operator", "(") and _closing(tokens, 0) == len(tokens) - 1:
        inner = _split(tokens[1:-1])
        return inner if inner.op != "operand" else Expr("operand", text)
    return Expr("operand", text)


def _trimmed(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    start, end = 0, len(tokens)
    while start < end and tokens[start][0] == "whitespace":
        start += 1
    while end > start and tokens[end - 1][0] == "whitespace":
        end -= 1
    return tokens[start:end]


def _top_level(tokens: list[tuple[str, str]]) -> list[int]:
    """Indexes of the tokens outside every bracket."""
    found, depth = [], 0
    for index, (kind, value) in enumerate(tokens):
        if kind == "operator" and value in _OPENING:
            depth += 1
        elif kind == "operator" and value in _OPENING.values():
            depth -= 1
        elif depth == 0:
            found.append(index)
    return found


def _closing(tokens: list[tuple[str, str]], start: int) -> int:
    depth = 0
    for index in range(start, len(tokens)):
        kind, value = tokens[index]
        if kind == "operator" and value in _OPENING:
            depth += 1
        elif kind == "operator" and value in _OPENING.values():
            depth -= 1
            if depth == 0:
                return index
    return -1


def _with_known_truth(value: Any) -> Any:
    """``value``, or :class:`Unknown` where even whether it is truthy is the run's (a value of
    which only the run gives the length)."""
    if isinstance(value, Unknown):
        return value
    try:
        bool(value)
    except RunTimeOnly as exc:
        return Unknown(str(exc))
    return value


def decide(expr: Expr, operand: Callable[[str], Any]) -> Any:
    """The value of ``expr`` (an operand's value as Jinja would give it), or :class:`Unknown`.
    ``operand`` gives an operand's value, :class:`Unknown`, or raises :class:`OperandFailure`;
    a failure the run may never reach (after an unknown operand) makes the result unknown."""
    if expr.op == "operand":
        return _with_known_truth(operand(expr.text))
    if expr.op == "not":
        value = decide(expr.parts[0], operand)
        if isinstance(value, Unknown):
            return value if value.truthy is None else Unknown(value.reason, not value.truthy)
        return not value
    stops_on = expr.op == "or"  # `or` stops at a truthy operand, `and` at a falsy one
    unknown: Unknown | None = None
    value: Any = None
    for part in expr.parts:
        try:
            value = decide(part, operand)
        except OperandFailure as failure:
            if unknown is None:
                raise
            return Unknown(f"{unknown.reason}; then {failure}")
        truth = value.truthy if isinstance(value, Unknown) else bool(value)
        if truth is None:
            unknown = unknown or value
        elif truth is stops_on:
            if unknown is None:
                return value
            # the result is the unknown operand or this one: its truth is known only if both are
            # booleans (a non-boolean result is an error in a condition)
            return Unknown(unknown.reason, stops_on if isinstance(value, bool | Unknown) else None)
    return value if unknown is None else Unknown(unknown.reason)

"""A condition decided in three values (engine.flow.conditions): split at its top-level boolean
operators only, evaluated left to right with Jinja's short-circuits."""

from __future__ import annotations

import pytest

from engine.flow.conditions import OperandFailure, Unknown, decide, parse


def shape(text: str) -> object:
    expr = parse(text)

    def walk(e: object) -> object:
        return e.text if e.op == "operand" else (e.op, *[walk(p) for p in e.parts])  # type: ignore[attr-defined]

    return walk(expr)


@pytest.mark.parametrize(("text", "expected"), [
    ("a and b or c", ("or", ("and", "a", "b"), "c")),
    ("not a == b", ("not", "a == b")),
    ("x is not defined", "x is not defined"),
    ("a not in b and c", ("and", "a not in b", "c")),
    ("(a or b) | bool", "(a or b) | bool"),
    ("((a and b))", ("and", "a", "b")),
    ("a or b if c else d", "a or b if c else d"),
    ("'x and y' in s or f(a, b and c)", ("or", "'x and y' in s", "f(a, b and c)")),
    ("a and", "a and"),  # the lexer takes it; the operand is evaluated (and refused) whole
])
def test_split_at_top_level_operators_only(text: str, expected: object) -> None:
    assert shape(text) == expected


VALUES = {"t": True, "f": False, "s": "text", "bad": OperandFailure("'bad' is undefined")}


def operand(text: str) -> object:
    value = VALUES.get(text, Unknown(f"needs {text}"))
    if isinstance(value, OperandFailure):
        raise value
    return value


@pytest.mark.parametrize(("text", "truth"), [
    ("u and f", False), ("f and u", False), ("u or t", True), ("t or u", True),
    ("not (u and f)", True), ("u and t", None), ("u or f", None), ("not u", None),
    ("u or s", None),  # `u` false gives "text": not a boolean, so not decided either way
])
def test_known_operands_decide_around_unknown_ones(text: str, truth: bool | None) -> None:
    value = decide(parse(text), operand)
    assert (value.truthy if isinstance(value, Unknown) else bool(value)) is truth


def test_and_or_give_back_an_operand_as_jinja_does() -> None:
    assert decide(parse("t and s"), operand) == "text"
    assert decide(parse("f or s"), operand) == "text"


def test_a_failure_the_run_reaches_for_certain_is_raised() -> None:
    with pytest.raises(OperandFailure):
        decide(parse("t and bad"), operand)
    assert decide(parse("f and bad"), operand) is False  # never evaluated


def test_a_failure_after_an_unknown_operand_is_unknown() -> None:
    value = decide(parse("u and bad"), operand)
    assert isinstance(value, Unknown) and value.truthy is None and "bad" in value.reason


class _LengthOnlyTheRunKnows:
    def __len__(self) -> int:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly("the value's length is known only at run time")


@pytest.mark.parametrize("text", ["not x", "x", "x and t", "f or x"])
def test_an_operand_whose_truth_only_the_run_knows_is_unknown(text: str) -> None:
    """Not a traceback: a value of which only the run gives the length has an unknown truth."""
    result = decide(parse(text), lambda name: _LengthOnlyTheRunKnows() if name == "x" else VALUES[name])
    assert isinstance(result, Unknown) and "only at run time" in result.reason

"""INI values: the shortcut for names and decimal numbers answers what literal_eval does."""

from __future__ import annotations

import ast
import itertools

from engine.inventory.ini import _coerce, parse_value


def slow(text: str) -> object:
    try:
        return _coerce(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def test_names_and_numbers_read_as_literal_eval_reads_them() -> None:
    alphabet = ["0", "1", "7", "a", "_", "r", "T", "e", "x", "."]
    texts = ["".join(chars) for size in (1, 2, 3) for chars in itertools.product(alphabet, repeat=size)]
    texts += ["True", "False", "None", "if", "lambda", "__debug__", "007", "0", "00", "1_000", "0x1f", "1e3",
              "é", "²", "١٢", "web01", "10.0.0.1", "-1", " 1", "r0", "nan", "inf"]
    for text in texts:
        fast, expected = parse_value(text), slow(text)
        assert (type(fast), fast) == (type(expected), expected), text

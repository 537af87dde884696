"""A list of plain strings (a fleet's host names, read on each of its hosts) is finalized and
measured at once, with the answers the item-by-item walk gives."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from engine.templating.bounds import text_size
from engine.templating.finalize import finalized
from engine.values import OMIT_TOKEN


def _size_item_by_item(value: object) -> int:
    """text_size's count with no limit, as it counts each item of a list."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, int):
        return value.bit_length() // 3 + 2
    if isinstance(value, list | tuple):
        return 2 + 2 * len(value) + sum(map(_size_item_by_item, value))
    raise AssertionError(value)


@pytest.mark.parametrize("value", [
    ["h1", "host-0002", ""],
    ("a", "bc"),
    [["a", "b"], ["c"], "d", 7],
    [[f"host-{n:04}" for n in range(2000)], ["x"]],
    [],
])
def test_a_list_of_strings_is_measured_as_item_by_item(value: object) -> None:
    assert text_size(value, 10**9) == _size_item_by_item(value)


def test_a_list_past_the_limit_is_past_it() -> None:
    names = [f"host-{n:04}" for n in range(2000)]
    assert text_size(names, 100) > 100
    assert text_size(names, _size_item_by_item(names)) == _size_item_by_item(names)


def test_a_list_of_plain_strings_is_kept_as_it_is() -> None:
    names = [f"host-{n:04}" for n in range(2000)]
    assert finalized(names, top_level=True) is names


@pytest.mark.parametrize(("value", "expected"), [
    (["a", Markup("<b>")], ["a", "<b>"]),
    (["a", OMIT_TOKEN, "b"], ["a", "b"]),
    (["a", ("b", "c")], ["a", ["b", "c"]]),
])
def test_a_list_holding_anything_else_is_finalized_item_by_item(value: list[object], expected: object) -> None:
    result = finalized(value)
    assert result == expected
    assert all(type(item) is not Markup for item in result)

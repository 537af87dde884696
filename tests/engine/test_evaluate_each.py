"""A loop's condition evaluated for every item in one rendering (Templar.evaluate_each) gives, item
by item, what Templar.evaluate gives that item alone: the same boolean, or None where the item
alone must say (a non-boolean result, an error, an expression that needs a rendering per item)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.templating.templar import Templar, TemplateFailure

VARIABLES = {"host": "web1", "limit": 3, "names": ["a", "b", "web1"], "flag": True, "text": "web1-db",
             "nested": {"k": [1, 2]}, "templated": "{{ limit + 1 }}"}

CONDITIONS = [
    "item != host",
    "item == host",
    "item in names",
    "item | int > limit",
    "item is string and item is search('1$')",
    "item is match('w')",
    "idx > 1 and item != host",
    "ansible_loop.first or item == 'b'",
    "item",  # a boolean item passes, anything else is not a boolean result
    "item | length > 1",
    "undefined_name == item",  # undefined: each item alone tells
    "item.k is defined",
    "templated | int > item | int",
    "vars['item'] == 'a'",  # vars sees the item only in a rendering of its own
    "lookup('vars', 'item') == 'a'",
    "{{ item == 'a' }}",
    "item ~ 'x' == 'ax'",
    "flag and item != 'b'",
    "(item | int) / 0 > 1",  # an error in some items only
]

ITEMS = st.lists(st.one_of(st.sampled_from(["a", "b", "web1", "c1", "", "3", "10"]), st.integers(-2, 12),
                           st.booleans(), st.none(), st.just({"k": 1}), st.just([1])), max_size=6)


def alone(templar: Templar, condition: str, scope: dict[str, Any]) -> bool | None:
    try:
        return templar.child(scope).evaluate(condition)
    except TemplateFailure:
        return None


def scopes_of(items: list[Any]) -> list[dict[str, Any]]:
    return [{"item": item, "idx": index, "ansible_loop_var": "item",
             "ansible_loop": {"first": index == 0, "index0": index}} for index, item in enumerate(items)]


@pytest.mark.parametrize("condition", CONDITIONS)
@settings(max_examples=25, deadline=None)
@given(items=ITEMS)
def test_each_item_as_alone(condition: str, items: list[Any]) -> None:
    for bounded in (False, True):
        templar = Templar(VARIABLES, bounded=bounded)
        scopes = scopes_of(items)
        together = templar.evaluate_each(condition, scopes)
        assert len(together) == len(items)
        for scope, value in zip(scopes, together, strict=True):
            if value is not None:  # None: "evaluate this one alone", never a claim
                assert value is alone(templar, condition, scope), (condition, scope)


def test_one_rendering_decides_a_plain_loop() -> None:
    """The fast path is taken where it should be: every item of a plain comparison is decided."""
    scopes = scopes_of(["a", "web1", "b"])
    assert Templar(VARIABLES, bounded=True).evaluate_each("item != host", scopes) == [True, False, True]
    assert Templar(VARIABLES).evaluate_each("idx > 0 and item in names", scopes) == [False, True, True]


def test_names_that_need_a_rendering_per_item_are_left_to_it() -> None:
    scopes = scopes_of(["a"])
    assert Templar(VARIABLES).evaluate_each("vars['item'] == 'a'", scopes) == [None]
    assert Templar(VARIABLES).evaluate_each("loop.index == 1", scopes) == [None]

"""What a task looping over a list whose order only the run knows (a list ansible makes from a set
of strings, :class:`engine.values.RunOrdered`) sets, when that does not depend on the order: the
task is followed with its items in every order they can come in (up to :data:`MAX_ITEMS` items);
a value all orders agree on is known, a list they give in different orders of the same items is a
run-ordered list (its length and members known, shown whole unknown); anything else, and a loop
of more items, is the run's. Every order, not a sample of them: a value some orders agree on may
still read a position the others would show (``item == 'a'`` at the second place)."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import permutations
from typing import Any

from engine.values import RunOrdered

MAX_ITEMS = 4
"""Items of a run-ordered loop followed in all their orders (4! = 24 follows); more are the run's."""


def every_order(items: list[Any]) -> list[list[int]] | None:
    """Every order the items can come in (as given first), None when there are too many to follow."""
    if len(items) > MAX_ITEMS:
        return None
    return [list(order) for order in permutations(range(len(items)))]


def order_free_effects(run: Callable[[list[int]], Any], orders: list[list[int]] | None, why: str) -> Any:
    """``run``'s effects (engine.variables.task_results.Effects: the task followed with its items in an
    order) when every one of ``orders`` (:func:`every_order`) agrees on them but for the order of
    lists (those become run-ordered lists saying ``why``); None when what the task sets depends on
    the order, or the orders are too many to follow."""
    if orders is None:
        return None
    found = [run(order) for order in orders]
    first = found[0]
    for other in found[1:]:
        if first.changed != other.changed or first.delegated_to != other.delegated_to or \
                [layer.label for layer in first.included] != [layer.label for layer in other.included] or \
                any(dict(a.values) != dict(b.values) for a, b in zip(first.included, other.included, strict=True)):
            return None
        if [layer.label for layer in first.facts] != [layer.label for layer in other.facts] or \
                set(first.delegated_each or {}) != set(other.delegated_each or {}):
            return None
        each, others = first.delegated_each or {}, other.delegated_each or {}
        pairs = [*zip(first.facts, other.facts, strict=True), *((each[k], others[k]) for k in each)]
        for mine, theirs in pairs:
            if set(mine.values) != set(theirs.values):
                return None
            for name, value in mine.values.items():
                agreed = _agreed(value, theirs.values[name], why)
                if agreed is None:
                    return None
                mine.values[name] = agreed
    return first


def _agreed(one: Any, other: Any, why: str) -> Any:
    """``one`` where ``other`` is equal; a run-ordered list where both are lists of the same items
    in other orders; None when they differ otherwise (or cannot be compared)."""
    if type(one) is type(other) and one == other and _plain(one):
        return one
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other) and _plain(one) and _plain(other):
        if sorted(map(_key, one)) == sorted(map(_key, other)):
            made = RunOrdered(one)
            made.why = getattr(one, "why", None) or why
            return made
    return None


def _plain(value: Any) -> bool:
    """Whether ``value`` is plain data (no value only the run knows inside it)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True) + type(item).__name__

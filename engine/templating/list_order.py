"""Which filters read the order of a list: what the per-host model knows of a list whose order
only the run knows (engine.templating.run_order: a set-like filter's list, ordered by the string
hash each process seeds anew).

Jinja's ``sort``, ``min``, ``max`` and ansible's ``unique`` compare strings without case unless
told ``case_sensitive``, or items by an ``attribute``: of two different items that compare equal
(``'A'`` and ``'a'``; two hosts with the same ``port``), ``sort`` keeps them in the order given,
``min``/``max`` take the first and ``unique`` keeps the first, so their result is the order's
whenever such items meet (ansible-core 2.19: ``['a', 'A'] | unique`` is ``['a']``, ``['A', 'a'] |
unique`` is ``['A']``). They are order-free (order-kept) only for items no two different ones of
which compare equal."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SET_FILTERS = frozenset({"union", "intersect", "difference", "symmetric_difference"})
"""ansible-core 2.19's mathstuff filters that return ``list(set(...))`` (for hashable items)."""

ORDER_FREE_FILTERS = frozenset({"length", "count", "bool", "type_debug", "sort", "min", "max"})
"""Filters whose result does not depend on the order of the list they are given (``sort``,
``min``, ``max``: see :data:`CASE_FOLDING`)."""

ORDER_KEPT_FILTERS = frozenset({"list", "map", "select", "reject", "selectattr", "rejectattr", "flatten", "reverse",
                                "default", "d", "mandatory", "unique", "shuffle"})
"""Filters that give the same items (or some of them) in an order made from the order of the
list they are given (``default``/``mandatory`` give the list itself; ``unique``: see
:data:`CASE_FOLDING`). Not ``items2dict``, ``dict`` or ``combine``: of keys given twice the last
wins, and the keys come in the list's order."""

CASE_FOLDING: dict[str, int] = {"sort": 1, "min": 0, "max": 0, "unique": 0}
"""The filters that compare strings without case unless told, and where ``case_sensitive`` is
among their positional arguments (after the value)."""

ATTRIBUTE_AT: dict[str, int] = {"sort": 2, "min": 1, "max": 1, "unique": 1}
"""Where the same filters take ``attribute`` among their positional arguments (after the value)."""


def case_sensitive_given(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
    """Whether the filter ``name`` is told to compare with case (its arguments after the value)."""
    from engine.booleans import boolean

    if "case_sensitive" in kwargs:
        return boolean(kwargs["case_sensitive"])
    position = CASE_FOLDING.get(name)
    return position is not None and len(args) > position and boolean(args[position])


def reads_order(name: str, items: Iterable[Any], args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
    """Whether the filter ``name`` of :data:`CASE_FOLDING` reads the order of ``items`` (given
    ``args`` and ``kwargs`` after them): two different items compare equal (without case unless
    told, by ``attribute`` when given). Unsure (an attribute it cannot read, a key it cannot
    compare) reads it."""
    if name not in CASE_FOLDING:
        return False
    sensitive = case_sensitive_given(name, args, kwargs)
    at = ATTRIBUTE_AT[name]
    attribute = kwargs.get("attribute", args[at] if len(args) > at else None)
    seen: dict[Any, Any] = {}
    for item in items:
        key = item
        for part in str(attribute).split(".") if attribute is not None else ():
            if not isinstance(key, Mapping) or part not in key:
                return True
            key = key[part]
        key = key.lower() if isinstance(key, str) and not sensitive else key
        try:
            if key in seen and seen[key] != item:
                return True
            seen.setdefault(key, item)
        except TypeError:  # a key that cannot be hashed (a list, a mapping)
            return True
    return False

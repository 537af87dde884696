"""What a template before the run may read of a list whose order only the run knows
(:class:`engine.values.RunOrdered`: made from a set of strings, or the hosts ``group_by`` put in one
group as their results came in). Its items are known, their order is not: what reads no order
(``length``, ``count``, ``sum``, ``in``; ``sort``, ``min`` and ``max`` where no two different
items compare equal) is known; what keeps the order (``map``, ``select``,
``unique``) gives such a list again, for the same reason; what reads it (``first``, ``join``, an index, the list
written into text) is known only at run time. Only the bounded templar (values shown before the
run) applies this; a run's own lists have the order they have."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from engine.templating.errors import RunTimeOnly
from engine.values import RUN_ORDER_UNKNOWN, RunOrdered

ORDER_FREE = frozenset({
    "length", "count", "sort", "min", "max", "type_debug", "bool", "items2dict", "dict", "combine",
    "default", "d", "mandatory", "unique_count",
})
"""Filters whose result does not depend on the order of the list they are given (``default``
gives the list itself back, order and all, and is :data:`ORDER_KEPT` for that)."""

ORDER_KEPT = frozenset({
    "map", "select", "reject", "selectattr", "rejectattr", "unique", "list", "union", "intersect",
    "difference", "symmetric_difference", "flatten", "reverse", "default", "d", "mandatory", "shuffle",
})
"""Filters that give a list in the order of the one they are given."""


TIE_BROKEN_BY_ORDER = {"sort": ("reverse", "case_sensitive", "attribute"), "min": ("case_sensitive", "attribute"),
                       "max": ("case_sensitive", "attribute")}
"""Filters (and their parameters after the list) whose result reads the order of items that compare
equal: Jinja's sort is stable and min/max return the first of equal items, so ``["a", "A"] | sort``
(case-insensitive by default) gives them in the order they came."""


def _ties(name: str, items: list[Any], rest: tuple[Any, ...], options: Mapping[str, Any]) -> bool:
    """Whether two different items of ``items`` compare equal for the filter ``name`` with these
    arguments: then its result follows the run's order. Unsure (an attribute it cannot read, items
    it cannot compare) is a tie."""
    bound = {**dict(zip(TIE_BROKEN_BY_ORDER[name], rest, strict=False)), **options}
    attribute, case_sensitive = bound.get("attribute"), bound.get("case_sensitive", False)
    seen: dict[Any, Any] = {}
    for item in items:
        key = item
        for part in str(attribute).split(".") if attribute is not None else ():
            if not isinstance(key, Mapping) or part not in key:
                return True
            key = key[part]
        key = key.lower() if isinstance(key, str) and not case_sensitive else key
        try:
            if key in seen and seen[key] != item:
                return True
            seen.setdefault(key, item)
        except TypeError:  # a key that cannot be hashed (a list, a mapping)
            return True
    return False


def _read_order(reading: str) -> RunTimeOnly:
    return RunTimeOnly(f"{reading} reads the order of {RUN_ORDER_UNKNOWN.removeprefix('not known before the run: ')}")


def run_ordered(value: Any) -> bool:
    return isinstance(value, RunOrdered) and len(value) > 1


def order_aware(name: str, plugin: Callable[..., Any]) -> Callable[..., Any]:
    """The filter ``name``, reading a run-ordered list as :mod:`this module <engine.templating.run_order>` says."""
    takes_context = getattr(plugin, "jinja_pass_arg", None) is not None

    @wraps(plugin)
    def call(*args: Any, **kwargs: Any) -> Any:
        at = 1 if takes_context else 0
        value = args[at] if len(args) > at else None
        if not run_ordered(value):
            return plugin(*args, **kwargs)
        if name in TIE_BROKEN_BY_ORDER and _ties(name, value, args[at + 1:], kwargs):
            raise _read_order(f"the filter '{name}' (of items that compare equal)")
        result = plugin(*args, **kwargs)
        if name in ORDER_KEPT and isinstance(result, list):
            # what made the given list's order the run's makes this one's too
            return RunOrdered.made_from(value if getattr(value, "why", None) else result, result)
        if name in ORDER_FREE or name == "sum" and isinstance(result, int | float):
            return result
        if isinstance(result, Mapping | bool | int | float) and name in ORDER_KEPT:
            return result
        raise _read_order(f"the filter '{name}'")

    return call


def checked_item(obj: Any, argument: Any) -> None:
    """Fail an index into a run-ordered list (``xs[0]``, ``xs[-1]``, a slice)."""
    if run_ordered(obj) and isinstance(argument, int | slice) and not isinstance(argument, bool):
        raise _read_order("an index")


def checked_text(value: Any) -> Any:
    """Fail a run-ordered list written into text (``"hosts: {{ xs }}"``)."""
    if run_ordered(value):
        raise _read_order("text made of it")
    return value

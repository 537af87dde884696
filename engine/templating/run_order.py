"""What a template before the run may read of a list whose order only the run knows
(:class:`engine.values.RunOrdered`: made from a set of strings, or the hosts ``group_by`` put in one
group as their results came in). Its items are known, their order is not: what reads no order
(``length``, ``count``, ``sum``, ``in``; ``sort``, ``min``, ``max`` where no two different items
compare equal) is known; what keeps the order (``map``, ``select``, ``unique``) gives such a list
again, for the same reason (engine.templating.list_order's table: ``sort``, ``min``, ``max`` and
``unique`` read the order of items that compare equal); what reads it (``first``, ``join``, an index, the list
written into text) is known only at run time. Only the bounded templar (values shown before the
run) applies this; a run's own lists have the order they have."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from engine.templating.errors import OrderOnly
from engine.templating.list_order import ORDER_FREE_FILTERS, ORDER_KEPT_FILTERS, SET_FILTERS, reads_order
from engine.values import RUN_ORDER_UNKNOWN, RunOrdered

ORDER_FREE = ORDER_FREE_FILTERS
ORDER_KEPT = ORDER_KEPT_FILTERS | SET_FILTERS
"""The shared table (engine.templating.list_order): a set-like filter of a list of unknown order
gives one of unknown order too."""


def _read_order(reading: str) -> OrderOnly:
    return OrderOnly(f"{reading} reads the order of {RUN_ORDER_UNKNOWN.removeprefix('not known before the run: ')}")


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
        if reads_order(name, value, args[at + 1:], kwargs):
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

"""Where the order of a set-like filter's list can show. ansible-core 2.19's ``union``,
``intersect``, ``difference`` and ``symmetric_difference`` return ``list(set(...))``: a set of
strings is ordered by the string hash, seeded anew in every ansible process, so such a list's order
is that process's own and a run that shows it cannot be reproduced (it is declined before the run).
What reads only which items the list holds is exact, and so is a list whose operands cannot go into
a set (the filter then de-duplicates in order) or are literal numbers (their hashes are their
values)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.templating.list_order import (
    CASE_FOLDING,
    ORDER_FREE_FILTERS,
    ORDER_FREE_TESTS,
    ORDER_KEPT_FILTERS,
    SET_FILTERS,
    case_sensitive_given,
    folds_case,
)


@dataclass(frozen=True)
class SetOrder:
    """A set-like filter whose list's order can show: ``node``, its name and line; ``readers``, the
    ``sort``, ``min``, ``max`` or ``unique`` (compared without case) that read it, where only items
    equal but for case would show the order (empty: the order shows whatever the items are, unless
    the list has no string to order by its hash, or fewer than two items)."""

    name: str
    line: int
    node: Any
    readers: tuple[Any, ...]
    loops: tuple[Any, ...] = ()
    """The ``{% for %}`` statements whose body holds it, the outermost first."""


def set_orders_shown(tree: Any) -> Iterator[tuple[str, int]]:
    """Each set-like filter (name, line) of ``tree`` whose result's order can show
    (:func:`set_orders`)."""
    for found in set_orders(tree):
        yield found.name, found.line


def set_orders(tree: Any) -> Iterator[SetOrder]:
    """Each set-like filter of ``tree`` whose result's order can show: neither is it
    only read by what ignores order (``length``, ``in``, another set-like filter, an ``if``'s
    test, a comparison with ``[]``, ``sort`` told ``case_sensitive``), maybe through filters that
    keep a list's order (``list``, ``map``, ``select``, ...), nor can its operands hold a string
    (literal lists of numbers, or one holding a dict or list). The table is
    engine.templating.list_order's."""
    from jinja2 import nodes

    parents: dict[int, Any] = {}
    pending = [tree]
    while pending:
        node = pending.pop()
        for child in node.iter_child_nodes():
            parents[id(child)] = node
            pending.append(child)
    for node in tree.find_all(nodes.Filter):
        if node.name not in SET_FILTERS or node.node is None or _unordered(node):
            continue
        shows = _order_shows(node, parents)
        if shows is not False:
            yield SetOrder(node.name, node.lineno, node, () if shows is True else tuple(shows),
                           _loops_around(node, parents))


def _loops_around(node: Any, parents: dict[int, Any]) -> tuple[Any, ...]:
    from jinja2 import nodes

    loops = []
    while (parent := parents.get(id(node))) is not None:
        if isinstance(parent, nodes.For) and any(node is each for each in parent.body):
            loops.append(parent)
        node = parent
    return tuple(reversed(loops))


def _unordered(node: Any) -> bool:
    """Whether a set-like filter's result has an order no hash seed moves: an operand cannot go
    into a set (ansible de-duplicates in order then), or both are literal lists of numbers."""
    operands = [node.node, *node.args]
    return any(_unhashable(operand) for operand in operands) or all(_numbers(operand) for operand in operands)


def _order_shows(node: Any, parents: dict[int, Any]) -> bool | list[Any]:
    """Whether the order of the list ``node`` gives can reach what the template shows: True, False,
    or the filters comparing without case (``sort``, ``min``, ``max``, ``unique``) through which
    alone it would, where two items equal but for case meet."""
    from jinja2 import nodes

    folded = _literal_case_free(node)  # no two items equal but for case: made one case, or written out
    readers: list[Any] = []
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, nodes.Filter):
            if parent.name in SET_FILTERS and not _unordered(parent):
                return readers or False
            if parent.node is node and parent.name in CASE_FOLDING and not folded and not _told_case(parent):
                readers.append(parent)  # strings equal but for case may meet: which comes first is the order's
                folded = True  # past it, as if they did not
            folded = folded or parent.name == "map" and bool(parent.args) and isinstance(parent.args[0], nodes.Const) \
                and parent.args[0].value in ("lower", "upper")
            if parent.node is node and parent.name in ORDER_FREE_FILTERS:
                return readers or False
            if parent.node is node and parent.name in ORDER_KEPT_FILTERS:
                node = parent  # the same items in the same order: what reads it decides
                continue
            return True
        if isinstance(parent, nodes.Test):
            return (readers or False) if parent.node is node and parent.name in ORDER_FREE_TESTS else True
        if isinstance(parent, nodes.Operand):
            if parent.op in ("in", "notin"):
                return readers or False
            compare = parents.get(id(parent))
            shows = not (parent.op in ("eq", "ne") and isinstance(compare, nodes.Compare) and len(compare.ops) == 1
                         and _empty(compare.expr))
            return True if shows else readers or False
        if isinstance(parent, nodes.Compare):
            shows = not (parent.expr is node and len(parent.ops) == 1 and parent.ops[0].op in ("eq", "ne")
                         and _empty(parent.ops[0].expr))
            return True if shows else readers or False
        return (readers or False) if _truth_only(node, parents) else True


def _literal_case_free(node: Any) -> bool:
    """Whether a set-like filter's operands are literal lists of constants, no two of whose
    strings are equal but for case."""
    from jinja2 import nodes

    operands = [node.node, *node.args]
    if not all(isinstance(operand, nodes.List) and all(isinstance(item, nodes.Const) for item in operand.items)
               for operand in operands):
        return False
    return not folds_case(item.value for operand in operands for item in operand.items)


def _told_case(node: Any) -> bool:
    """Whether a ``sort``, ``min``, ``max`` or ``unique`` is told ``case_sensitive`` by a literal."""
    from jinja2 import nodes

    args = [arg.value if isinstance(arg, nodes.Const) else None for arg in node.args]
    kwargs = {keyword.key: keyword.value.value for keyword in node.kwargs if isinstance(keyword.value, nodes.Const)}
    return case_sensitive_given(node.name, args, kwargs)


def _truth_only(node: Any, parents: dict[int, Any]) -> bool:
    """Whether only ``node``'s truth is read: it is (through ``and``, ``or``) the test of an
    ``{% if %}`` or of ``x if test else y``, or negated."""
    from jinja2 import nodes

    while True:
        parent = parents.get(id(node))
        if isinstance(parent, nodes.Not):
            return True
        if isinstance(parent, nodes.If | nodes.CondExpr):
            return parent.test is node
        if not isinstance(parent, nodes.And | nodes.Or):
            return False
        node = parent


def _empty(node: Any) -> bool:
    from jinja2 import nodes

    return isinstance(node, nodes.List | nodes.Tuple) and not node.items


# filters whose result returns a dict or list, which no set holds
_UNHASHABLE_FILTERS = frozenset({"combine", "dict2items", "items2dict", "list", "dict"})


def _unhashable(node: Any) -> bool:
    """Whether ``node`` is a literal list holding a dict or list (written so, or made by a filter
    that returns one: ``combine``, ``list``, ...): ``set()`` of it fails (whichever operand it is:
    the filter makes a set of each), and ansible's filter falls back to an order-keeping
    de-duplication."""
    from jinja2 import nodes

    def container(item: Any) -> bool:
        return isinstance(item, nodes.Dict | nodes.List) or \
            isinstance(item, nodes.Filter) and item.name in _UNHASHABLE_FILTERS or \
            isinstance(item, nodes.Call) and isinstance(item.node, nodes.Name) and item.node.name == "dict"

    return isinstance(node, nodes.List) and any(container(item) for item in node.items)


def _numbers(node: Any) -> bool:
    """Whether ``node`` is a literal list of numbers, whose set order no hash seed moves."""
    from jinja2 import nodes

    return isinstance(node, nodes.List) and all(isinstance(item, nodes.Const) and isinstance(item.value, int | float)
                                                for item in node.items)

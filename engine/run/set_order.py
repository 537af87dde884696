"""Where the order of a set-like filter's list can show. ansible-core 2.19's ``union``,
``intersect``, ``difference`` and ``symmetric_difference`` return ``list(set(...))``: a set of
strings is ordered by the string hash, seeded anew in every ansible process, so such a list's order
is that process's own and a run that shows it cannot be reproduced (it is declined before the run).
What reads only which items the list holds is exact, and so is a list whose operands cannot go into
a set (the filter then de-duplicates in order) or are literal numbers (their hashes are their
values)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# ansible-core 2.19's mathstuff filters that return list(set(...)): a set of strings is ordered by the
# string hash, seeded anew in every ansible process, so the list's order is that process's own
SET_FILTERS = frozenset({"union", "intersect", "difference", "symmetric_difference"})
# filters and tests that read only which items a list holds
ORDER_FREE_FILTERS = frozenset({"sort", "length", "count", "min", "max", "bool", "type_debug"})
# filters that give the same items in the order they were given, or none
# (not ``unique``: Jinja's drops items equal but for case, keeping the first, so which it keeps
# is the order's)
ORDER_KEEPING_FILTERS = frozenset({"list", "map", "select", "reject", "selectattr", "rejectattr",
                                   "flatten", "reverse", "default", "d"})
ORDER_FREE_TESTS = frozenset({"subset", "issubset", "superset", "issuperset", "contains", "defined", "undefined",
                              "iterable", "sequence", "none", "truthy", "falsy"})


def set_orders_shown(tree: Any) -> Iterator[tuple[str, int]]:
    """Each set-like filter (name, line) of ``tree`` whose result's order can show: neither is it
    only read by what ignores order (``sort``, ``length``, ``in``, another set-like filter, an
    ``if``'s test, a comparison with ``[]``), maybe through filters that keep a list's order
    (``list``, ``map``, ``select``, ...), nor can its operands hold a string (literal lists of
    numbers, or one holding a dict or list)."""
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
        if not _order_shows(node, parents):
            continue
        yield node.name, node.lineno


def _unordered(node: Any) -> bool:
    """Whether a set-like filter's result has an order no hash seed moves: an operand cannot go
    into a set (ansible de-duplicates in order then), or both are literal lists of numbers."""
    operands = [node.node, *node.args]
    return any(_unhashable(operand) for operand in operands) or all(_numbers(operand) for operand in operands)


def _order_shows(node: Any, parents: dict[int, Any]) -> bool:
    """Whether the order of the list ``node`` gives can reach what the template shows."""
    from jinja2 import nodes

    while True:
        parent = parents.get(id(node))
        if isinstance(parent, nodes.Filter):
            if parent.name in SET_FILTERS and not _unordered(parent):
                return False
            if parent.node is node and parent.name in ORDER_FREE_FILTERS:
                return False
            if parent.node is node and parent.name in ORDER_KEEPING_FILTERS:
                node = parent  # the same items in the same order: what reads it decides
                continue
            return True
        if isinstance(parent, nodes.Test):
            return not (parent.node is node and parent.name in ORDER_FREE_TESTS)
        if isinstance(parent, nodes.Operand):
            if parent.op in ("in", "notin"):
                return False
            compare = parents.get(id(parent))
            return not (parent.op in ("eq", "ne") and isinstance(compare, nodes.Compare) and len(compare.ops) == 1
                        and _empty(compare.expr))
        if isinstance(parent, nodes.Compare):
            return not (parent.expr is node and len(parent.ops) == 1 and parent.ops[0].op in ("eq", "ne")
                        and _empty(parent.ops[0].expr))
        return not _truth_only(node, parents)


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

"""A Jinja expression node written back as the text of an expression, so that a part of a template
(the list a filter is given) can be evaluated on its own, before the run. Only the nodes an
expression of variables is made of are written; any other (``*args``, a constant of another
type) is :class:`NotWritable`, and the part is then not evaluated at all."""

from __future__ import annotations

from typing import Any


class NotWritable(Exception):
    """An expression node this module does not write back."""


_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**"}
_COMPARE = {"eq": "==", "ne": "!=", "gt": ">", "gteq": ">=", "lt": "<", "lteq": "<=", "in": "in", "notin": "not in"}


def expression_source(node: Any) -> str:
    """The text of the expression ``node`` (fully parenthesised)."""
    from jinja2 import nodes

    write = expression_source
    if isinstance(node, nodes.Name) and node.ctx == "load":
        return node.name
    if isinstance(node, nodes.Const):
        if node.value is None or isinstance(node.value, bool | int | float | str):
            return "none" if node.value is None else repr(node.value)
        raise NotWritable(type(node.value).__name__)
    if isinstance(node, nodes.List):
        return "[" + ", ".join(write(item) for item in node.items) + "]"
    if isinstance(node, nodes.Tuple):
        return "(" + "".join(write(item) + ", " for item in node.items) + ")"
    if isinstance(node, nodes.Dict):
        return "{" + ", ".join(f"{write(pair.key)}: {write(pair.value)}" for pair in node.items) + "}"
    if isinstance(node, nodes.Getattr):
        return f"({write(node.node)}).{node.attr}"
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        bounds = (node.arg.start, node.arg.stop, node.arg.step)
        return f"({write(node.node)})[" + ":".join("" if part is None else write(part) for part in bounds) + "]"
    if isinstance(node, nodes.Getitem):
        return f"({write(node.node)})[{write(node.arg)}]"
    if isinstance(node, nodes.Filter | nodes.Test) and node.node is not None:
        head = f"({write(node.node)}) {'|' if isinstance(node, nodes.Filter) else 'is'} {node.name}"
        return head + _arguments(node)
    if isinstance(node, nodes.Call):
        return f"({write(node.node)})" + (_arguments(node) or "()")
    if isinstance(node, nodes.Concat):
        return "(" + " ~ ".join(f"({write(part)})" for part in node.nodes) + ")"
    if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
        return f"(({write(node.expr1)}) if ({write(node.test)}) else ({write(node.expr2)}))"
    if isinstance(node, nodes.Compare):
        return "(" + f"({write(node.expr)})" + "".join(
            f" {_COMPARE[op.op]} ({write(op.expr)})" for op in node.ops) + ")"
    if isinstance(node, nodes.And | nodes.Or):
        return f"(({write(node.left)}) {'and' if isinstance(node, nodes.And) else 'or'} ({write(node.right)}))"
    if isinstance(node, nodes.Not):
        return f"(not ({write(node.node)}))"
    if isinstance(node, nodes.Neg | nodes.Pos):
        return f"({'-' if isinstance(node, nodes.Neg) else '+'}({write(node.node)}))"
    if type(node).__name__ in _BINARY and isinstance(node, nodes.BinExpr):
        return f"(({write(node.left)}) {_BINARY[type(node).__name__]} ({write(node.right)}))"
    raise NotWritable(type(node).__name__)


def _arguments(node: Any) -> str:
    """``(args, key=value)`` of a filter, test or call; empty for a filter or test without any."""
    if node.dyn_args is not None or node.dyn_kwargs is not None:
        raise NotWritable("*args")
    parts = [expression_source(arg) for arg in node.args]
    parts += [f"{keyword.key}={expression_source(keyword.value)}" for keyword in node.kwargs]
    return f"({', '.join(parts)})" if parts else ""


def names_read(node: Any) -> set[str]:
    """The variable names ``node`` reads."""
    from jinja2 import nodes

    return {name.name for name in node.find_all(nodes.Name) if name.ctx == "load"} | (
        {node.name} if isinstance(node, nodes.Name) and node.ctx == "load" else set())


def names_bound(tree: Any) -> set[str]:
    """The names a template binds itself (``for`` targets, ``set``, macro and call-block parameters,
    ``with``, imports, macros): a part of it that reads one reads the template's own value, which
    no variable of the run gives."""
    from jinja2 import nodes

    bound = {name.name for name in tree.find_all(nodes.Name) if name.ctx != "load"}
    bound |= {macro.name for macro in tree.find_all(nodes.Macro)}
    bound |= {node.target for node in tree.find_all(nodes.Import)}
    for node in tree.find_all(nodes.FromImport):
        bound |= {name[1] if isinstance(name, tuple) else name for name in node.names}
    return bound | {"loop", "caller", "varargs", "kwargs", "self"}

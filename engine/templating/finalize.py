"""What the templar checks of a result or a failure the way ansible's template engine does, apart
from the templar (which alone makes environments: the parser it needs is handed in)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from itertools import chain, islice
from typing import Any

from markupsafe import Markup

from engine.templating.bounds import plain_strings
from engine.values import OMIT_TOKEN

INT_BITWISE = frozenset({"__and__", "__lshift__", "__or__", "__rshift__", "__xor__"})
"""What AnsibleEnvironment allows of an int that the sandbox would refuse (its bitwise operators)."""


def native_concat(values: Iterator[Any]) -> Any:
    """ansible 2.19's ``AnsibleEnvironment.concat``: None nodes are dropped (no literal "None"),
    a template with no node is None, one node keeps its value's type; anything else is text."""
    present = (v for v in values if v is not None)
    head = list(islice(present, 2))
    if not head:
        return None
    if len(head) == 1:
        return head[0]
    return "".join(concat_text(v) for v in chain(head, present))


def concat_text(value: Any) -> str:
    """A piece of a template's text output as 2.19's concat finalizes it before joining
    (``FinalizeMode.CONCAT``): ``omit`` leaves no text, a list or dict drops its omits and shows
    its tuples as lists."""
    if omitted(value):
        return ""
    return str(finalized(value) if isinstance(value, list | dict | tuple) else value)


_CONVERTED: ContextVar[list[str] | None] = ContextVar("converted_types", default=None)


@contextmanager
def converted_types() -> Iterator[list[str]]:
    """The names of the types the templating inside converts as unsupported in variable storage
    (ansible warns of each: a ``groupby`` result's GroupTuple becomes a list), in order."""
    found: list[str] = []
    token = _CONVERTED.set(found)
    try:
        yield found
    finally:
        _CONVERTED.reset(token)


def _note_converted(value: Any) -> None:
    found = _CONVERTED.get()
    if found is not None and type(value).__name__ not in found:
        found.append(type(value).__name__)


_END = object()

# the results a template's whole result is finalized for: containers, and Jinja's Markup strings
FINALIZED_TYPES = (list, dict, tuple, Markup)

_VARIABLE_VALUE: ContextVar[bool] = ContextVar("variable_value", default=False)


@contextmanager
def variable_value() -> Iterator[None]:
    """Rendering a variable's value for a template that reads it: a value that only names another
    variable (``comps: "{{ _comps }}"``) is that variable's lazy container as ansible's lazy
    templating hands it on, the items that fail still failing only where they are read."""
    token = _VARIABLE_VALUE.set(True)
    try:
        yield
    finally:
        _VARIABLE_VALUE.reset(token)


def in_variable_value() -> bool:
    return _VARIABLE_VALUE.get()


def finalized(value: list[Any] | dict[Any, Any] | tuple[Any, ...],
              top_level: bool = False) -> list[Any] | dict[Any, Any]:
    """ansible's finalization of a template's result (``_finalize_template_result``): an
    undefined value inside a list or dict (``map('extract', hostvars, key)`` over a host without
    the key) fails with its own message, as the whole would, rather than being kept; a tuple
    (``product``, ``zip``) becomes a list and an ``omit`` drops out of its list or dict. The
    value is rebuilt only when it holds one of the last two. A template's whole result
    (``top_level``) notes each tuple of another type than tuple (a named one) it converts."""
    from jinja2 import Undefined

    if isinstance(value, Markup):  # escape, safe, tojson: stored as a plain string
        if top_level:
            _note_converted(value)
        return str(value)  # type: ignore[return-value]
    if type(value) is list and plain_strings(value):
        return value  # nothing in it is undefined, converted, or omitted: as it is
    rebuild = isinstance(value, tuple)
    if top_level and rebuild and type(value) is not tuple:
        _note_converted(value)
    for item in items_within(value):  # the first undefined one met fails, as the whole would
        if isinstance(item, Undefined):
            if in_variable_value():  # a variable's value is a lazy container: its items fail where read
                return _partly_rendered(value)  # type: ignore[no-any-return]
            item._fail_with_undefined_error()
        if top_level and (isinstance(item, Markup) or isinstance(item, tuple) and type(item) is not tuple):
            _note_converted(item)
        rebuild = rebuild or isinstance(item, tuple | Markup) or omitted(item)
    return _rebuilt(value, top_level) if rebuild else value  # type: ignore[return-value]


def items_within(value: list[Any] | dict[Any, Any] | tuple[Any, ...]) -> Iterator[Any]:
    """Every item of a list, dict (its values) or tuple and of those inside it, depth first and
    in order, as ansible's finalization and its lazy containers' conversions recurse."""
    stack: list[Iterator[Any]] = [iter(value.values() if isinstance(value, dict) else value)]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
            continue
        yield item
        if isinstance(item, list | dict | tuple) and item:
            stack.append(iter(item.values() if isinstance(item, dict) else item))


def fail_undefined_within(value: Any) -> Any:
    """``value``, once no item within it is undefined: the first one met fails with its own error,
    as a lazy container fails when a filter converts it whole (``to_json``, ``to_yaml``). Jinja's
    own Undefined is no Marker: it is left to the filter, as any value it cannot convert."""
    from engine.templating.markers import is_marker

    if is_marker(value):
        value._fail_with_undefined_error()
    if isinstance(value, list | dict | tuple):
        for item in items_within(value):
            if is_marker(item):
                item._fail_with_undefined_error()
    return value


def _partly_rendered(value: Any) -> Any:
    """A variable's value its own template built around undefined items (``a: "{{ [1, x] }}"``):
    as ansible keeps the markers in the lazy container it hands on, each container holding one
    fails only where that item is read (engine.templating.lazy_variables)."""
    from jinja2 import Undefined

    from engine.templating.lazy_variables import PartlyRenderedDict, PartlyRenderedList

    if not isinstance(value, list | dict | tuple) or isinstance(value, Markup):
        return value
    if not any(isinstance(item, Undefined) for item in items_within(value)):
        return _rebuilt(value, True) if isinstance(value, tuple) or any(map(omitted, items_within(value))) else value
    if isinstance(value, dict):
        return PartlyRenderedDict((key, _partly_rendered(item)) for key, item in value.items() if not omitted(item))
    return PartlyRenderedList(_partly_rendered(item) for item in value if not omitted(item))


def _rebuilt(value: Any, top_level: bool) -> Any:
    """Lists and dicts without omits, tuples as lists; a named tuple only in a whole result (text
    shows it as it is: ``FinalizeMode.CONCAT`` leaves a type it does not know alone)."""
    if isinstance(value, dict):
        return {key: _rebuilt(item, top_level) for key, item in value.items() if not omitted(item)}
    if isinstance(value, tuple) and type(value) is not tuple and not top_level:
        return value
    if isinstance(value, list | tuple):
        return [_rebuilt(item, top_level) for item in value if not omitted(item)]
    return str(value) if isinstance(value, Markup) else value


def omitted(value: Any) -> bool:
    """Whether a templated value is ``omit`` as a run has it."""
    return value is OMIT_TOKEN


@lru_cache(maxsize=256)
def syntax_error(parser: Any, expression: str) -> str | None:
    """What Jinja's expression parser (``parser``, an environment) says of ``expression``, as
    ansible compiles a conditional (``compile_expression``), or None when it parses."""
    from jinja2 import TemplateSyntaxError

    try:
        parser.compile_expression(expression)
    except TemplateSyntaxError as exc:
        return str(exc.message)
    except (ValueError, RecursionError):
        return None
    return None

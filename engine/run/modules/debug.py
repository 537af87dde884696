"""debug: prints ``msg`` or the value of the expression named by ``var``, unless the task's
``verbosity`` is above the run's."""

from __future__ import annotations

import re
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, action_spec_name, validate

SPEC = {"msg": Arg(type="raw", default="Hello world!"), "var": Arg(), "verbosity": Arg(type="int", default=0)}


TEMPLATE_WARNINGS = "_ansible_template_warnings"
"""Warnings the templating of an action's arguments showed (engine.run.callback prints them once)."""


class VarFailure(Exception):
    """The ``var`` expression failed otherwise than by an undefined value: ansible fails the task."""

    def __init__(self, chain: list[Any]) -> None:
        super().__init__(chain)
        self.chain = chain


def _evaluate(expression: str, ctx: ModuleContext, warnings: list[str]) -> Any:
    """The expression's value; an undefined value gives ansible 2.19's marker text instead of
    failing (ReplacingMarkerBehavior): in a list or mapping each item that is undefined, the rest
    as they are, with one warning per template that failed (at the item's value as written, or
    at the ``var`` as written when the expression itself is undefined). Only undefined markers are
    replaced: any other error (a value that does not parse, a Python error) is raised as ``Error
    while resolving `var` expression.``, chained to the error at its variable's value."""
    from engine.run.error_block import Event, format_events

    spans = getattr(ctx.written, "value_spans", None) or {}
    var_span = spans.get("var") or ctx.written_span
    markers: list[tuple[str, Any]] = []  # (message, origin) of each error, numbered in order
    try:
        root = _written_path(expression)
        value = _value_at("(" + expression + ")", ctx, markers, var_span, var_span, 0, root)
    except VarFailure:
        raise
    groups: list[tuple[Any, list[str]]] = []
    for number, (message, origin) in enumerate(markers, 1):
        if groups and groups[-1][0] == origin:
            groups[-1][1].append(f"error {number} - {message}")
        else:
            groups.append((origin, [f"error {number} - {message}"]))
    for origin, errors in groups:
        count = f"{len(errors)} template error{'s' if len(errors) > 1 else ''}"
        warnings.append(format_events([Event(f"Encountered {count}.\n" + "\n".join(errors), origin)]))
    return value


def _cause_event(exc: Exception) -> Any:
    """The error under "Error while resolving `var` expression.": where a variable's template
    failed, that error at the variable; one the expression itself raised (a call's error handed on
    by a variable's template, errors.CallFailure, is one) is the expression's, as ansible evaluates
    ``var`` as one ("Error rendering expression: ...", merged into the line above)."""
    from engine.run.error_block import Event
    from engine.templating.errors import value_origin

    origin, message = value_origin(exc), str(exc)
    if origin is None and message.startswith(TEMPLATE_ERROR):
        message = "Error rendering expression: " + message.removeprefix(TEMPLATE_ERROR)
    return Event(message, origin)


TEMPLATE_ERROR = "Error rendering template: "


def _replaced_value(expression: str, ctx: ModuleContext, var_span: Any) -> tuple[Any, list[tuple[str, Any]]] | None:
    """The value of ``expression`` (which failed on an undefined value) rendered as the action's
    ``RoutingMarkerBehavior`` renders it (an undefined value, or a template an expression truncated,
    replaced by its marker text, numbered as replaced: engine.templating.replacing), with each
    marker's message and origin; None when nothing was replaced, a marker is not shown, or the
    rendering failed (a captured failure, an undefined item of a container: read item by item below)."""
    from engine.templating.replacing import replacing_markers

    try:
        with replacing_markers(var_span, routing=True) as markers:
            value = ctx.render("{{ " + expression + " }}")
    except Exception:  # noqa: BLE001 - what failed is read again the other way, which says why
        return None
    return (value, list(markers.markers)) if markers.markers and markers.all_shown(value) else None


_MAX_DEPTH = 20
# a template that only names a variable (or a part of one): its result is that variable's value
_REFERENCE = re.compile(r"^\{\{\s*[A-Za-z_]\w*(\.[A-Za-z_]\w*|\[[^\]{}]+\])*\s*\}\}$")
UNTRUSTED_HELP = ("Templates and expressions must be defined by trusted sources such as playbooks or roles, not "
                  "untrusted sources such as module results.")


def _value_at(path: str, ctx: ModuleContext, markers: list[tuple[str, Any]], var_span: Any, origin: Any,
              depth: int, keys: list[Any] | None) -> Any:
    """The value of the expression ``path`` (the variable and ``keys`` below it, when known);
    where it is undefined, its items one by one (a list or mapping read lazily), an undefined one
    as its marker: in a text of several expressions, each undefined expression."""
    from engine.run.error_block import Event
    from engine.templating.errors import undefined_cause, value_origin

    try:
        return ctx.render("{{ " + path + " }}")
    except Exception as exc:  # the executor's templar decides what undefined raises
        if not undefined_cause(exc):
            raise VarFailure([Event("Error while resolving `var` expression.", var_span), _cause_event(exc)]) from exc
        failure = exc
    items = _items(path, ctx) if depth < _MAX_DEPTH else None
    # a variable's list or mapping is read item by item below, each item's markers made where it
    # is written (ansible's lazy container templates each item read on its own); anything else whole
    whole = keys is None or (items is None and len(keys) == 1)  # no item of a variable's read on its own
    replaced = _replaced_value(path, ctx, var_span) if depth == 0 and whole else None
    if replaced is not None:
        value, found = replaced
        markers += found
        return value
    if items is None:
        item = depth or not whole
        where = (_written_at(ctx, keys) or value_origin(failure) or origin) if item else origin
        shown = _marked_text(_raw_at(ctx, keys), ctx, markers, where, var_span) if item else None
        if shown is not None:
            return shown
        markers.append((_undefined_message(failure), where))
        return f"<< error {len(markers)} - {markers[-1][0]} >>"
    if isinstance(items, list):
        return [_value_at(f"({path})[{index}]", ctx, markers, var_span, origin, depth + 1,
                          None if keys is None else [*keys, index]) for index in items]
    return {key: _value_at(f"({path})[{key!r}]", ctx, markers, var_span, origin, depth + 1,
                           None if keys is None else [*keys, key]) for key in items}


_MISSING = object()
# ``name``, ``name.key``, ``name[0]``, ``name['key']``: a variable and the keys and indexes below it
_PATH_PART = re.compile(r"\.([A-Za-z_]\w*)|\[(\d+)\]|\[(['\"])([^'\"\[\]]*)\3\]")


def _written_path(expression: str) -> list[Any] | None:
    """The variable and keys ``expression`` names (``l2[0]``: ["l2", 0]), else None. A ``.name``
    that is a method of a dict (``d.items``) is no key: Jinja gives the method."""
    text = expression.strip()
    head = re.match(r"[A-Za-z_]\w*", text)
    if head is None:
        return None
    keys: list[Any] = [head.group(0)]
    at = head.end()
    while at < len(text):
        part = _PATH_PART.match(text, at)
        if part is None or (part.group(1) is not None and hasattr(dict, part.group(1))):
            return None
        keys.append(part.group(1) if part.group(1) is not None else
                    int(part.group(2)) if part.group(2) is not None else part.group(4))
        at = part.end()
    return keys


_NAMED = re.compile(r"^\{\{\s*([A-Za-z_]\w*)\s*\}\}$")


def _written_at(ctx: ModuleContext, keys: list[Any] | None) -> Any:
    """Where the item at ``keys`` (a variable's name, then keys and indexes) is written, if known."""
    from engine.templating.value_origins import item_span

    if not keys or len(keys) < 2:
        return None
    container = _raw_at(ctx, keys[:-1])
    return None if container is _MISSING else item_span(container, keys[-1])


def _raw_at(ctx: ModuleContext, keys: list[Any] | None) -> Any:
    """The value as written at ``keys`` (a variable's name, then keys and indexes), if known."""
    value = ctx.raw_vars
    for key in keys or [_MISSING]:
        if isinstance(value, str):  # only a template naming a variable has its value's items as written
            named = _NAMED.match(value)
            if named is None or named.group(1) not in ctx.raw_vars:
                return _MISSING
            value = ctx.raw_vars[named.group(1)]
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return value


def _marked_text(raw: Any, ctx: ModuleContext, markers: list[tuple[str, Any]], origin: Any,
                 var_span: Any) -> str | None:
    """An item's template ``raw`` rendered as the action's ``RoutingMarkerBehavior`` renders it when
    the item is read: each undefined piece its marker (and "template potentially truncated" after
    an expression that raised), numbered on from ``markers``, made at ``origin`` (the item as
    written) or in the template of a variable it reads; None for what is not a template."""
    from engine.run.error_block import Event
    from engine.templating.replacing import replacing_markers
    from engine.templating.templar import is_template

    if not isinstance(raw, str) or not is_template(raw):
        return None
    try:
        with replacing_markers(origin, routing=True) as replaced:
            replaced.markers = markers
            return ctx.render(raw)
    except Exception as exc:  # a captured failure (a Python error) fails the task as ansible's does
        raise VarFailure([Event("Error while resolving `var` expression.", var_span), _cause_event(exc)]) from exc


def _items(path: str, ctx: ModuleContext) -> list[int] | dict[Any, None] | None:
    """The indexes of a list or the keys of a mapping ``path`` names, read without its values;
    None for anything else (or what cannot be read so)."""
    try:
        if ctx.render("{{ (" + path + ") is mapping }}") is True:
            keys = ctx.render("{{ (" + path + ").keys() | list }}")
            if isinstance(keys, list) and all(type(key) in (str, int) for key in keys):
                return dict.fromkeys(str(key) if isinstance(key, str) else key for key in keys)
        elif ctx.render("{{ (" + path + ") is sequence and (" + path + ") is not string }}") is True:
            length = ctx.render("{{ (" + path + ") | length }}")
            return list(range(length)) if isinstance(length, int) else None
    except Exception:  # noqa: BLE001 - not a container read item by item
        return None
    return None


def _undefined_message(exc: Exception) -> str:
    text = str(exc)
    marker = " is undefined"
    if marker in text:
        start = text.rfind("'", 0, text.index(marker) - 1)
        return text[start : text.index(marker) + len(marker)] if start >= 0 else text
    return text


NAMED = True  # validate_argument_spec's messages name the action plugin as the task's name loads it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "debug") -> dict[str, Any]:
    var = args.get("var")
    if var is not None and not isinstance(var, str):  # "{{ x }}" templated to a value: no name
        from engine.run.error_block import CONTEXT_KEY
        from engine.templating.type_names import native_type_name

        # the action's validate_argument_spec (var: _check_type_str_no_conversion) raises it
        return {"failed": True, CONTEXT_KEY: "task",
                "msg": f"argument 'var' is of type {native_type_name(var)} and we were unable to convert to "
                       f"_check_type_str_no_conversion: '{var!r}' is not a string and conversion is not allowed"}
    params = validate(action_spec_name(action), args, SPEC, mutually_exclusive=(("msg", "var"),), controller=True)
    # the action's keys in its order: its own, then failed; the executor adds changed last
    if params["verbosity"] > int(ctx.task_vars.get("ansible_verbosity", 0) or 0):
        return {"skipped_reason": "Verbosity threshold not met.", "skipped": True, "failed": False}
    # ansible's debug action asks the callback to show every result it returns
    if params["var"]:
        from engine.run.error_block import ERROR_KEY, Event, brief
        from engine.templating.templar import is_template
        from engine.values import UnsafeText

        warnings: list[str] = []
        try:
            written = ctx.written.get("var") if isinstance(ctx.written, dict) else None
            # a template's result is untrusted unless it hands on a variable's value as written
            if isinstance(params["var"], UnsafeText) or (is_template(written) and not _REFERENCE.match(written)):
                span = (getattr(ctx.written, "value_spans", None) or {}).get("var") or ctx.written_span
                raise VarFailure([Event("Error while resolving `var` expression.", span),
                                  Event("Encountered untrusted template or expression.", span, help=UNTRUSTED_HELP)])
            value = _evaluate(params["var"], ctx, warnings)
        except VarFailure as failure:
            return {"failed": True, "msg": brief(["Task failed.", *(e.msg for e in failure.chain)]),
                    ERROR_KEY: failure.chain}
        return {params["var"]: value, "_ansible_verbose_always": True,
                **({TEMPLATE_WARNINGS: warnings} if warnings else {}), "failed": False}
    # the action shows msg as given, None too; only a task without msg says "Hello world!"
    return {"msg": args["msg"] if "msg" in args else params["msg"], "_ansible_verbose_always": True, "failed": False}

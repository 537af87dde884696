"""debug: prints ``msg`` or the value of the expression named by ``var``, unless the task's
``verbosity`` is above the run's."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, validate

SPEC = {"msg": Arg(type="raw", default="Hello world!"), "var": Arg(), "verbosity": Arg(type="int", default=0)}


TEMPLATE_WARNINGS = "_ansible_template_warnings"
"""Warnings the templating of an action's arguments showed (engine.run.callback prints them once)."""


class VarFailure(Exception):
    """The ``var`` expression failed otherwise than by an undefined value: ansible fails the task."""

    def __init__(self, chain: list[Any]) -> None:
        super().__init__(chain)
        self.chain = chain


def _evaluate(expression: str, ctx: ModuleContext, warnings: list[str]) -> Any:
    """The expression's value; an undefined name gives ansible 2.19's marker text instead of
    failing (ReplacingMarkerBehavior), with its warning at the ``var`` as written. Only undefined
    markers are replaced: any other error (a value that does not parse, a Python error) is raised
    as ``Error while resolving `var` expression.``, chained to the error at its variable's value."""
    from engine.run.error_block import Event, format_events
    from engine.templating.errors import undefined_cause, value_origin

    spans = getattr(ctx.written, "value_spans", None) or {}
    try:
        return ctx.render("{{ " + expression + " }}")
    except Exception as exc:  # the executor's templar decides what undefined raises
        if not undefined_cause(exc):
            raise VarFailure([Event("Error while resolving `var` expression.", spans.get("var")),
                              Event(str(exc), value_origin(exc))]) from exc
        message = _undefined_message(exc)
        warnings.append(format_events([Event(f"Encountered 1 template error.\nerror 1 - {message}",
                                             spans.get("var"))]))
        return f"<< error 1 - {message} >>"


def _undefined_message(exc: Exception) -> str:
    text = str(exc)
    marker = " is undefined"
    if marker in text:
        start = text.rfind("'", 0, text.index(marker) - 1)
        return text[start : text.index(marker) + len(marker)] if start >= 0 else text
    return text


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    var = args.get("var")
    if var is not None and not isinstance(var, str):  # "{{ x }}" templated to a value: no name
        from engine.run.error_block import CONTEXT_KEY
        from engine.templating.type_names import native_type_name

        # the action's validate_argument_spec (var: _check_type_str_no_conversion) raises it
        return {"failed": True, CONTEXT_KEY: "task",
                "msg": f"argument 'var' is of type {native_type_name(var)} and we were unable to convert to "
                       f"_check_type_str_no_conversion: '{var!r}' is not a string and conversion is not allowed"}
    params = validate("debug", args, SPEC, mutually_exclusive=(("msg", "var"),))
    if params["verbosity"] > int(ctx.task_vars.get("ansible_verbosity", 0) or 0):
        return {"changed": False, "skipped": True, "skipped_reason": "Verbosity threshold not met."}
    # ansible's debug action asks the callback to show every result it returns
    if params["var"]:
        from engine.run.error_block import ERROR_KEY, brief

        warnings: list[str] = []
        try:
            value = _evaluate(params["var"], ctx, warnings)
        except VarFailure as failure:
            return {"failed": True, "msg": brief(["Task failed.", *(e.msg for e in failure.chain)]),
                    ERROR_KEY: failure.chain}
        return {"changed": False, params["var"]: value, "_ansible_verbose_always": True,
                **({TEMPLATE_WARNINGS: warnings} if warnings else {})}
    # the action shows msg as given, None too; only a task without msg says "Hello world!"
    return {"changed": False, "msg": args["msg"] if "msg" in args else params["msg"], "_ansible_verbose_always": True}

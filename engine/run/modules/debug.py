"""debug: prints ``msg`` or the value of the expression named by ``var``, unless the task's
``verbosity`` is above the run's."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, validate

SPEC = {"msg": Arg(type="raw", default="Hello world!"), "var": Arg(), "verbosity": Arg(type="int", default=0)}


TEMPLATE_WARNINGS = "_ansible_template_warnings"
"""Warnings the templating of an action's arguments showed (engine.run.callback prints them once)."""


def _evaluate(expression: str, ctx: ModuleContext, warnings: list[str]) -> Any:
    """The expression's value; an undefined name gives ansible 2.19's marker text instead of
    failing (ReplacingMarkerBehavior), with its warning at the ``var`` as written."""
    try:
        return ctx.render("{{ " + expression + " }}")
    except Exception as exc:  # the executor's templar decides what undefined raises
        from engine.run.error_block import Event, format_events

        message = _undefined_message(exc)
        spans = getattr(ctx.written, "value_spans", None) or {}
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
    params = validate("debug", args, SPEC, mutually_exclusive=(("msg", "var"),))
    if params["verbosity"] > int(ctx.task_vars.get("ansible_verbosity", 0) or 0):
        return {"changed": False, "skipped": True, "skipped_reason": "Verbosity threshold not met."}
    # ansible's debug action asks the callback to show every result it returns
    if params["var"]:
        warnings: list[str] = []
        value = _evaluate(params["var"], ctx, warnings)
        return {"changed": False, params["var"]: value, "_ansible_verbose_always": True,
                **({TEMPLATE_WARNINGS: warnings} if warnings else {})}
    # the action shows msg as given, None too; only a task without msg says "Hello world!"
    return {"changed": False, "msg": args["msg"] if "msg" in args else params["msg"], "_ansible_verbose_always": True}

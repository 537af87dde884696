"""debug: prints ``msg`` or the value of the expression named by ``var``, unless the task's
``verbosity`` is above the run's."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, validate

SPEC = {"msg": Arg(type="raw", default="Hello world!"), "var": Arg(), "verbosity": Arg(type="int", default=0)}


def _evaluate(expression: str, ctx: ModuleContext) -> Any:
    """The expression's value; an undefined name gives ansible 2.19's marker text instead of failing."""
    try:
        return ctx.render("{{ " + expression + " }}")
    except Exception as exc:  # the executor's templar decides what undefined raises
        return f"<< error 1 - {_undefined_message(exc)} >>"


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
        return {"changed": False, params["var"]: _evaluate(params["var"], ctx), "_ansible_verbose_always": True}
    return {"changed": False, "msg": params["msg"], "_ansible_verbose_always": True}

"""assert: every ``that`` condition must hold; the first false one fails the task."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import Arg, action_spec_name, validate
from engine.templating.errors import TemplateFailure
from engine.values import type_name_of

SPEC = {
    "fail_msg": Arg(type="raw", default="Assertion failed", aliases=("msg",)),
    "success_msg": Arg(type="raw", default="All assertions passed"),
    "quiet": Arg(type="bool", default=False),
    "that": Arg(type="raw", required=True),
}


def _str_or_list_of_str(name: str, value: Any) -> None:
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        return
    raise ModuleError(
        f"argument '{name}' is of type {type_name_of(value)} and we were unable to convert to "
        "str_or_list_of_str: a string or list of strings is required"
    )


NAMED = True  # validate_argument_spec's messages name the action plugin as the task's name loads it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "assert") -> dict[str, Any]:
    params = validate(action_spec_name(action), args, SPEC, controller=True)
    for name in ("fail_msg", "success_msg"):
        _str_or_list_of_str(name, params[name])
    that = params["that"]
    # ansible's _check_type_list_strict: anything not a list is a one-item list, and each item goes
    # to evaluate_conditional as it is (a bare boolean is a valid conditional; a number is not)
    conditions = that if isinstance(that, list) else [that]
    # the assert action asks the callback to show (indented) what it did, unless quiet
    shown = {} if params["quiet"] else {"_ansible_verbose_always": True}
    written = ctx.written.get("that") if isinstance(ctx.written, dict) else None
    spans = getattr(written, "item_spans", None) or [getattr(ctx.written, "value_spans", {}).get("that")]
    for index, condition in enumerate(conditions):
        try:
            holds = ctx.evaluate(condition)
        except TemplateFailure as exc:  # ansible raises it at the condition: 'Task failed: Error ...'
            from engine.run.conditions import condition_failure
            from engine.run.error_block import conditional_failure

            failure = condition_failure(exc, spans[index] if index < len(spans) else None)
            return conditional_failure(str(failure), failure.span, failure.help, failure.origin, failure.value)
        if not holds:
            return {
                "changed": False,
                "failed": True,
                "evaluated_to": False,
                "assertion": condition,
                "msg": params["fail_msg"],
                **shown,
            }
    return {"changed": False, "msg": params["success_msg"], **shown}

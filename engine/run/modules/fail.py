"""fail: always fails, with ``msg`` (ansible's action plugin accepts only ``msg``)."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import invalid_options

NAMED = True  # its refusal of other options names the action as the task writes it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "fail") -> dict[str, Any]:
    if refused := invalid_options(action, args, frozenset(("msg",))):
        return refused
    msg = args.get("msg")
    return {"changed": False, "failed": True, "msg": "Failed as requested from task" if msg is None else msg}

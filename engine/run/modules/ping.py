"""ping: proves the module machinery works; ``data: crash`` fails like ansible's module."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import Arg, validate

SPEC = {"data": Arg(default="pong")}


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "ping") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    if params["data"] == "crash":
        raise ModuleError("boom")  # ansible's module raises Exception("boom")
    return {"changed": False, "ping": params["data"]}

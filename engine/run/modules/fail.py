"""fail: always fails, with ``msg`` (ansible's action plugin accepts only ``msg``)."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, validate


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    params = validate("fail", args, {"msg": Arg(type="raw", default="Failed as requested from task")})
    return {"changed": False, "failed": True, "msg": params["msg"]}

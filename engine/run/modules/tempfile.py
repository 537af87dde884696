"""tempfile: a new temporary file or directory (under ``path`` or the system's temporary
directory); the module does not support check mode, so ansible skips it there."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, check_mode_unsupported, validate
from engine.run.modules._files import path_facts

SPEC = {
    "state": Arg(default="file", choices=("file", "directory")),
    "path": Arg(type="path"),
    "prefix": Arg(default="ansible."),
    "suffix": Arg(default=""),
}


NAMED = True


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "tempfile") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    if ctx.check_mode:
        return check_mode_unsupported(action)
    prefix, suffix = params["prefix"], params["suffix"]
    for name, value in (("prefix", prefix), ("suffix", suffix)):
        if value and value != os.path.basename(value):
            return {"changed": False, "failed": True,
                    "msg": f"{name} must be a valid file name component, got {value!r}"}
    try:
        if params["state"] == "file":
            handle, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=params["path"])
            os.close(handle)
        else:
            path = tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=params["path"])
    except Exception as exc:  # noqa: BLE001 - ansible's module fails with the error's text
        return {"changed": False, "failed": True, "msg": str(exc)}
    return path_facts({"changed": True, "path": path})

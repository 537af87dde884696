"""script: a script of the controller (here, the same machine) copied to a temporary directory
and run through the shell with its arguments, as ansible's action plugin does: creates/removes
skip it, chdir must be absolute, check mode runs nothing."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from typing import Any

from engine.run.modules import ModuleContext, ModuleError, action_skip
from engine.run.modules._args import Arg, action_spec_name, validate
from engine.run.modules._shell import basedir, low_level_execute
from engine.run.modules._sources import find_source

SPEC = {
    "_raw_params": Arg(),
    "cmd": Arg(),
    "creates": Arg(),
    "removes": Arg(),
    "chdir": Arg(),
    "executable": Arg(),
}
"""The action's validate_argument_spec (decrypt is not in it: a script task cannot give it)."""


def _skip(msg: str) -> dict[str, Any]:
    return action_skip(msg)


NAMED = True  # validate_argument_spec's messages name the action plugin as the task's name loads it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "script") -> dict[str, Any]:
    params = validate(action_spec_name(action), args, SPEC, mutually_exclusive=(("_raw_params", "cmd"),),
                      controller=True)
    if params["_raw_params"] is None and params["cmd"] is None:
        raise ModuleError("one of the following is required: _raw_params, cmd")
    here = basedir(ctx)
    if params["creates"] and os.path.exists(os.path.join(here, params["creates"])):
        return _skip(f"{params['creates']} exists, matching creates option")
    if params["removes"] and not os.path.exists(os.path.join(here, params["removes"])):
        return _skip(f"{params['removes']} does not exist, matching removes option")
    chdir = params["chdir"]
    if chdir and not chdir.startswith("/"):
        return {"changed": False, "failed": True,
                "msg": f"chdir {chdir} must be an absolute path for a Unix-aware remote node"}
    raw = params["_raw_params"] or params["cmd"]
    parts = shlex.split(raw.strip())
    if not parts:
        raise ModuleError("script needs the path of a script")
    try:
        source = find_source(parts[0], "files", ctx.search_paths, decrypt=True)
    except ModuleError as exc:
        return {"changed": False, "failed": True, "msg": str(exc)}
    if ctx.check_mode:
        if params["creates"] or params["removes"]:
            return {"changed": True}
        return _skip("Check mode is not supported for this task.")
    directory = tempfile.mkdtemp(prefix="ansible-tmp-")
    try:
        copied = os.path.join(directory, os.path.basename(source))
        shutil.copyfile(source, copied)
        os.chmod(copied, 0o700)
        command = raw.strip().replace(parts[0], copied)
        if params["executable"]:
            command = f"{params['executable']} {command}"
        result: dict[str, Any] = low_level_execute(command, ctx, chdir=chdir, environment=ctx.environment)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    result["changed"] = True
    if result["rc"] != 0:
        result.update(msg="non-zero return code", failed=True)
    return result

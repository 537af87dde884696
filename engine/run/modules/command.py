"""command (and, with ``uses_shell``, shell): runs a program; ``creates``/``removes`` make it
idempotent, and in check mode it only reports what it would do."""

from __future__ import annotations

import datetime
import errno
import glob
import os
import shlex
import subprocess
from typing import Any

from engine.run.environment import expand_user, expand_variables
from engine.run.modules import ModuleContext, ModuleError, module_exception
from engine.run.modules._args import Arg, module_args, validate

SPEC = {
    "_raw_params": Arg(),
    "_uses_shell": Arg(type="bool", default=False),
    "cmd": Arg(),
    "argv": Arg(type="list"),
    "chdir": Arg(type="path"),
    "executable": Arg(),
    "expand_argument_vars": Arg(type="bool", default=True),
    "creates": Arg(type="path"),
    "removes": Arg(type="path"),
    "stdin": Arg(),
    "stdin_add_newline": Arg(type="bool", default=True),
    "strip_empty_ends": Arg(type="bool", default=True),
}
_MODULE_NAME = "ansible.legacy.command"  # shell runs through command's module, so errors name it


def _with_lines(result: dict[str, Any]) -> dict[str, Any]:
    # the action plugin adds these for every module that returns stdout/stderr
    result["stdout_lines"] = result["stdout"].splitlines()
    result["stderr_lines"] = result["stderr"].splitlines()
    return result


def _skip_reason(creates: str | None, removes: str | None, verb: str, chdir: str | None) -> tuple[str, str] | None:
    # ansible's module has already changed into chdir when it globs
    if creates and glob.glob(creates, root_dir=chdir):
        return f"{verb} not run command since '{creates}' exists", f"skipped, since {creates} exists"
    if removes and not glob.glob(removes, root_dir=chdir):
        return f"{verb} not run command since '{removes}' does not exist", f"skipped, since {removes} does not exist"
    return None


def execute(args: dict[str, Any], ctx: ModuleContext, uses_shell: bool) -> dict[str, Any]:
    params = validate(_MODULE_NAME, args, SPEC)
    # the shell action runs the command module with _uses_shell set
    invocation = module_args(args, SPEC, {**params, "_uses_shell": uses_shell}, ("_uses_shell",) if uses_shell else ())
    result = _execute(params, ctx, uses_shell)
    # the module returns its invocation; the action plugin adds the lines after it
    lines = {key: result.pop(key) for key in ("stdout_lines", "stderr_lines") if key in result}
    return {**result, "invocation": invocation, **lines}


def _execute(params: dict[str, Any], ctx: ModuleContext, uses_shell: bool) -> dict[str, Any]:
    given = [name for name in ("_raw_params", "cmd", "argv") if params[name]]
    if not given:
        raise ModuleError("one of the following is required: _raw_params, cmd, argv")
    if len(given) > 1:
        raise ModuleError("parameters are mutually exclusive: _raw_params|cmd|argv")
    text = params["_raw_params"] or params["cmd"]
    command: str | list[str] = (text if uses_shell else shlex.split(text)) if text else params["argv"]
    result: dict[str, Any] = {
        "changed": False,
        "stdout": "",
        "stderr": "",
        "rc": None,
        "cmd": command,
        "start": None,
        "end": None,
        "delta": None,
        "msg": "",
    }
    chdir = params["chdir"]
    if chdir and not os.path.isdir(chdir):
        message = "Unable to change directory before execution."
        return _with_lines({**result, "failed": True, "msg": message,
                            **module_exception(message, _chdir_error(chdir), as_bytes=True)})
    skip = _skip_reason(params["creates"], params["removes"], "Would" if ctx.check_mode else "Did", chdir)
    if skip:
        result["msg"], result["stdout"] = skip
        result["rc"] = 0
        return _with_lines(result)
    result["changed"] = True
    if ctx.check_mode:
        result.update(rc=0, msg="Command would have run if not in check mode")
        if params["creates"] is None and params["removes"] is None:
            result.update(skipped=True, changed=False)  # skipped and changed are mutually exclusive
        return _with_lines(result)
    stdin = params["stdin"]
    if stdin is not None and params["stdin_add_newline"]:
        stdin += "\n"
    start = datetime.datetime.now()
    if uses_shell:
        argv: list[str] = [params["executable"] or "/bin/sh", "-c", command]  # type: ignore[list-item]
    # ansible's module process runs with the task's environment, so it expands against that too
    environment = {**os.environ, **ctx.environment}
    if not uses_shell:
        argv = [expand_user(expand_variables(a, environment), environment) if params["expand_argument_vars"] else a
                for a in command]
    try:
        # bytes, decoded as run_command decodes them: text mode would turn a "\r\n" into "\n"
        completed = subprocess.run(
            argv, cwd=chdir or None, input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
            capture_output=True, check=False, env=environment if ctx.environment else None,
        )
        rc = completed.returncode
        stdout, stderr = (out.decode("utf-8", "surrogateescape") for out in (completed.stdout, completed.stderr))
    except OSError as exc:  # run_command's fail_json: the arguments as one quoted line, no times
        return _with_lines({"changed": False, "failed": True, "rc": exc.errno, "stdout": "", "stderr": "",
                            "msg": "Error executing command.", "cmd": " ".join(shlex.quote(a) for a in argv),
                            **module_exception("Error executing command.", exc, as_bytes=True)})
    end = datetime.datetime.now()
    if params["strip_empty_ends"]:
        stdout, stderr = stdout.rstrip("\r\n"), stderr.rstrip("\r\n")
    result.update(rc=rc, stdout=stdout, stderr=stderr, start=str(start), end=str(end), delta=str(end - start))
    if (refused := _not_utf8(result)) is not None:
        return refused
    if rc != 0 and not result.get("failed"):
        result.update(failed=True, msg="non-zero return code")
    return _with_lines(result)


def _not_utf8(result: dict[str, Any]) -> dict[str, Any] | None:
    """The controller's refusal of a module response with text that is not UTF-8 (output kept as
    surrogate escapes, as run_command decodes it), at the first such string of the response
    (``MODULE_STRICT_UTF8_RESPONSE``): the task fails, whatever its failed_when."""
    for key in ("cmd", "stdout", "stderr"):
        if not isinstance(result.get(key), str):
            continue
        try:
            result[key].encode("utf-8")
        except UnicodeEncodeError as exc:
            from engine.run.error_block import CONTEXT_KEY, ERROR_KEY, Event

            refusal = f"Refusing to deserialize an invalid UTF8 string value: {exc}"
            return {"changed": False, "failed": True, "msg": f"Task failed: {refusal}", CONTEXT_KEY: "task",
                    ERROR_KEY: [Event(refusal, help=STRICT_UTF8_HELP)], "exception": "(traceback unavailable)"}
    return None


STRICT_UTF8_HELP = "This check can be disabled with the `MODULE_STRICT_UTF8_RESPONSE` setting."


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if "_uses_shell" in args:
        raise ModuleError(f"Unsupported parameters for ({_MODULE_NAME}) module: _uses_shell")
    return execute(args, ctx, uses_shell=False)


def _chdir_error(path: str) -> OSError:
    """The error ``os.chdir(path)`` raises in the module (the path as bytes): opening the path as
    a directory meets the same one (missing, not a directory, no permission)."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECTORY))
    except OSError as exc:
        return exc
    return NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)

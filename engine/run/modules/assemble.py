"""assemble: a file made of the fragments of a directory (sorted by name), as ansible's module
makes it where the fragments are (``remote_src``, the default; fragments on the controller are
declined before the run, engine.run.declines)."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import tempfile
import time
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, validate
from engine.run.modules._content import known_arguments, run_validate
from engine.run.modules._files import backup, check_ownership, file_attributes, path_facts, write_atomically

SPEC = {
    "src": Arg(type="path", required=True),
    "delimiter": Arg(),
    "dest": Arg(type="path", required=True),
    "backup": Arg(type="bool", default=False),
    "remote_src": Arg(type="bool", default=True),
    "regexp": Arg(),
    "ignore_hidden": Arg(type="bool", default=False),
    "validate": Arg(),
    "decrypt": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}


def fragments(src: str, delimiter: str | None, pattern: re.Pattern[str] | None, ignore_hidden: bool) -> bytes:
    """``assemble_from_fragments``: a newline after a fragment without one, the delimiter
    (escapes decoded, a newline after it) between fragments."""
    out = b""
    delimit = add_newline = False
    for name in sorted(os.listdir(src)):
        if pattern is not None and not pattern.search(name):
            continue
        fragment = os.path.join(src, name)
        if not os.path.isfile(fragment) or (ignore_hidden and name.startswith(".")):
            continue
        with open(fragment, "rb") as handle:
            content = handle.read()
        if add_newline:
            out += b"\n"
        if delimit and delimiter:
            decoded = codecs.escape_decode(delimiter)[0]  # type: ignore[attr-defined]
            out += decoded if decoded.endswith(b"\n") else decoded + b"\n"
        out += content
        delimit, add_newline = True, not content.endswith(b"\n")
    return out


def _validation(command: str, data: bytes, dest: str) -> dict[str, Any]:
    handle, candidate = tempfile.mkstemp(dir=os.path.dirname(dest) or ".", prefix=".assemble")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        done = run_validate(command % candidate)
    finally:
        os.unlink(candidate)
    if isinstance(done, dict):  # its program could not be run: the module's own failure, with the
        return {**done, "stdout_lines": [], "stderr_lines": []}  # lines the action adds to any result
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


_MODULE_NAME = "ansible.legacy.assemble"  # the module the action runs, which its messages name


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if args.get("src") is None or args.get("dest") is None:  # the action's own check
        return {"changed": False, "failed": True, "msg": "src and dest are required"}
    args = {key: value for key, value in args.items() if key != "decrypt"}  # the action pops it
    # the action reads remote_src itself (boolean, not strict); the module checks every argument
    if not validate(_MODULE_NAME, known_arguments(args, SPEC), SPEC, strict=False)["remote_src"]:
        return {"changed": False, "failed": True, "msg": "playbook-ls's engine does not implement 'assemble: "
                "remote_src=false' (fragments on the controller); run with --engine ansible"}
    params = validate(_MODULE_NAME, args, SPEC)
    src, dest = params["src"], params["dest"]
    result: dict[str, Any] = {"src": src, "dest": dest}
    if not os.path.exists(src):
        return {"changed": False, "failed": True, "msg": f"Source ({src}) does not exist"}
    if not os.path.isdir(src):
        return {"changed": False, "failed": True, "msg": f"Source ({src}) is not a directory"}
    pattern = None
    if params["regexp"] is not None:
        try:
            pattern = re.compile(params["regexp"])
        except re.error as exc:
            return {"changed": False, "failed": True, "msg": f'Invalid Regexp ({exc}) in "{params["regexp"]}"'}
    validate_command = params["validate"]
    if validate_command and "%s" not in validate_command:
        return {"changed": False, "failed": True, "msg": f"validate must contain %s: {validate_command}"}
    check_ownership(dest, params["owner"], params["group"])
    data = fragments(src, params["delimiter"], pattern, params["ignore_hidden"])
    result["checksum"] = hashlib.sha1(data).hexdigest()
    result["md5sum"] = hashlib.md5(data).hexdigest()  # noqa: S324 - ansible's backwards-compatible field
    dest_hash = None
    if os.path.exists(dest):
        with open(dest, "rb") as handle:
            dest_hash = hashlib.sha1(handle.read()).hexdigest()
    changed = False
    if result["checksum"] != dest_hash:
        if validate_command:  # run as run_command runs a string: split, no shell; in check mode too
            result["validation"] = _validation(validate_command, data, dest)
            if result["validation"].get("failed"):
                return result["validation"]
            if result["validation"]["rc"] != 0:
                return {"changed": False, "failed": True, "msg": f"failed to validate: "
                        f"rc:{result['validation']['rc']} error:{result['validation']['stderr']}"}
        if params["backup"] and dest_hash is not None:  # backup_local names it, in check mode too
            result["backup_file"] = backup(dest) if not ctx.check_mode else \
                f"{dest}.{os.getpid()}.{time.strftime('%Y-%m-%d@%H:%M:%S', time.localtime(time.time()))}~"
        if not ctx.check_mode:
            write_atomically(dest, data)  # atomic_move renames onto dest: a link there is replaced
            if dest_hash is None:  # atomic_move stats the new file's directory: b'' fails the module
                os.stat(os.path.dirname(os.fsencode(dest)))
        changed = True
    _msg, result["changed"] = file_attributes(dest, params, ctx.check_mode, changed, "")
    result["msg"] = "OK"
    return path_facts(result)

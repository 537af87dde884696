"""fetch: a file of the host copied to the controller, as ansible's action does it on the local
connection (the host's file stat-ed and checksummed, ``flat`` or under ``dest/HOST/src``, the
controller's copy compared by checksum); skipped in check mode, as the action is."""

from __future__ import annotations

import hashlib
import os
import shutil
from typing import Any

from engine.run.environment import remote_expand_user
from engine.run.error_block import CONTEXT_KEY
from engine.run.modules import ModuleContext, action_skip, slurp
from engine.run.modules._args import _TRUE


def _sha1(path: str) -> str | None:
    if not os.path.exists(path) or os.path.isdir(path):
        return None
    with open(path, "rb") as handle:
        return hashlib.sha1(handle.read()).hexdigest()


def _md5(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.md5(handle.read()).hexdigest()  # noqa: S324 - ansible's backwards-compatible field


def _flag(value: Any, default: bool) -> bool:
    """``boolean(value, strict=False)``: anything not a true spelling is false."""
    if value is None:
        return default
    return value if isinstance(value, bool) else str(value).strip().lower() in _TRUE


class _Fail(Exception):
    pass


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if ctx.check_mode:
        return action_skip("check mode not (yet) supported for this module")
    try:
        return _fetch(args, ctx)
    except _Fail as exc:  # AnsibleActionFail, raised: "Task failed: MSG"
        return {"changed": False, "failed": True, "msg": str(exc), CONTEXT_KEY: "task"}


def _fetch(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    source, dest = args.get("src"), args.get("dest")
    flat = _flag(args.get("flat"), False)
    fail_on_missing = _flag(args.get("fail_on_missing", True), True)
    validate_checksum = _flag(args.get("validate_checksum", True), True)
    message = ""
    if not isinstance(source, str):
        message = "Invalid type supplied for source option, it must be a string"
    if not isinstance(dest, str):
        message = "Invalid type supplied for dest option, it must be a string"
    if source is None or dest is None:
        message = "src and dest are required"
    if message:
        raise _Fail(message)
    assert isinstance(source, str) and isinstance(dest, str)
    source = remote_expand_user(source)  # the action's: ~ is the user's home
    if os.path.isdir(source):
        if not fail_on_missing:
            return {"msg": "remote file is a directory, fetch cannot work on directories, not transferring, ignored"}
        return {"changed": False, "failed": True, "msg": "remote file is a directory, fetch cannot work on directories",
                CONTEXT_KEY: "action"}
    remote_checksum = _sha1(source)
    if remote_checksum is None:  # slurp answers for a missing file: its failure, or the file ignored
        missing = "the remote file does not exist, not transferring, ignored"
        if not fail_on_missing:
            return {"file": source, "changed": False, "msg": missing}
        # the action returns slurp's failure (fail_json: no "changed") with its own message
        slurped = slurp.run({"src": source}, ctx, action="ansible.legacy.slurp")
        failure = {key: value for key, value in slurped.items() if key != "changed"}
        return {**failure, "invocation": {"module_args": {"src": source}}, "msg": missing}
    if flat:
        if os.path.isdir(dest) and not dest.endswith(os.sep):
            raise _Fail("dest is an existing directory, use a trailing slash if you want to fetch src into that "
                        "directory")
        if dest.endswith(os.sep):
            dest = os.path.join(dest, os.path.basename(source))
            if os.path.isdir(dest):
                raise _Fail(f"calculated dest '{dest}' is an existing directory, use another path that does not "
                            "point to an existing directory")
        dest = os.path.abspath(dest)  # path_dwim: the playbook's directory, where modules run
    else:
        host = ctx.task_vars.get("inventory_hostname", "localhost")
        dest = f"{os.path.abspath(dest)}/{host}/{source}"
    dest = os.path.normpath(dest)
    local_checksum = _sha1(dest)
    if remote_checksum == local_checksum:
        return {"changed": False, "md5sum": _md5(dest), "file": source, "dest": dest, "checksum": local_checksum}
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(source, dest)
    new_checksum = _sha1(dest)
    if validate_checksum and new_checksum != remote_checksum:
        return {"failed": True, "md5sum": _md5(dest), "msg": "checksum mismatch", "file": source, "dest": dest,
                "remote_md5sum": None, "checksum": new_checksum, "remote_checksum": remote_checksum}
    return {"changed": True, "md5sum": _md5(dest), "dest": dest, "remote_md5sum": None, "checksum": new_checksum,
            "remote_checksum": remote_checksum}

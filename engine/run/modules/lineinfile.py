"""lineinfile: make sure one line is in a file (possibly replacing a regexp match) or that
matching lines are gone. A port of ansible's module, which works on the file's bytes."""

from __future__ import annotations

import os
import re
from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, module_args, validate
from engine.run.modules._content import write_validated
from engine.run.modules._files import backup, check_ownership, file_attributes

SPEC = {
    "path": Arg(type="path", required=True, aliases=("dest", "destfile", "name")),
    "state": Arg(default="present", choices=("absent", "present")),
    "regexp": Arg(aliases=("regex",)),
    "search_string": Arg(),
    "line": Arg(aliases=("value",)),
    "insertafter": Arg(),
    "insertbefore": Arg(),
    "backrefs": Arg(type="bool", default=False),
    "create": Arg(type="bool", default=False),
    "backup": Arg(type="bool", default=False),
    "firstmatch": Arg(type="bool", default=False),
    "validate": Arg(),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
_EXCLUSIVE = (("insertbefore", "insertafter"), ("regexp", "search_string"), ("backrefs", "search_string"))
_SEP = os.linesep.encode()


def _content_diff(path: str) -> dict[str, Any]:
    return {"before": "", "after": "", "before_header": f"{path} (content)", "after_header": f"{path} (content)"}


def _locate(
    lines: list[bytes], params: dict[str, Any], line: bytes, insert_pattern: re.Pattern[bytes] | None
) -> tuple[int, int, re.Match[bytes] | bool | None, bool]:
    """(index of the line to replace, index to insert at, the match, whether ``line`` is there verbatim)."""
    replace_at, insert_at, match, exact = -1, -1, None, False
    regexp, search, first = params["regexp"], params["search_string"], params["firstmatch"]
    for number, current in enumerate(lines):
        found = (
            re.search(regexp.encode(), current)
            if regexp is not None
            else (search.encode() in current if search is not None else None)
        )
        if found:
            replace_at, match = number, found
            if first:
                break
    if not match:
        after = params["insertafter"]
        for number, current in enumerate(lines):
            if line == current.rstrip(b"\r\n"):
                replace_at, exact = number, True
            elif insert_pattern is not None and insert_pattern.search(current):
                insert_at = number + 1 if after else number
                if first:
                    break
    return replace_at, insert_at, match, exact


def _insert(lines: list[bytes], line: bytes, params: dict[str, Any], insert_at: int) -> bool:
    """Add ``line`` where ansible's present() would when nothing matched; False if already there."""
    after, before = params["insertafter"], params["insertbefore"]
    if before == "BOF" or after == "BOF":
        lines.insert(0, line + _SEP)
    elif after == "EOF" or insert_at == -1:
        if lines and lines[-1][-1:] not in (b"\n", b"\r"):
            lines.append(_SEP)
        lines.append(line + _SEP)
    elif after and len(lines) == insert_at:
        if lines[insert_at - 1].rstrip(b"\r\n") == line:
            return False
        lines.append(line + _SEP)
    elif after and line == lines[insert_at].rstrip(b"\n\r"):
        return False
    else:
        lines.insert(insert_at, line + _SEP)
    return True


def _present(path: str, params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if params["regexp"] is not None:
        re.compile(params["regexp"].encode())  # as ansible's module, before reading: a bad one fails the task
    diff = _content_diff(path)
    if not os.path.exists(path):
        if not params["create"]:
            return {"changed": False, "failed": True, "rc": 257, "msg": f"Destination {path} does not exist !"}
        if os.path.dirname(path) and not ctx.check_mode:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        lines: list[bytes] = []
    else:
        with open(path, "rb") as handle:
            lines = handle.readlines()
    if ctx.diff:
        diff["before"] = b"".join(lines).decode("utf-8", "replace")
    after, before = params["insertafter"], params["insertbefore"]
    if before is None and after is None:
        after = params["insertafter"] = "EOF"
    pattern = after if after not in (None, "BOF", "EOF") else before if before not in (None, "BOF") else None
    line = params["line"].encode()
    replace_at, insert_at, match, _ = _locate(lines, params, line, re.compile(pattern.encode()) if pattern else None)
    changed, msg = False, ""
    if replace_at != -1:
        new = match.expand(line) if params["backrefs"] and isinstance(match, re.Match) else line
        if not new.endswith(_SEP):
            new += _SEP
        if lines[replace_at] != new:
            lines[replace_at], changed, msg = new, True, "line replaced"
    elif not params["backrefs"] and _insert(lines, line, params, insert_at):
        changed, msg = True, "line added"
    if ctx.diff:
        diff["after"] = b"".join(lines).decode("utf-8", "replace")
    return _finish(path, lines, changed, msg, diff, params, ctx, {})


def _absent(path: str, params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if not os.path.exists(path):
        return {"changed": False, "msg": "file not present"}
    diff = _content_diff(path)
    with open(path, "rb") as handle:
        lines = handle.readlines()
    if ctx.diff:
        diff["before"] = b"".join(lines).decode("utf-8", "replace")
    regexp, search, line = params["regexp"], params["search_string"], params["line"]

    def matches(current: bytes) -> bool:
        if regexp is not None:
            return bool(re.search(regexp.encode(), current))
        if search is not None:
            return search.encode() in current
        return line.encode() == current.rstrip(b"\r\n")

    kept = [current for current in lines if not matches(current)]
    found = len(lines) - len(kept)
    if ctx.diff:
        diff["after"] = b"".join(kept).decode("utf-8", "replace")
    msg = f"{found} line(s) removed" if found else ""
    return _finish(path, kept, found > 0, msg, diff, params, ctx, {"found": found})


def _finish(
    path: str,
    lines: list[bytes],
    changed: bool,
    msg: str,
    diff: dict[str, Any],
    params: dict[str, Any],
    ctx: ModuleContext,
    extra: dict[str, Any],
) -> dict[str, Any]:
    backup_file = ""
    if changed and not ctx.check_mode:
        if params["backup"] and os.path.exists(path):
            backup_file = backup(path)
        if failure := write_validated(path, b"".join(lines), params["validate"]):
            return failure
    if ctx.check_mode and not os.path.exists(path):
        return {"changed": changed, "msg": msg, "backup": backup_file, "diff": diff, **extra}
    attribute_diff: dict[str, Any] = {}
    msg, changed = file_attributes(path, params, ctx.check_mode, changed, msg, attribute_diff)
    attribute_diff.update(before_header=f"{path} (file attributes)", after_header=f"{path} (file attributes)")
    return {"changed": changed, "msg": msg, "backup": backup_file, "diff": [diff, attribute_diff], **extra}


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "lineinfile") -> dict[str, Any]:
    params = validate(action, args, SPEC, mutually_exclusive=_EXCLUSIVE)
    invocation = module_args(args, SPEC, params)  # before the module works on its params
    return {**_lineinfile(params, ctx), "invocation": invocation}


def _lineinfile(params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    path = params["path"]
    if os.path.isdir(path):
        return {"changed": False, "failed": True, "rc": 256, "msg": f"Path {path} is a directory !"}
    check_ownership(path, params["owner"], params["group"])
    if params["state"] == "present":
        if params["backrefs"] and params["regexp"] is None:
            raise ModuleError("regexp is required with backrefs=true")
        if params["line"] is None:
            raise ModuleError("line is required with state=present")
        return _present(path, params, ctx)
    if (params["regexp"], params["search_string"], params["line"]) == (None, None, None):
        raise ModuleError("one of line, search_string, or regexp is required with state=absent")
    return _absent(path, params, ctx)

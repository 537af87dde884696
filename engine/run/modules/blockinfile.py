"""blockinfile: a block of lines between two marker lines, inserted, replaced or removed.
A port of ansible's module, which works on the file's bytes."""

from __future__ import annotations

import os
import re
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, module_args, validate
from engine.run.modules._content import write_validated
from engine.run.modules._files import backup, check_ownership, file_attributes

SPEC = {
    "path": Arg(type="path", required=True, aliases=("dest", "destfile", "name")),
    "state": Arg(default="present", choices=("absent", "present")),
    "marker": Arg(default="# {mark} ANSIBLE MANAGED BLOCK"),
    "block": Arg(default="", aliases=("content",)),
    "insertafter": Arg(),
    "insertbefore": Arg(),
    "create": Arg(type="bool", default=False),
    "backup": Arg(type="bool", default=False),
    "validate": Arg(),
    "marker_begin": Arg(default="BEGIN"),
    "marker_end": Arg(default="END"),
    "append_newline": Arg(type="bool", default=False),
    "prepend_newline": Arg(type="bool", default=False),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
_SEP = os.linesep.encode()


def _insert_index(lines: list[bytes], original: bytes | None, after: str | None, before: str | None) -> int:
    """Where a block without markers in the file goes."""
    pattern = after if after not in (None, "EOF") else before if before not in (None, "BOF") else None
    if pattern is None:
        return 0 if before is not None else len(lines)
    regexp = re.compile(pattern.encode("utf-8", "surrogateescape"))
    index = None
    if regexp.flags & re.MULTILINE:
        match = regexp.search(original or b"")
        if match:
            text = (original or b"").decode("utf-8", "surrogateescape")
            index = text.count("\n", 0, match.end() if after else match.start())
    else:
        for number, line in enumerate(lines):
            if regexp.search(line):
                index = number
    if index is None:
        return len(lines)
    return index + 1 if after is not None else index


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "blockinfile") -> dict[str, Any]:
    params = validate(action, args, SPEC, mutually_exclusive=(("insertbefore", "insertafter"),))
    invocation = module_args(args, SPEC, params)
    return {**_blockinfile(params, ctx), "invocation": invocation}


def _blockinfile(params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    """The module's result, its keys in the order ansible's module gives them."""
    path = params["path"]
    if os.path.isdir(path):
        return {"rc": 256, "failed": True, "msg": f"Path {path} is a directory !"}
    check_ownership(path, params["owner"], params["group"])
    exists = os.path.exists(path)
    original: bytes | None = None
    lines: list[bytes] = []
    if not exists:
        if not params["create"]:
            return {"rc": 257, "failed": True, "msg": f"Path {path} does not exist !"}
        directory = os.path.dirname(path)
        if directory and not os.path.exists(directory) and not ctx.check_mode:
            os.makedirs(directory)
    else:
        with open(path, "rb") as handle:
            original = handle.read()
        lines = original.splitlines(True)
    diff: dict[str, Any] = {"before": "", "after": "", "before_header": f"{path} (content)",
                            "after_header": f"{path} (content)"}
    if ctx.diff and original:
        diff["before"] = original.decode("utf-8", "replace")
    present = params["state"] == "present"
    if not present and not exists:
        return {"changed": False, "msg": f"File {path} not present"}
    after, before = params["insertafter"], params["insertbefore"]
    if after is None and before is None:
        after = "EOF"
    marker = params["marker"].encode()
    begin = marker.replace(b"{mark}", params["marker_begin"].encode()) + _SEP
    end = marker.replace(b"{mark}", params["marker_end"].encode()) + _SEP
    block = params["block"].encode()
    block_lines: list[bytes] = []
    if present and block:
        if not block.endswith(_SEP):
            block += _SEP
        block_lines = [begin, *block.splitlines(True), end]
    first = last = None
    for number, line in enumerate(lines):
        if line == begin:
            first = number
        if line == end:
            last = number
    if first is None or last is None:
        at = _insert_index(lines, original, after, before)
    else:
        at = min(first, last)
        del lines[at : max(first, last) + 1]
    if at > 0 and not lines[at - 1].endswith(_SEP):
        lines[at - 1] += _SEP
    if params["prepend_newline"] and present and at != 0 and lines[at - 1] != _SEP:
        lines[at:at] = [_SEP]
        at += 1
    lines[at:at] = block_lines
    if params["append_newline"] and present:
        following = at + len(block_lines)
        if following < len(lines) and lines[following] != _SEP:
            lines[following:following] = [_SEP]
    result = b"".join(lines)
    if ctx.diff:
        diff["after"] = result.decode("utf-8", "replace")
    changed = original != result
    msg = "" if not changed else "File created" if original is None else "Block removed" if not block_lines \
        else "Block inserted"
    backup_file = None
    if changed and not ctx.check_mode:
        if params["backup"] and exists:
            backup_file = backup(path)
        if failure := write_validated(path, result, params["validate"]):
            return failure
    if ctx.check_mode and not exists:
        return {"changed": changed, "msg": msg, "diff": diff}
    attribute_diff: dict[str, Any] = {}
    msg, changed = file_attributes(path, params, ctx.check_mode, changed, msg, attribute_diff)
    attribute_diff.update(before_header=f"{path} (file attributes)", after_header=f"{path} (file attributes)")
    done: dict[str, Any] = {"changed": changed, "msg": msg, "diff": [diff, attribute_diff]}
    if backup_file is not None:
        done["backup_file"] = backup_file
    return done

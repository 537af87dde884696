"""replace: every match of a regular expression in a file replaced (within the part between
``after`` and ``before``), as ansible's module does it on the decoded text."""

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
    "regexp": Arg(required=True),
    "replace": Arg(default=""),
    "after": Arg(),
    "before": Arg(),
    "backup": Arg(type="bool", default=False),
    "validate": Arg(),
    "encoding": Arg(default="utf-8"),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "replace") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    invocation = module_args(args, SPEC, params)
    return {**_replace(params, ctx), "invocation": invocation}


def _replace(params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    """The module's result, its keys in the order ansible's module gives them."""
    path, encoding = params["path"], params["encoding"]
    result: dict[str, Any] = {"rc": 0}
    if os.path.isdir(path):
        return {"rc": 256, "failed": True, "msg": f"Path {path} is a directory !"}
    if not os.path.exists(path):
        return {"rc": 257, "failed": True, "msg": f"Path {path} does not exist !"}
    check_ownership(path, params["owner"], params["group"])
    with open(path, "rb") as handle:
        contents = handle.read().decode(encoding, "surrogateescape")
    after, before = params["after"], params["before"]
    pattern = ""
    if after and before:
        pattern = f"{after}(?P<subsection>.*?){before}"
    elif after:
        pattern = f"{after}(?P<subsection>.*)"
    elif before:
        pattern = f"(?P<subsection>.*){before}"
    if pattern:
        match = re.search(re.compile(pattern, re.DOTALL), contents)
        if not match:
            return {**result, "msg": f"Pattern for before/after params did not match the given file: {pattern}",
                    "changed": False}
        section, span = match.group("subsection"), (match.start("subsection"), match.end("subsection"))
    else:
        section, span = contents, (0, len(contents))
    regexp = re.compile(params["regexp"], re.MULTILINE)  # a bad one fails the module, as in ansible
    try:
        replaced, count = re.subn(regexp, params["replace"], section)
    except re.error as exc:
        return {"failed": True, "msg": f"Unable to process replace due to error: {exc}"}
    changed, msg = False, ""
    if count > 0 and replaced != section:
        new = contents[: span[0]] + replaced + contents[span[1] :]
        changed, msg = True, f"{count} replacements made"
        if ctx.diff:
            result["diff"] = {"before_header": path, "before": contents, "after_header": path, "after": new}
        if not ctx.check_mode:
            if params["backup"]:
                result["backup_file"] = backup(path)
            if failure := write_validated(path, new.encode(encoding, "surrogateescape"), params["validate"]):
                return failure
    result["msg"], result["changed"] = file_attributes(path, params, ctx.check_mode, changed, msg)
    return result

"""slurp: a file's content, base64-encoded, as ansible's module returns it."""

from __future__ import annotations

import base64
import errno
from typing import Any

from engine.run.modules import ModuleContext, module_exception
from engine.run.modules._args import Arg, validate

SPEC = {"src": Arg(type="path", required=True, aliases=("path",))}


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "slurp") -> dict[str, Any]:
    source = validate(action, args, SPEC)["src"]
    try:
        with open(source, "rb") as handle:
            data = base64.b64encode(handle.read()).decode("ascii")
    except OSError as exc:
        messages = {errno.ENOENT: f"File not found: {source}", errno.EACCES: f"File is not readable: {source}",
                    errno.EISDIR: f"Source is a directory and must be a file: {source}"}
        # ansible's module forgets the f of its f-string in the last message
        message = messages.get(exc.errno, "Unable to slurp file: {source}")
        return {"changed": False, "failed": True, "msg": message, **module_exception(message, exc)}
    return {"changed": False, "content": data, "source": source, "encoding": "base64"}

"""raw: a command line run through the shell as it is, as ansible's action plugin runs it (no
module, so no environment; skipped in check mode)."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._shell import low_level_execute


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    # the action reads _raw_params and executable and ignores any other argument (no _VALID_ARGS)
    result: dict[str, Any] = {}
    if ctx.environment:
        result["warnings"] = ["raw module does not support the environment keyword"]
    if ctx.check_mode:
        return {**result, "skipped": True}
    command = args.get("_raw_params")
    if not isinstance(command, str) or not command.strip():
        raise ModuleError("raw needs a command line")
    executable = args.get("executable") or None
    result.update(low_level_execute(command, ctx, executable=str(executable) if executable else None),
                  changed=True)
    if result["rc"] != 0:
        result.update(failed=True, msg="non-zero return code")
    return result

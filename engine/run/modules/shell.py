"""shell: command's module with the command line given to a shell (``executable``, else /bin/sh)."""

from __future__ import annotations

from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules.command import execute


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    for command_only in ("expand_argument_vars", "_uses_shell"):
        if command_only in args:
            raise ModuleError(f"Unsupported parameters for (shell) module: {command_only}")
    return execute(args, ctx, uses_shell=True)

"""The command line ansible's action plugins run through the connection when they run no module
(raw, script): ``_low_level_execute_command`` on the local connection, which starts ``/bin/sh -c``
in the playbook's directory and returns the output unstripped."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any

from engine.run.modules import ModuleContext


def basedir(ctx: ModuleContext) -> str:
    """The loader's base directory, where the local connection runs commands: the play's."""
    return ctx.search_paths[-1] if ctx.search_paths else os.getcwd()


def low_level_execute(command: str, ctx: ModuleContext, executable: str | None = None, chdir: str | None = None,
                      environment: dict[str, str] | None = None) -> dict[str, Any]:
    if chdir:
        command = f"cd {chdir} && {command}"
    if executable is None:
        command = f"{command} && sleep 0"
    line = f"{executable or '/bin/sh'} -c {shlex.quote(command)}"
    completed = subprocess.run(line, shell=True, executable="/bin/sh", cwd=basedir(ctx), capture_output=True,
                               stdin=subprocess.DEVNULL, check=False,
                               env={**os.environ, **environment} if environment else None)
    stdout = completed.stdout.decode("utf-8", "replace")
    stderr = completed.stderr.decode("utf-8", "replace")
    return {"rc": completed.returncode, "stdout": stdout, "stdout_lines": stdout.splitlines(), "stderr": stderr,
            "stderr_lines": stderr.splitlines()}

"""Run a playbook text through plan + executor in a scratch directory."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path
from typing import Any

from engine.flow.plan import RunOptions, make_plan
from engine.run.callback import Callback
from engine.run.executor import Executor


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def run_playbook(root: Path, playbook: str, files: dict[str, str] | None = None, modules: Any = None,
                 **options: Any) -> tuple[int, str, dict[str, Any]]:
    write(root, {"site.yml": playbook, **(files or {})})
    run_options = RunOptions(playbook=str(root / "site.yml"), inventory=options.pop("inventory", ["localhost,"]),
                             **options)
    plan = make_plan(run_options)
    out = io.StringIO()
    callback = Callback(out, run_options.verbosity, run_options.diff)
    code = Executor(plan, callback, modules).run()
    return code, out.getvalue(), json.loads(json.dumps(callback.as_json()))

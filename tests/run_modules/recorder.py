"""Runs every case through the real ansible-playbook (one play, one task per case, each in
its own scratch directory) and returns what ansible reported and left on disk.

``python tests/run_modules/recorder.py`` rewrites fixtures/results.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES  # noqa: E402
from module_cases import TEMPLATE_VARS, Case, lay_out, normalise, snapshot, substitute  # noqa: E402

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "results.json"


def _task(case: Case, root: Path) -> dict[str, Any]:
    return {
        "name": case.id,
        case.module: substitute(case.args, str(root / case.id)),
        "check_mode": case.check,
        "diff": case.diff,
        "ignore_errors": True,
    }


def record(ansible_playbook: str, cases: list[Case] = CASES) -> dict[str, Any]:
    """{case id: {"result": normalised result, "disk": snapshot of its directory}}."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve()
        for case in cases:
            lay_out(root / case.id, case.setup)
        play = {
            "hosts": "localhost",
            "gather_facts": False,
            "vars": {k: v for k, v in TEMPLATE_VARS.items() if k != "ansible_verbosity"},
            "tasks": [_task(case, root) for case in cases],
        }
        playbook = root / "play.yml"
        playbook.write_text(json.dumps([play]))
        results_file = root / "results.json"
        env = dict(
            os.environ,
            RECORD_RESULTS_FILE=str(results_file),
            ANSIBLE_CALLBACK_PLUGINS=str(HERE / "callback_plugins"),
            ANSIBLE_CALLBACKS_ENABLED="record_results",
            ANSIBLE_LOCALHOST_WARNING="0",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
            ANSIBLE_DEPRECATION_WARNINGS="0",
            ANSIBLE_NOCOLOR="1",
        )
        subprocess.run(
            [
                ansible_playbook,
                "-i",
                "localhost,",
                "-c",
                "local",
                "-e",
                f"ansible_python_interpreter={sys.executable}",
                str(playbook),
            ],
            cwd=root,
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        )
        raw = json.loads(results_file.read_text())
        return {
            case.id: {"result": normalise(raw.get(case.id), str(root / case.id)), "disk": snapshot(root / case.id)}
            for case in cases
        }


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    from ansible_tools import find_tool

    tool = find_tool("ansible-playbook")
    if tool is None:
        raise SystemExit("ansible-playbook not found")
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(record(tool), indent=1, sort_keys=True) + "\n")

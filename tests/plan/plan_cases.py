"""Recorded runs for ``playbook-ls plan``: what ansible-playbook did with each task on each host.

Every directory under ``scenarios/`` is one scenario: a ``site.yml``, an ``inventory.ini``,
whatever vars files and task files it needs, and a ``case.json``::

    {"description": "...", "args": ["--tags", "deploy", "-e", "x=1"]}

``args`` are ansible-playbook options (playbook-ls plan is given the same). The test-only
callback in ``callback_plugins/`` records, with ``-c local``, each task's status per host into
``scenarios/NAME/expected.json`` as ``{"FILE:LINE": {HOST: [STATUS, ...]}}``.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/plan/plan_cases.py [NAME...]           # rewrite expected.json
    python tests/plan/plan_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import find_tool  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"


def scenarios(names: list[str] | None = None) -> list[Path]:
    found = sorted(p for p in SCENARIOS.iterdir() if (p / "case.json").is_file())
    return [p for p in found if not names or p.name in names]


def case(scenario: Path) -> dict[str, Any]:
    return json.loads((scenario / "case.json").read_text())


def ansible_outcomes(scenario: Path, tool: str) -> dict[str, Any]:
    """Run the scenario with ansible-playbook in a scratch copy; each task's status per host."""
    spec = case(scenario)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / scenario.name
        shutil.copytree(scenario, root, ignore=shutil.ignore_patterns("expected.json", "case.json"))
        out = Path(scratch) / "outcomes.json"
        env = {**os.environ, "ANSIBLE_CALLBACKS_ENABLED": "task_outcomes",
               "ANSIBLE_CALLBACK_PLUGINS": str(HERE / "callback_plugins"), "PLAN_OUTCOMES_OUT": str(out),
               "PLAN_ROOT": str(root), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "0",
               "ANSIBLE_PYTHON_INTERPRETER": sys.executable}
        command = [tool, "site.yml", "-c", "local", "-i", "inventory.ini", *spec.get("args", [])]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        if not out.is_file():
            raise RuntimeError(f"{scenario.name}: ansible-playbook recorded nothing (exit {done.returncode})\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return json.loads(out.read_text())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args(argv)
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    failed = 0
    for scenario in scenarios(args.names):
        outcomes = ansible_outcomes(scenario, tool)
        expected = scenario / "expected.json"
        if args.verify:
            same = expected.is_file() and json.loads(expected.read_text()) == outcomes
            print(f"{scenario.name}: {'same' if same else 'DIFFERENT'}")
            failed += not same
        else:
            expected.write_text(json.dumps(outcomes, indent=2, sort_keys=True) + "\n")
            print(f"{scenario.name}: {sum(map(len, outcomes.values()))} task-host outcomes recorded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

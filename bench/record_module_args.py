"""Record what ansible-playbook does with each task of the module-argument corpus.

Usage: python bench/record_module_args.py [--ansible-playbook CMD] [--collections]

Runs tests/rules/data/module_args/playbook.yml (and, with --collections, collections.yml, which
needs the full ``ansible`` package) against localhost with a scratch directory, and writes each
task's result to recorded.json beside it: the first line of ansible's failure message, or ``ok``,
``changed``, ``skipped``. tests/rules/test_module_args.py checks that the argument rules
(PLS124-PLS127) report exactly the tasks ansible refused for their arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "rules" / "data" / "module_args"


def run(playbook: Path, ansible_playbook: str) -> dict[str, str]:
    """Task name -> ansible's verdict on it."""
    python = str(Path(ansible_playbook).resolve().parent / "python")
    env = {**os.environ, "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json", "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_LOCALHOST_WARNING": "False", "ANSIBLE_DEPRECATION_WARNINGS": "False"}
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "a").mkdir()
        with tarfile.open(Path(scratch, "files.tar"), "w") as archive:
            archive.add(Path(scratch, "a"), arcname="a")
        done = subprocess.run([ansible_playbook, "-c", "local", "-i", "localhost,", str(playbook),
                               "-e", f"scratch={scratch}", "-e", f"ansible_python_interpreter={python}"],
                              capture_output=True, text=True, env=env, cwd=scratch, check=False)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        sys.exit(f"ansible-playbook gave no JSON report:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    verdicts: dict[str, str] = {}
    for play in report["plays"]:
        for task in play["tasks"]:
            result = task["hosts"].get("localhost", {})
            if result.get("failed"):
                verdict = str(result.get("msg", "failed")).splitlines()[0]
            elif result.get("skipped"):
                verdict = "skipped"
            else:
                verdict = "changed" if result.get("changed") else "ok"
            verdicts[task["task"]["name"]] = verdict
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ansible-playbook", default="ansible-playbook")
    parser.add_argument("--collections", action="store_true", help="also the tasks of installed collections")
    args = parser.parse_args()
    recorded: dict[str, dict[str, str]] = {}
    for name in ("playbook.yml", "collections.yml") if args.collections else ("playbook.yml",):
        recorded[name] = run(DATA / name, args.ansible_playbook)
    target = DATA / "recorded.json"
    if target.exists():
        recorded = {**json.loads(target.read_text()), **recorded}
    version = subprocess.run([args.ansible_playbook, "--version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[0]
    recorded["ansible"] = {"version": version}  # type: ignore[assignment]
    target.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    for name, verdicts in recorded.items():
        for task, verdict in verdicts.items():
            print(f"{name}: {task}: {verdict}")


if __name__ == "__main__":
    main()

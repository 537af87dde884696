"""Finding the real ansible tools the differential tests compare with."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def find_tool(name: str) -> str | None:
    """``name`` (ansible-playbook, ansible-inventory, ansible) installed beside this Python, as in
    a virtualenv that is not activated, else on PATH; None when ansible-core is not installed."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)


LIVE_ALL = "PLAYBOOK_LS_LIVE"
"""``all`` re-runs ansible on every recording; a number N on one in N (a subset of the default one
in three when N is a multiple of 3); unset, a fixed third."""


def live_sample(names: list[str], share: int = 3) -> list[str]:
    """The recordings a test re-checks against the real ansible: every one with
    ``PLAYBOOK_LS_LIVE=all``, one in N with ``PLAYBOOK_LS_LIVE=N``, else a fixed one in ``share``
    (chosen by a stable hash of the name, the same on every machine and run). The recordings
    themselves are always compared with playbook-ls; re-running ansible on all of them costs minutes
    of CI on two cores, and a sample is enough to notice an ansible-core release that changed
    behaviour (then run them all and re-record what differs)."""
    return stable_sample(names, share, LIVE_ALL)


def stable_sample(names: list[str], share: int, setting_name: str) -> list[str]:
    """A fixed one in ``share`` of ``names``, chosen by a stable hash of each name (the same on every
    machine and run); every one when the environment variable ``setting_name`` is ``all``, one in N
    when it is a number N."""
    import hashlib

    setting = os.environ.get(setting_name, "")
    if setting == "all":
        return list(names)
    if setting.isdigit() and int(setting) > 0:
        share = int(setting)
    return [name for name in names if int(hashlib.sha1(name.encode()).hexdigest(), 16) % share == 0]


def directory_digest(root: Path) -> str:
    """What a recording of the directory ``root`` was made from: every file's path and content.
    A recording whose digest differs is stale, whether or not a live sample re-checks it."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def scenario_dirs(root: Path, names: list[str] | None = None) -> list[Path]:
    """The recorded scenarios under ``root`` (directories with a ``case.json``), or only ``names``."""
    found = sorted(p for p in root.iterdir() if (p / "case.json").is_file())
    return [p for p in found if not names or p.name in names]


def read_case(scenario: Path) -> dict[str, Any]:
    return json.loads((scenario / "case.json").read_text())


def run_with_callback(scenario: Path, tool: str, callback: Path, command: list[str], env: dict[str, str]) -> Any:
    """Run ``tool`` with ``command`` in a scratch copy of ``scenario`` (``-c local``), with the
    test-only callback plugin file ``callback`` enabled; what it wrote to the file named by
    ``RECORD_OUT`` (it finds the copy's root in ``RECORD_ROOT``)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / scenario.name
        shutil.copytree(scenario, root, ignore=shutil.ignore_patterns("expected.json", "case.json"))
        out = Path(scratch) / "recorded.json"
        full_env = {**os.environ, "ANSIBLE_CALLBACKS_ENABLED": callback.stem,
                    "ANSIBLE_CALLBACK_PLUGINS": str(callback.parent), "RECORD_OUT": str(out),
                    "RECORD_ROOT": str(root), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "0",
                    "ANSIBLE_PYTHON_INTERPRETER": sys.executable, **env}
        done = subprocess.run([tool, *command, "-c", "local"], cwd=root, env=full_env, capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL)
        recorded = json.loads(out.read_text()) if out.is_file() else None
        if not recorded and recorded != {}:
            raise RuntimeError(f"{scenario.name}: {Path(tool).name} recorded nothing (exit {done.returncode})\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return recorded


def record_or_verify(argv: list[str], doc: str, scenarios: Callable[[list[str]], list[Path]],
                     record: Callable[[Path, str], Any], same: Callable[[Path, Any, Any], bool],
                     summary: Callable[[Any], str]) -> int:
    """The command line of a recorder: rewrite each scenario's ``expected.json`` with what
    ansible-playbook does, or (``--verify``) compare it with the recording (``same`` is given the
    scenario too: what two runs of ansible need not agree on is the scenario's to say)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args(argv)
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    failed = 0
    for scenario in scenarios(args.names):
        recorded = record(scenario, tool)
        expected = scenario / "expected.json"
        if args.verify:
            agrees = expected.is_file() and same(scenario, json.loads(expected.read_text()), recorded)
            print(f"{scenario.name}: {'same' if agrees else 'DIFFERENT'}")
            failed += not agrees
        else:
            expected.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
            print(f"{scenario.name}: {summary(recorded)}")
    return 1 if failed else 0

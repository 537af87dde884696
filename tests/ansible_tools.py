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


def collection_installed(name: str) -> bool:
    """Whether ansible finds the collection ``name`` (``community.general``) here: in a directory of
    ``ANSIBLE_COLLECTIONS_PATH`` or importable from this Python (installed with the ``ansible`` package)."""
    import importlib.util

    namespace, _, collection = name.partition(".")
    paths = [Path(p) for p in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(os.pathsep) if p]
    if any((p / "ansible_collections" / namespace / collection).is_dir() for p in paths):
        return True
    try:
        return importlib.util.find_spec(f"ansible_collections.{namespace}.{collection}") is not None
    except ModuleNotFoundError:
        return False


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


HASH_SEEDS = ("0", "1", "2", "3", "4", "5")
"""The ``PYTHONHASHSEED`` values a recording is made under. ansible returns a list made from a set of
strings (``union``, ``difference``, ``ansible_role_names``...) in the order of the set, and string
hashing is seeded anew in every process unless PYTHONHASHSEED fixes it: such a value changes from run
to run. A recording runs ansible once per seed and marks what differs (:func:`run_dependent`); six
seeds miss a two-item list that changes order once in 32 recordings."""

RUN_DEPENDENT = "__run_dependent__"
"""The key of a recorded value that differed between the recordings of a scenario (one per seed of
:data:`HASH_SEEDS`): ``{RUN_DEPENDENT: [each value seen, in seed order]}``. Ansible's value there is
the run's own: before the run it is unknown, and a value given for it is a guess, even an equal one."""


def run_dependent(value: Any) -> list[Any] | None:
    """The values a run-dependent recorded value took (:data:`RUN_DEPENDENT`), None for a steady one."""
    if isinstance(value, dict) and set(value) == {RUN_DEPENDENT}:
        return list(value[RUN_DEPENDENT])
    return None


def mark_differences(recordings: list[Any], depth: int) -> Any:
    """One recording of ``recordings`` (the same scenario under each seed): what all agree on as it is;
    a value ``depth`` levels down (mapping keys and list indexes) that differs between them as
    ``{RUN_DEPENDENT: [distinct values]}``. Above that depth, differing shapes (a key one recording
    lacks, lists of other lengths) mark the whole entry."""
    first = recordings[0]
    if all(r == first for r in recordings[1:]):
        return first
    if depth > 0 and all(isinstance(r, dict) for r in recordings) and all(set(r) == set(first) for r in recordings):
        return {key: mark_differences([r[key] for r in recordings], depth - 1) for key in first}
    if depth > 0 and all(isinstance(r, list) for r in recordings) and len({len(r) for r in recordings}) == 1:
        return [mark_differences([r[i] for r in recordings], depth - 1) for i in range(len(first))]
    seen: list[Any] = []
    for recording in recordings:
        if recording not in seen:
            seen.append(recording)
    return {RUN_DEPENDENT: seen}


def seeded_runs(run: Callable[[], Any], seeds: tuple[str, ...] = HASH_SEEDS) -> list[Any]:
    """``run()``'s result under each of ``seeds`` as PYTHONHASHSEED (the environment ansible runs in)."""
    saved = os.environ.get("PYTHONHASHSEED")
    found = []
    try:
        for seed in seeds:
            os.environ["PYTHONHASHSEED"] = seed
            found.append(run())
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved
    return found


def agrees_with_recording(recorded: Any, run: Any) -> bool:
    """Whether one run of ansible (``run``) agrees with a recording made under several seeds: equal
    everywhere but where the recording says the value is the run's own."""
    if run_dependent(recorded) is not None:
        return True
    if isinstance(recorded, dict) and isinstance(run, dict):
        return set(recorded) == set(run) and all(agrees_with_recording(recorded[k], run[k]) for k in recorded)
    if isinstance(recorded, list) and isinstance(run, list):
        return len(recorded) == len(run) and all(map(agrees_with_recording, recorded, run))
    return type(recorded) is type(run) and bool(recorded == run)  # 1, 1.0 and true are three values


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

"""Record what ansible-core itself computes for every listed task's inherited keywords.

    python tests/differential/keywords_recording.py [--check] [NAME...]

Loads each scenario with ansible-core's own classes (in a subprocess, see ansible_keywords.py) and
writes the rows to inherited_keywords.json, with a digest of the scenario's files; with
--check, writes nothing, lists the scenarios whose recording differs and exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from ansible_tools import directory_digest  # noqa: E402
from harness import Scenario, load_scenarios  # noqa: E402

RECORDING = HERE / "inherited_keywords.json"


def keyword_scenarios(names: list[str] | None = None) -> list[Scenario]:
    """The scenarios that load without error and need no environment of their own."""
    return [s for s in load_scenarios(names) if "error" not in s.name and s.env == {}]


def ansible_values(scenario: Scenario) -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_INVENTORY_UNPARSED_WARNING="False", PYTHONHASHSEED="0")
    if (scenario.path / "ansible.cfg").is_file():
        env["ANSIBLE_CONFIG"] = str(scenario.path / "ansible.cfg")
    proc = subprocess.run([sys.executable, str(HERE / "ansible_keywords.py"), scenario.inventory, *scenario.playbooks],
                          cwd=scenario.path, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{scenario.name}: ansible-core could not load it:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def record(scenarios: list[Scenario]) -> dict[str, dict[str, Any]]:
    with ThreadPoolExecutor(2) as pool:
        rows = pool.map(ansible_values, scenarios)
        return {s.name: {"digest": directory_digest(s.path), "rows": r} for s, r in zip(scenarios, rows, strict=True)}


def load_recording() -> dict[str, dict[str, Any]]:
    return json.loads(RECORDING.read_text()) if RECORDING.is_file() else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the recording instead of writing it")
    parser.add_argument("names", nargs="*", metavar="NAME", help="scenario directory names (default: all)")
    args = parser.parse_args(argv)
    scenarios = keyword_scenarios(args.names or None)
    if unknown := set(args.names) - {s.name for s in scenarios}:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    fresh = record(scenarios)
    recorded = load_recording()
    if args.check:
        stale = sorted(name for name, entry in fresh.items() if recorded.get(name) != entry)
        print("\n".join(["stale recordings:", *stale] if stale else ["all recordings up to date"]))
        return 1 if stale else 0
    kept = {name: entry for name, entry in recorded.items() if name in {s.name for s in keyword_scenarios()}}
    RECORDING.write_text(json.dumps({**kept, **fresh}, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(fresh)} scenarios in {RECORDING.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

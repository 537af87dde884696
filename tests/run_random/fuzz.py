"""Random playbooks run by ansible-playbook and by the bundled engine, compared case by case.

    python tests/run_random/fuzz.py --seeds 1000-1099 [--keep DIR] [--text] [--roles]

Each seed is a scenario of random_playbook.py (two local hosts, files below the playbook only), run in
modes ``run`` and ``check`` by both tools in fresh scratch copies, and compared as the recorded
scenarios are (tests/run/engine_cases.py: exit code, recap, every task's status per host, the
files changed; with ``--text`` also the default callback's text). It prints one line per
differing case and the share of cases that match: the seeds are new to the engine, so this is
its match rate on playbooks nobody wrote for it. ``--roles`` takes the playbooks of
random_roles.py (roles with defaults, vars, handlers, dependencies, imports and includes)
instead. ``--keep`` writes the differing scenarios into DIR, ready to be copied into
tests/run/scenarios and recorded.

Needs ansible-core 2.19 beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "run"))

import engine_cases  # noqa: E402
import random_playbook  # noqa: E402
import random_roles  # noqa: E402

GENERATORS = {"random": random_playbook.write, "roles": random_roles.write}


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def compare_seed(seed: int, root: Path, text: bool, kind: str = "random") -> list[tuple[str, list[str]]]:
    """(mode, problems) of every mode of the seed's scenario (of generator ``kind``) that differs."""
    directory = root / f"{kind}_{seed}"
    case = GENERATORS[kind](seed, directory)
    scenario = engine_cases.Scenario(name=directory.name, path=directory, description=case["description"],
                                     args=case["args"], inventory=case["inventory"], modes=tuple(case["modes"]))
    differing = []
    for mode in scenario.modes:
        expected = engine_cases.run_case(scenario, mode, "ansible")
        actual = engine_cases.run_case(scenario, mode, "engine")
        problems = [expected.error] if expected.error else []
        problems += engine_cases.compare(expected.outcome, actual.outcome)
        problems += [actual.error] if actual.error else []
        if "Traceback (most recent call last)" in actual.stderr:
            problems.append("playbook-ls printed a traceback:\n" + actual.stderr[-2000:])
        if text and not problems and engine_cases.text_diff(expected.text, actual.text):
            problems.append("stdout differs:\n" + engine_cases.text_diff(expected.text, actual.text))
        if problems:
            differing.append((mode, problems))
    return differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1000-1019", help="a seed or a range FIRST-LAST")
    parser.add_argument("--keep", help="copy the differing scenarios into this directory")
    parser.add_argument("--text", action="store_true", help="also compare the default callback's text")
    parser.add_argument("--roles", action="store_true", help="random playbooks made of roles (random_roles.py)")
    args = parser.parse_args(argv)
    seeds = _seeds(args.seeds)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pls-fuzz-") as tmp:
        kind = "roles" if args.roles else "random"
        results = engine_cases.parallel(lambda seed: (seed, compare_seed(seed, Path(tmp), args.text, kind)), seeds)
        cases = differing = 0
        for seed, found in results:
            cases += 2
            differing += len(found)
            for mode, problems in found:
                print(f"DIFFER {kind}_{seed} [{mode}]")
                for problem in problems:
                    print("  " + problem.replace("\n", "\n  "))
            if found and args.keep:
                shutil.copytree(Path(tmp) / f"{kind}_{seed}", Path(args.keep) / f"{kind}_{seed}", dirs_exist_ok=True)
    share = 100 * (cases - differing) / cases if cases else 0
    print(f"{cases - differing}/{cases} cases match ({share:.1f}%) over {len(seeds)} seeds "
          f"in {time.monotonic() - start:.0f}s")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())

"""Random playbooks planned by ``playbook-ls plan`` and run by ansible-playbook, compared task by
task and host by host (plan_cases.compare).

    python tests/plan/random_plans.py --seeds 5000-5049 [--roles | --semantics] [--show]
    python tests/plan/random_plans.py --record | --verify    (the tests' seeds, random_plans_recorded.json)

Each seed is a scenario of tests/run_random (random_playbook.py, or random_roles.py with
``--roles``): two local hosts with their own variables, conditions, loops, registered results,
blocks with rescue, includes, handlers, run_once, failures and tag selections. ansible-playbook
runs it with the outcome-recording callback; the plan is made with the same options. Prints
each outcome the plan decided and ansible contradicts, and the totals: compared task-host
outcomes, the share decided (not ``depends``), and those left out because the host failed
first in a way the plan does not predict (a module's failure). ``--semantics`` uses
random_semantics.py: four hosts, ``order`` and ``serial``, meta actions, ``changed_when`` and
notified handlers, blocks whose rescue a certain failure runs.

Needs ansible-core 2.19 beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "run_random"))

import plan_cases  # noqa: E402
import random_playbook  # noqa: E402
import random_roles  # noqa: E402
import random_semantics  # noqa: E402
from ansible_tools import directory_digest, find_tool  # noqa: E402

# The seeds the tests compare (the role seeds are ones the plan once got wrong: a role included
# again, handlers from include_role and handlers_from, a flush skipped on a host, listeners of a
# topic, a flush in a looping include; 7017 an end_host on the play's host lists). 5005 is left out:
# both its hosts fail where the plan cannot foresee it, so nothing is compared.
TEST_SEEDS: list[tuple[int, str]] = [
    *((seed, "plain") for seed in (5000, 5001, 5002, 5003, 5004, 5006)),
    *((seed, "roles") for seed in (5002, 5009, 5012, 5015, 5039, 5141, 5158)),
    *((seed, "semantics") for seed in (7000, 7017, 7021)),
]
RECORDED = HERE / "random_plans_recorded.json"
WRITERS = {"plain": random_playbook.write, "roles": random_roles.write, "semantics": random_semantics.write}


def seed_key(seed: int, kind: str) -> str:
    return f"{kind}-{seed}"


def write_seed(seed: int, kind: str, scratch: Path) -> tuple[Path, dict]:
    """The seed's scenario in ``scratch``, and its case (the plan's options)."""
    directory = scratch / f"seed-{seed}"
    directory.mkdir()
    case = WRITERS[kind](seed, directory)
    shutil.copy(directory / "hosts.ini", directory / "inventory.ini")
    return directory, case


def plan_of(directory: Path, case: dict) -> plan_cases.Planned:
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        return plan_cases.plan_outcomes(directory, case.get("args", []))
    finally:
        os.chdir(cwd)


def one_seed(seed: int, roles: bool, tool: str, scratch: Path, semantics: bool = False) -> plan_cases.Comparison:
    directory, case = write_seed(seed, "semantics" if semantics else "roles" if roles else "plain", scratch)
    recorded = plan_cases.ansible_outcomes(directory, tool)
    return plan_cases.compare(recorded, plan_of(directory, case))


def record_test_seeds(tool: str, verify: bool) -> int:
    """Write (or with ``verify`` compare) what ansible-playbook did on the tests' seeds, with a
    digest of the files each seed writes: a generator change makes the recording stale."""
    recorded = json.loads(RECORDED.read_text()) if RECORDED.is_file() else {}
    fresh = {}
    with tempfile.TemporaryDirectory() as scratch:
        for seed, kind in TEST_SEEDS:
            (Path(scratch) / kind).mkdir(exist_ok=True)  # 5002 is a plain and a role seed
            directory, _ = write_seed(seed, kind, Path(scratch) / kind)
            fresh[seed_key(seed, kind)] = {"digest": directory_digest(directory),
                                           "outcomes": plan_cases.ansible_outcomes(directory, tool)}
    if verify:
        stale = sorted(key for key in fresh if recorded.get(key) != fresh[key])
        print("\n".join(["stale:", *stale] if stale else ["all recorded seeds are current"]))
        return 1 if stale else 0
    RECORDED.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(fresh)} seeds in {RECORDED.name}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="5000-5019")
    parser.add_argument("--roles", action="store_true")
    parser.add_argument("--semantics", action="store_true", help="random_semantics.py's playbooks")
    parser.add_argument("--show", action="store_true", help="print every wrong outcome, not only the count")
    parser.add_argument("--record", action="store_true", help=f"record ansible on the tests' seeds in {RECORDED.name}")
    parser.add_argument("--verify", action="store_true", help="compare the tests' recording with ansible")
    args = parser.parse_args(argv)
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    if args.record or args.verify:
        return record_test_seeds(tool, args.verify)
    first, _, last = args.seeds.partition("-")
    totals = plan_cases.Comparison()
    failing = 0
    with tempfile.TemporaryDirectory() as scratch:
        for seed in range(int(first), int(last or first) + 1):
            try:
                result = one_seed(seed, args.roles, tool, Path(scratch), args.semantics)
            except Exception as exc:  # noqa: BLE001 - a crash is a finding too, reported and counted
                print(f"seed {seed}: ERROR {type(exc).__name__}: {exc}")
                failing += 1
                continue
            totals.wrong += [f"seed {seed}: {line}" for line in result.wrong]
            totals.compared += result.compared
            totals.decided += result.decided
            totals.excluded += result.excluded
            for kind, count in result.depends.items():
                totals.depends[kind] = totals.depends.get(kind, 0) + count
            failing += bool(result.wrong)
            if result.wrong:
                print(f"seed {seed}: {len(result.wrong)} wrong")
                if args.show:
                    print("\n".join(f"  {line}" for line in result.wrong))
    share = totals.decided / totals.compared if totals.compared else 0
    static = sum(count for kind, count in totals.depends.items() if kind.startswith("static"))
    decidable = totals.decided + static  # outcomes whose values a plan can know before the run
    print(json.dumps({"seeds": args.seeds, "roles": args.roles, "semantics": args.semantics,
                      "seeds_with_differences": failing,
                      "wrong": len(totals.wrong), "compared": totals.compared, "decided": totals.decided,
                      "decided_share": round(share, 4),
                      "decided_of_decidable": round(totals.decided / decidable, 4) if decidable else 1,
                      "depends": dict(sorted(totals.depends.items(), key=lambda kv: -kv[1])),
                      "excluded_after_unforeseen_failure": totals.excluded}))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

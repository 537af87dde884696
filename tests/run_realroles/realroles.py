"""The bundled engine against ansible-playbook on the task files of public roles.

    python tests/run_realroles/realroles.py --checkouts DIR [--held-out] [--per-repo N] [--keep DIR] [NAME...]

``DIR`` holds a checkout of each repository of ``repos.txt`` as ``OWNER+NAME`` (the commit listed
there; the checkouts are not part of playbook-ls). Each task file of each role becomes a scenario
(role_scenarios.py: the role's own files, its paths moved into the scenario, what needs root or
another host left out), run in modes run, check and diff by both tools in fresh scratch copies and
compared as the recorded scenarios are (tests/run/engine_cases.py: exit code, recap, every task's
status per host, the files changed, and the default callback's text). Without ``--held-out`` the
repositories not marked held-out are measured; with it, only the held-out ones.

Each run is one of: identical (results and text), same results (text differs), different,
declined (the engine refused before running anything, as ``--engine auto`` hands such a run to
ansible-playbook) or declined late (the engine started and then said it cannot do something).
A traceback of playbook-ls is counted apart. ``--keep`` copies the scenarios of the runs that
differ into DIR, ready to be cut down into a recorded scenario of tests/run/scenarios.

Needs ansible-core 2.19 beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "run"))
sys.path.insert(0, str(HERE))

import engine_cases  # noqa: E402
import role_scenarios  # noqa: E402

REPOS = HERE / "repos.txt"
DECLINED = "playbook-ls: error: "
LATE = ("playbook-ls's engine", "--engine ansible")


def load_repos(held_out: bool) -> list[tuple[str, str]]:
    """(OWNER/NAME, commit) of the repositories of one side of repos.txt."""
    out = []
    for line in REPOS.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if fields and ("held-out" in fields[2:]) == held_out:
            out.append((fields[0], fields[1]))
    return out


def classify(expected: engine_cases.Run, actual: engine_cases.Run) -> tuple[str, list[str]]:
    if actual.error and DECLINED in actual.stderr and actual.outcome["tasks"] is None:
        return "declined", [line for line in actual.stderr.splitlines() if line.startswith(DECLINED)][:3]
    problems = [expected.error] if expected.error else []
    problems += engine_cases.compare(expected.outcome, actual.outcome)
    problems += [actual.error] if actual.error else []
    if "Traceback (most recent call last)" in actual.stderr:
        return "traceback", ["playbook-ls printed a traceback:\n" + actual.stderr[-2000:]]
    if problems:
        late = all(word in actual.text for word in LATE)
        return ("declined late" if late else "different"), problems
    diff = engine_cases.text_diff(expected.text, actual.text)
    return ("same results" if diff else "identical"), ([f"stdout differs:\n{diff}"] if diff else [])


def compare_scenario(directory: Path) -> list[tuple[str, str, list[str]]]:
    case = engine_cases.load_case(directory)
    out = []
    for mode in case.modes:
        expected = engine_cases.run_case(case, mode, "ansible")
        actual = engine_cases.run_case(case, mode, "engine")
        kind, problems = classify(expected, actual)
        out.append((mode, kind, problems))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkouts", required=True, help="directory of the repositories' checkouts")
    parser.add_argument("--held-out", action="store_true", help="measure the held-out repositories")
    parser.add_argument("--per-repo", type=int, default=8, help="at most this many task files of a repository")
    parser.add_argument("--keep", help="copy the scenarios of runs that differ into this directory")
    parser.add_argument("--quiet", action="store_true", help="one line per run that differs, no details")
    parser.add_argument("names", nargs="*", help="only the scenarios whose name contains one of these")
    args = parser.parse_args(argv)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pls-realroles-") as tmpdir:
        tmp = Path(tmpdir)
        directories = []
        for repo, _commit in load_repos(args.held_out):
            checkout = Path(args.checkouts) / repo.replace("/", "+")
            if not checkout.is_dir():
                print(f"missing checkout of {repo}: {checkout}", file=sys.stderr)
                return 2
            made = 0
            for role in role_scenarios.find_roles(checkout):
                for item in role_scenarios.role_files(repo, role):
                    if made >= args.per_repo:
                        break
                    if args.names and not any(n in item.name for n in args.names):
                        continue
                    if role_scenarios.write_scenario(item, tmp / item.name):
                        directories.append(tmp / item.name)
                        made += 1
        results = engine_cases.parallel(lambda d: (d, compare_scenario(d)), directories)
        kinds: Counter[str] = Counter()
        for directory, runs in results:
            for mode, kind, problems in runs:
                kinds[kind] += 1
                if kind == "identical":
                    continue
                print(f"{kind.upper()} {directory.name} [{mode}]")
                if not args.quiet:
                    for problem in problems:
                        print("  " + problem.replace("\n", "\n  "))
            if args.keep and any(kind != "identical" for _, kind, _ in runs):
                shutil.copytree(directory, Path(args.keep) / directory.name, dirs_exist_ok=True)
    total = sum(kinds.values())
    accepted = total - kinds["declined"]
    side = "held-out" if args.held_out else "measured"
    print(f"{side}: {len(directories)} scenarios, {total} runs in {time.monotonic() - start:.0f}s")
    for kind in ("identical", "same results", "different", "declined", "declined late", "traceback"):
        print(f"  {kind}: {kinds[kind]}")
    if accepted:
        print(f"  identical among the runs the engine accepts: {100 * kinds['identical'] / accepted:.1f}%"
              f"; declined: {100 * kinds['declined'] / total:.1f}%")
    return 0 if kinds["identical"] == total else 1


if __name__ == "__main__":
    sys.exit(main())

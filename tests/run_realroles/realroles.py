"""The bundled engine against ansible-playbook on the task files of public roles.

    python tests/run_realroles/realroles.py --checkouts DIR [--held-out] [--repos FILE] [--per-repo N]
        [--keep DIR] [NAME...]

``DIR`` holds a checkout of each repository of ``repos.txt`` as ``OWNER+NAME`` (the commit listed
there; the checkouts are not part of playbook-ls). Each task file of each role becomes a scenario
(role_scenarios.py: the role's own files, its paths moved into the scenario, what needs root or
another host left out), run in modes run, check and diff by both tools in fresh scratch copies and
compared as the recorded scenarios are (tests/run/engine_cases.py: exit code, recap, every task's
status per host, the files changed, and the default callback's text), both tools under
``PYTHONHASHSEED=0`` (a set of strings, ``union`` or ``difference``'s list, then has one order).
Without ``--held-out`` the repositories not marked held-out are measured; with it, only the
held-out ones.

Each run is one of: identical (results and text), same results (text differs), different,
declined (the engine refused before running anything, as ``--engine auto`` hands such a run to
ansible-playbook) or declined late (the engine started and then said it cannot do something).
A traceback of playbook-ls is counted apart. ``--keep`` copies the scenarios of the runs that
differ into DIR, ready to be cut down into a recorded scenario of tests/run/scenarios.

Under load one ansible-playbook run can take minutes, so the comparison also works in steps
that each keep what they finished::

    realroles.py --checkouts DIR [--held-out] --write OUT   # the scenarios, into OUT/NAME/
    realroles.py --record OUT [--timeout S]                  # ansible's side, scenario by scenario
    realroles.py --measure OUT [--timeout S]                 # the engine against the recordings

``--record`` writes each scenario's ``expected.json`` and texts as soon as its modes are done and
skips the scenarios already recorded (a stopped recording resumes); a mode whose run exceeds the
timeout is left out of the recording (``not_recorded`` in expected.json). ``--measure`` appends
each run's class to ``OUT/results.jsonl`` as it goes and prints the figures of that file, so a
measurement stopped late still gives the figures of the runs it finished; runs that were not
recorded, or whose engine run exceeds the timeout, are counted as "not recorded" and left out
of the percentages. ``--measure`` works on any directory of recorded scenarios (those of
tests/run/engine_cases.py too).

Each run of either tool starts in a sandbox (sandbox.py: the machine read-only but the run's
scratch directory, a fresh ``/tmp``, no network), since a kept command with ``creates`` or
``removes`` really runs; without root it cannot be had, and recording, measuring and comparing
refuse to start. As root, record and measure inside ``read_only_system.sh`` as well (``unshare -m --propagation private
tests/run_realroles/read_only_system.sh python tests/run_realroles/realroles.py --record OUT``): the
system's directories are read-only there, so a path the cutting missed fails in both tools instead
of writing on the machine; a set recorded that way is measured that way.

Needs ansible-core 2.19 beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "run"))
sys.path.insert(0, str(HERE))

import engine_cases  # noqa: E402
import guards  # noqa: E402
import role_scenarios  # noqa: E402
import sandbox  # noqa: E402

REPOS = HERE / "repos.txt"
DECLINED = "playbook-ls: error: "
LATE = ("playbook-ls's engine", "--engine ansible")
KINDS = ("identical", "same results", "different", "declined", "declined late", "traceback", "not recorded")


def load_repos(held_out: bool, repos: Path = REPOS) -> list[tuple[str, str]]:
    """(OWNER/NAME, commit) of the repositories of one side of a list written as repos.txt."""
    out = []
    for line in repos.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if fields and ("held-out" in fields[2:]) == held_out:
            out.append((fields[0], fields[1]))
    return out


def classify(expected: engine_cases.Run, actual: engine_cases.Run, text: bool = True) -> tuple[str, list[str]]:
    """The class of one engine run against ansible's; ``text`` False for a scenario whose text is
    not compared (``"stdout": false``: it differs from run to run in ansible-playbook too)."""
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
    diff = engine_cases.text_diff(expected.text, actual.text) if text else ""
    return ("same results" if diff else "identical"), ([f"stdout differs:\n{diff}"] if diff else [])


def _run(case: engine_cases.Scenario, mode: str, tool: str) -> engine_cases.Run | None:
    """One tool's run of one mode, or None when it exceeds the timeout (the batch goes on)."""
    try:
        return engine_cases.run_case(case, mode, tool, wrap=sandbox.wrap)
    except subprocess.TimeoutExpired:
        return None


def compare_scenario(directory: Path) -> list[tuple[str, str, list[str]]]:
    case = engine_cases.load_case(directory)
    out = []
    for mode in case.modes:
        expected = _run(case, mode, "ansible")
        actual = _run(case, mode, "engine") if expected else None
        if expected is None or actual is None:
            out.append((mode, "not recorded", [f"{'ansible' if expected is None else 'engine'} run timed out"]))
            continue
        kind, problems = classify(expected, actual, case.stdout)
        out.append((mode, kind, problems))
    return out


def write_scenarios(checkouts: Path, held_out: bool, per_repo: int, names: list[str], dest: Path,
                    repos: Path = REPOS) -> list[Path]:
    """The scenarios of one side of ``repos``, written into ``dest`` (at most ``per_repo`` a repository);
    those guards.py leaves out are named with the reason in ``dest/excluded.txt``."""
    directories, excluded = [], []
    for repo, _commit in load_repos(held_out, repos):
        checkout = checkouts / repo.replace("/", "+")
        if not checkout.is_dir():
            raise FileNotFoundError(f"missing checkout of {repo}: {checkout}")
        made = 0
        for role in role_scenarios.find_roles(checkout):
            for item in role_scenarios.role_files(repo, role):
                if made >= per_repo:
                    break
                if names and not any(n in item.name for n in names):
                    continue
                if not role_scenarios.write_scenario(item, dest / item.name):
                    continue
                if reasons := (guards.clock_reasons(role, item.tasks_from)
                               + guards.escaping_paths(dest / item.name, role.name)):
                    shutil.rmtree(dest / item.name)
                    excluded.append(f"{item.name}: {'; '.join(reasons)}")
                    print(f"EXCLUDED {excluded[-1]}", flush=True)
                    continue
                directories.append(dest / item.name)
                made += 1
    if excluded:
        (dest / "excluded.txt").write_text("".join(line + "\n" for line in excluded))
    return directories


def record_scenario(case: engine_cases.Scenario) -> str:
    """Record ansible's side of one scenario into its directory, whatever its runs give: an error
    of ansible's is a result to compare with, a run over the timeout is left out."""
    start = time.time() - guards.TIME_SLACK
    cases: dict[str, Any] = {}
    errors: dict[str, str] = {}
    missing: dict[str, str] = {}
    texts: dict[str, str] = {}
    for mode in case.modes:
        run = _run(case, mode, "ansible")
        if run is None:
            missing[mode] = f"ansible-playbook ran over {engine_cases.TIMEOUT} s"
            continue
        cases[mode] = run.outcome
        if case.stdout:
            texts[mode] = run.text
        if run.error:
            errors[mode] = run.error
    data: dict[str, Any] = {"description": case.description, "cases": cases}
    if errors:
        data["errors"] = errors
    if outside := guards.outside_changes(start):
        data["outside_changes"] = outside
    if missing:
        data["not_recorded"] = missing
    for old in case.path.glob("stdout.*.txt"):
        old.unlink()
    for mode, text in texts.items():
        case.stdout_file(mode).write_text(text)
    case.expected_file.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return ", ".join([f"{m} rc={c['rc']}" for m, c in cases.items()] + [f"{m} not recorded" for m in missing]
                     + [f"CHANGED OUTSIDE THE SCENARIO: {', '.join(outside[:5])}"] * bool(outside))


def measure_scenario(case: engine_cases.Scenario) -> list[tuple[str, str, list[str]]]:
    """The engine on one recorded scenario, each mode classified against the recording."""
    recorded = case.load_expected()
    out = []
    for mode in case.modes:
        outcome = recorded.get("cases", {}).get(mode)
        actual = _run(case, mode, "engine") if outcome is not None else None
        if outcome is None or actual is None:
            out.append((mode, "not recorded", ["engine run timed out" if outcome else "ansible's run not recorded"]))
            continue
        error = recorded.get("errors", {}).get(mode)
        expected = engine_cases.Run(outcome, "", "", error, case.load_stdout(mode) or "")
        out.append((mode, *classify(expected, actual, case.stdout)))
    return out


def summary(results: list[dict[str, Any]], side: str) -> list[str]:
    """The figures of a list of classified runs ({"scenario", "mode", "kind", "group"})."""
    kinds = Counter(r["kind"] for r in results)
    compared = len(results) - kinds["not recorded"]
    accepted = compared - kinds["declined"]
    lines = [f"{side}: {len({r['scenario'] for r in results})} scenarios, {len(results)} runs"]
    lines += [f"  {kind}: {kinds[kind]}" for kind in KINDS]
    if accepted:
        lines.append(f"  identical among the runs the engine accepts: {100 * kinds['identical'] / accepted:.1f}%"
                     f"; declined: {100 * kinds['declined'] / compared:.1f}% of the {compared} runs compared")
    groups: dict[str, list[str]] = {}
    for r in results:
        if r["kind"] not in ("not recorded", "declined"):
            groups.setdefault(r["group"], []).append(r["kind"])
    if groups:
        whole = [g for g, ks in groups.items() if all(k == "identical" for k in ks)]
        lines.append(f"  groups (repositories) whose accepted runs are all identical: {len(whole)} of {len(groups)}"
                     f" ({100 * len(whole) / len(groups):.1f}%)")
    return lines


def _group(case: engine_cases.Scenario) -> str:
    """A role scenario's repository (its description starts with OWNER/NAME:), else its own name."""
    head = case.description.split(":", 1)[0]
    return head if "/" in head and " " not in head else case.name


def _print_runs(name: str, runs: list[tuple[str, str, list[str]]], quiet: bool) -> None:
    for mode, kind, problems in runs:
        print(f"{kind.upper()} {name} [{mode}]", flush=True)
        if kind != "identical" and not quiet:
            for problem in problems:
                print("  " + problem.replace("\n", "\n  "), flush=True)


def record_directory(directory: Path) -> int:
    """Record every scenario of ``directory`` not recorded yet; 1 when a recording changed
    something outside its scenario (guards.WATCHED), which a person must look at."""
    outside = False
    for case in engine_cases.load_scenarios(None, directory):
        if case.expected_file.exists():
            continue
        start = time.monotonic()
        print(f"recorded {case.name}: {record_scenario(case)} ({time.monotonic() - start:.0f}s)", flush=True)
        outside = outside or "outside_changes" in case.load_expected()
    return int(outside)


def measure_directory(directory: Path, quiet: bool) -> int:
    """The engine on every recorded scenario of ``directory``, each result kept in results.jsonl
    as soon as its scenario is done; the figures are those of that file."""
    results_file = directory / "results.jsonl"
    done = {json.loads(line)["scenario"] for line in results_file.read_text().splitlines()} \
        if results_file.exists() else set()
    for case in engine_cases.load_scenarios(None, directory):
        if case.name in done:
            continue
        runs = measure_scenario(case)
        with results_file.open("a") as out:
            for mode, kind, problems in runs:
                out.write(json.dumps({"scenario": case.name, "group": _group(case), "mode": mode, "kind": kind,
                                      "problems": problems}) + "\n")
        _print_runs(case.name, runs, quiet)
    results = [json.loads(line) for line in results_file.read_text().splitlines()]
    print("\n".join(summary(results, str(directory))))
    return 0 if all(r["kind"] == "identical" for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkouts", help="directory of the repositories' checkouts")
    parser.add_argument("--held-out", action="store_true", help="measure the held-out repositories")
    parser.add_argument("--repos", type=Path, default=REPOS,
                        help="the list of repositories (repos.txt's form), for a new held-out set kept elsewhere")
    parser.add_argument("--per-repo", type=int, default=8, help="at most this many task files of a repository")
    parser.add_argument("--keep", help="copy the scenarios of runs that differ into this directory")
    parser.add_argument("--quiet", action="store_true", help="one line per run that differs, no details")
    parser.add_argument("--timeout", type=int, default=engine_cases.TIMEOUT, help="seconds one run may take")
    step = parser.add_mutually_exclusive_group()
    step.add_argument("--write", type=Path, help="only write the scenarios into this directory")
    step.add_argument("--record", type=Path, help="record ansible's side of the scenarios of this directory")
    step.add_argument("--measure", type=Path, help="run the engine on the recorded scenarios of this directory")
    parser.add_argument("names", nargs="*", help="only the scenarios whose name contains one of these")
    args = parser.parse_args(argv)
    engine_cases.TIMEOUT = args.timeout
    if not args.write and (why := sandbox.unavailable()):
        print(f"realroles.py: roles' commands run only in the sandbox (sandbox.py), which cannot be had here: {why}",
              file=sys.stderr)
        return 2
    if args.record:
        return record_directory(args.record)
    if args.measure:
        return measure_directory(args.measure, args.quiet)
    if not args.checkouts:
        parser.error("--checkouts is needed unless --record or --measure")
    if args.write:
        made = write_scenarios(Path(args.checkouts), args.held_out, args.per_repo, args.names, args.write, args.repos)
        print(f"{len(made)} scenarios written into {args.write}")
        return 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pls-realroles-") as tmpdir:
        directories = write_scenarios(Path(args.checkouts), args.held_out, args.per_repo, args.names, Path(tmpdir),
                                      args.repos)
        results = []
        for directory in directories:  # one scenario at a time: what is done is printed as it finishes
            runs = compare_scenario(directory)
            _print_runs(directory.name, [r for r in runs if r[1] != "identical"], args.quiet)
            case = engine_cases.load_case(directory)
            results += [{"scenario": directory.name, "group": _group(case), "mode": m, "kind": k} for m, k, _ in runs]
            if args.keep and any(kind != "identical" for _, kind, _ in runs):
                shutil.copytree(directory, Path(args.keep) / directory.name, dirs_exist_ok=True)
    side = "held-out" if args.held_out else "measured"
    print("\n".join(summary(results, f"{side} ({time.monotonic() - start:.0f}s)")))
    return 0 if all(r["kind"] == "identical" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

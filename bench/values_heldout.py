"""A directory of hand-written projects recorded from ansible-playbook, and how `vars` and `plan` measure on it.

Usage::

    python bench/values_heldout.py record DIR [NAME...]   # ansible-playbook 2.19 (-c local) on each project
    python bench/values_heldout.py measure DIR [NAME...]  # playbook-ls against the recordings
    python bench/values_heldout.py measure DIR --list     # ... and every difference
    python bench/values_heldout.py measure DIR --cpu-limit 120  # a project over 120 s CPU: "over the limit"

Each project is a directory of DIR with a ``case.json`` as the recorded scenarios of
tests/variables (var_cases.py) and tests/plan (plan_cases.py) take it: ``site.yml``, ``"inventory":
["inventory.ini"]``, ``args``, ``env``, ``runtime`` (names whose value only the run knows) and
``earlier`` (the probed names that tasks of the run set: set_fact, register, include_vars), and
``runtime_on`` (``{HOST: [NAME...]}``: names only the run knows on that host). One
project serves both measures: its ``probe...`` tasks print values, every task has an outcome. A
probe's ``msg`` maps a label to a template: ``{{ NAME }}`` is the variable NAME, any other
template is rendered with the task's variables (``p_name: "{{ vhost.name }}"``).

``record`` writes ``expected.json`` (the probes' values, recorded once per PYTHONHASHSEED of
``ansible_tools.HASH_SEEDS``, what differs marked run-dependent) and ``outcomes.json`` (each task's
status per host; recorded under the first three seeds, which must agree).

``measure`` prints, over all projects:

- values identical: probed values where `vars` gives ansible's value, strictly typed
  (tests/variables/var_values.py ``judged``), of all probed values ansible's run did not make its own;
- earlier: the same for the probed values of ``earlier`` names;
- guessed: values ansible's run made its own (a name of ``runtime``, or one that differed between
  seeds) where `vars` gave a value instead of saying it is unknown;
- plan wrong: outcomes `plan` decided that ansible contradicts (tests/plan/plan_cases.py ``compare``);
- plan decided: decided outcomes of those knowable before the run (every compared outcome but a
  ``depends`` that waits for a value only the run has, plan_cases.RUN_TIME_KINDS).

`vars` and `plan` are measured without running inventory code (a script, a plugin ansible-core
runs, a ``constructed`` or ``generator`` source whose templates need code): what such a source
alone gives is the run's there. A project with one marks the names it gives in its case's
``runtime``/``runtime_on``, and an outcome waiting for it is not counted as knowable. A
``constructed`` or ``generator`` source that needs no code is followed as ansible applies it
(engine.inventory.templated_sources): what it gives is not the run's own.

Each project is measured in a child process limited to ``--cpu-limit`` seconds of CPU (user + system,
default 120): a project that does not finish within it is reported "over the limit" and counted as
every value of it wrong and every outcome of it knowable and undecided, so one slow project never
stops the measurement of the others.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for where in (ROOT, ROOT / "tests", ROOT / "tests" / "variables", ROOT / "tests" / "plan"):
    sys.path.insert(0, str(where))

from ansible_tools import find_tool, read_case, scenario_dirs, seeded_runs  # noqa: E402

OUTCOME_SEEDS = ("0", "1", "2")
CPU_LIMIT = 120.0
"""Seconds of CPU (user + system) one project's measurement may take (``--cpu-limit``)."""


def record(project: Path, tool: str) -> str:
    from plan_cases import ansible_outcomes
    from var_cases import ansible_values

    values = ansible_values(project, tool)
    (project / "expected.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    runs = seeded_runs(lambda: ansible_outcomes(project, tool), OUTCOME_SEEDS)
    if any(run != runs[0] for run in runs[1:]):
        raise RuntimeError(f"{project.name}: task outcomes differ between hash seeds")
    (project / "outcomes.json").write_text(json.dumps(runs[0], indent=2, sort_keys=True) + "\n")
    probes = sum(len(r) for hosts in values.values() for r in hosts.values())
    return f"{probes} probe runs, {sum(map(len, runs[0].values()))} task-host outcomes"


class _Scenario:
    """The project's directory as working directory and its ``env`` as the only ANSIBLE_ settings."""

    def __init__(self, project: Path) -> None:
        self.project = project

    def __enter__(self) -> None:
        self.saved_env, self.saved_cwd = dict(os.environ), os.getcwd()
        for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
            del os.environ[name]
        os.environ.update(read_case(self.project).get("env", {}))
        os.chdir(self.project)

    def __exit__(self, *_: object) -> None:
        os.chdir(self.saved_cwd)
        os.environ.clear()
        os.environ.update(self.saved_env)


def measure_values(project: Path) -> dict[str, Any]:
    from var_values import measure

    earlier = set(read_case(project).get("earlier", []))
    counts = values_recorded(project)
    _compared, wrong = measure(project, as_written=True)
    # each difference is "LABEL: NAME: PROBLEM" (the label holds no ": ")
    problems = [(line.split(": ", 2)[1], line) for line in wrong]
    guessed = [line for _name, line in problems if ": guessed: " in line]
    return {**counts, "identical": counts["values"] - (len(problems) - len(guessed)),
            "earlier_identical": counts["earlier"] - sum(1 for name, line in problems
                                                         if name in earlier and ": guessed: " not in line),
            "guessed": len(guessed), "differences": [line for _, line in problems]}


def measure_plan(project: Path) -> dict[str, Any]:
    from plan_cases import RUN_TIME_KINDS, compare, inventory_of, plan_outcomes

    recorded = json.loads((project / "outcomes.json").read_text())
    with _Scenario(project):
        ours = plan_outcomes(project, read_case(project).get("args", []), inventory_of(project))
    result = compare(recorded, ours)
    waiting = sum(count for kind, count in result.depends.items() if kind in set(RUN_TIME_KINDS.values()))
    static = [f"{kind}: {count}" for kind, count in result.depends.items() if kind.startswith("static")]
    return {"compared": result.compared, "decided": result.decided, "knowable": result.compared - waiting,
            "wrong": result.wrong, "undecided_static": static, "excluded": result.excluded,
            "depends": result.depends}


def values_recorded(project: Path) -> dict[str, int]:
    """The counts of :func:`measure_values` that come from the recording alone: its values and
    earlier values (the run's own left out), and the values the run makes its own."""
    from ansible_tools import run_dependent
    from var_cases import runtime_names
    from var_values import probed

    spec = read_case(project)
    earlier = set(spec.get("earlier", []))
    found = [(name, name in runtime_names(spec, host) or run_dependent(value) is not None)
             for _, host, *_, values in probed(json.loads((project / "expected.json").read_text())) if values
             for name, value in values.items()]
    return {"values": sum(not own for _, own in found), "run_own": sum(own for _, own in found),
            "earlier": sum(not own for name, own in found if name in earlier)}


def over_the_limit(project: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a project that did not finish within the CPU limit counts: every value wrong (none
    identical, none guessed), every recorded outcome knowable and undecided, none wrong."""
    counts = values_recorded(project)
    outcomes = sum(len(statuses) for hosts in json.loads((project / "outcomes.json").read_text()).values()
                   for statuses in hosts.values())
    values = {**counts, "identical": 0, "earlier_identical": 0, "guessed": 0, "differences": []}
    plan = {"compared": outcomes, "decided": 0, "knowable": outcomes, "wrong": [], "undecided_static": []}
    return values, plan


def _measured_in_child(project: Path, cpu_limit: float, send: Any) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (max(1, int(cpu_limit)), resource.RLIM_INFINITY))
    try:
        send.send((measure_values(project), measure_plan(project)))
    except Exception as exc:  # noqa: BLE001 - reported by the parent, the other projects go on
        send.send(exc)


def measured(project: Path, cpu_limit: float) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(values, plan)`` of one project measured in a child process that the kernel stops (SIGXCPU)
    once it has used ``cpu_limit`` seconds of CPU; None when it did not finish within that."""
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_measured_in_child, args=(project, cpu_limit, send))
    child.start()
    send.close()
    try:
        result = receive.recv()
    except EOFError:  # the child died without an answer: over its CPU limit
        result = None
    child.join()
    if isinstance(result, Exception):
        raise result
    return result


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def measure_all(projects: list[Path], listing: bool, cpu_limit: float = CPU_LIMIT) -> None:
    totals = dict.fromkeys(("values", "identical", "earlier", "earlier_identical", "guessed", "run_own",
                            "compared", "decided", "knowable", "wrong"), 0)
    over = []
    for project in projects:
        found = measured(project, cpu_limit)
        if found is None:
            over.append(project.name)
            print(f"{project.name}: over the limit of {cpu_limit:g} s CPU: counted as every value wrong and "
                  "every outcome undecided", flush=True)
        values, plan = found or over_the_limit(project)
        for key in ("values", "identical", "earlier", "earlier_identical", "guessed", "run_own"):
            totals[key] += values[key]
        for key in ("compared", "decided", "knowable"):
            totals[key] += plan[key]
        totals["wrong"] += len(plan["wrong"])
        print(f"{project.name}: values {values['identical']}/{values['values']}, earlier "
              f"{values['earlier_identical']}/{values['earlier']}, guessed {values['guessed']}; plan wrong "
              f"{len(plan['wrong'])}, decided {plan['decided']}/{plan['knowable']} knowable "
              f"({plan['compared']} compared, {plan.get('excluded', 0)} not compared)", flush=True)
        if listing:
            for line in values["differences"] + plan["wrong"] + plan["undecided_static"]:
                print(f"    {line}")
    print(f"TOTAL values identical {totals['identical']}/{totals['values']} "
          f"({_percent(totals['identical'], totals['values'])}); earlier {totals['earlier_identical']}/"
          f"{totals['earlier']} ({_percent(totals['earlier_identical'], totals['earlier'])}); guessed "
          f"{totals['guessed']} (of {totals['run_own']} values the run makes its own)")
    print(f"TOTAL plan wrong {totals['wrong']}; decided {totals['decided']}/{totals['knowable']} "
          f"({_percent(totals['decided'], totals['knowable'])}) of outcomes knowable before the run "
          f"({totals['compared']} compared)")
    print(f"TOTAL over the CPU limit of {cpu_limit:g} s: {len(over)} project(s)"
          + (f": {', '.join(over)}" if over else ""))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("record", "measure"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--list", action="store_true", help="print every difference (measure)")
    parser.add_argument("--cpu-limit", type=float, default=CPU_LIMIT,
                        help="seconds of CPU one project's measurement may take (measure)")
    args = parser.parse_args(argv)
    projects = scenario_dirs(args.directory.resolve(), args.names)
    if args.action == "measure":
        measure_all(projects, args.list, args.cpu_limit)
        return 0
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    for project in projects:
        print(f"{project.name}: {record(project, tool)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

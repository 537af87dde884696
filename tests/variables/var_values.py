"""What ``playbook-ls vars`` gives at a probe of a recorded scenario (var_cases), in the
probes' terms: shared by the recorded scenarios' test and the random ones (random_vars.py)."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import read_case  # noqa: E402

from engine.flow.plan import RunOptions, make_plan  # noqa: E402
from engine.variables.host_includes import load_host_includes  # noqa: E402
from engine.variables.include_runs import include_loop_runs, run_order_key  # noqa: E402
from engine.variables.report import task_runs  # noqa: E402
from engine.variables.task_variables import variables_at

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task


def run_options(root: Path) -> RunOptions:
    """The case's ansible-playbook command line given to ``playbook-ls vars``, as its parser
    and playbook_ls.cli.vars.launch_options take it (the option variables included)."""
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options

    spec = read_case(root)
    inventory = [arg for source in spec.get("inventory", []) for arg in ("-i", str(root / source))]
    args = build_parser().parse_args(["vars", str(root / "site.yml"), "--host", "any", *inventory,
                                      *spec.get("args", [])])
    options, problem = launch_options(args, SourceCache())
    assert problem is None, problem
    return options


@cache
def scenario_plan(root: Path) -> Plan:
    """The scenario's plan, as ``playbook-ls vars`` makes it, its per-host includes loaded (read
    once: every probe of a scenario is asked in the same directory and environment)."""
    plan = make_plan(run_options(root), dynamic_inventory=False, select_tasks=False)
    load_host_includes(plan)
    return plan


def tasks_at(plan: Plan, path: str, line: int, host: str) -> list[tuple[PlayPlan, Task, int, tuple[int, ...]]]:
    """Every run playbook-ls places at 0-based ``line`` of ``path`` on ``host``, in run order:
    play after play, each play's runs as engine.variables.report.task_runs gives them, each once
    per item of the looped includes around it (include_loop_runs), in the order the host runs them
    (run_order_key: item by item, whichever copy of a file the loader made holds the task)."""
    found = []
    for play_plan in plan.plays:
        chosen = next((h for h in play_plan.hosts if h.name == host), None)
        if chosen is None:
            continue
        runs = [(task, occurrence, outer) for task, occurrence in task_runs(play_plan.play, path, line)
                for outer in include_loop_runs(plan, play_plan, chosen, task, occurrence)]
        runs.sort(key=lambda run: run_order_key(play_plan, *run))  # noqa: B023 - used at once
        found += [(play_plan, *run) for run in runs]
    return found


def values_at(root: Path, where: str, host: str, index: int, names: list[str],
              item: int | None = None, as_written: bool = False) -> dict[str, Any]:
    """What playbook-ls says ``names`` are at the ``index``-th run of the task at ``where`` of the
    scenario in ``root`` (at ``item`` of its loop), asked in that directory. ``as_written``: a name
    the probe's ``msg`` maps to another template than ``{{ NAME }}`` is that template, rendered with
    the task's variables (a probe written as ``label: "{{ item.name }}"``)."""
    plan = scenario_plan(root)
    path, _, line = where.rpartition(":")
    runs = reported_runs(root, where, host, tasks_at(plan, str(root / path), int(line) - 1, host))
    if index >= len(runs):
        raise AssertionError(f"playbook-ls runs the task at {where} {len(runs)} time(s) on {host}, ansible ran it "
                             f"at least {index + 1} times")
    play_plan, task, occurrence, outer = runs[index]
    chosen = next(h for h in play_plan.hosts if h.name == host)
    templates = _probe_templates(task, names) if as_written else {}
    report = variables_at(plan, play_plan, chosen, task, [name for name in names if name not in templates],
                          occurrence, item=item, outer=outer)
    values = {name: ("undefined" if not resolved.definitions else
                     resolved.value if resolved.unknown is None else f"unknown: {resolved.unknown}")
              for name, resolved in report.variables.items()}
    values.update((name, _rendered(report.templar, text)) for name, text in templates.items())
    # as the recording callback writes the scenario's directory
    return json.loads(json.dumps(values, default=str).replace(json.dumps(str(root))[1:-1], "<ROOT>"))


def reported_runs(root: Path, where: str, host: str, runs: list[Any]) -> list[Any]:
    """``runs`` (every run placed at ``where`` on ``host``, in run order) less those the plan says
    are skipped there: ansible's recording holds the probe's reported runs only (a role its `when`
    skips, included again later, reports its second run as its first). Where the plan lists the
    task's runs otherwise (a looping include's, listed once), all of them."""
    planned = _planned(root).get((where, host))
    if not planned or len(planned) != len(runs) or any(repeats for _, repeats in planned):
        return runs
    return [run for run, (outcome, _) in zip(runs, planned, strict=True) if outcome != "skipped"]


@cache
def _planned(root: Path) -> dict[tuple[str, str], list[tuple[str, bool]]]:
    """Per (FILE:LINE, host) of the scenario in ``root`` (the current directory), the plan's outcome
    of each run and whether the plan lists it once for the runs of a looping include."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plan"))
    from plan_cases import inventory_of, plan_outcomes

    found: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    try:
        rows = plan_outcomes(root, read_case(root).get("args", []), inventory_of(root))
    except (SystemExit, Exception):  # noqa: BLE001 - options `plan` does not take (-v): runs kept as placed
        return found
    for where, host, outcome, _reason, _shared, repeats in rows:
        if outcome != "unreported":
            found.setdefault((where, host), []).append((outcome, repeats))
    return found


def _probe_templates(task: Task, names: list[str]) -> dict[str, str]:
    """The probe's ``msg`` templates of ``names`` that are not ``{{ NAME }}`` itself."""
    import re

    msg = task.args.get("msg") if isinstance(task.args, dict) else None
    if not isinstance(msg, dict):
        return {}
    return {name: text for name in names if isinstance(text := msg.get(name), str)
            and not re.fullmatch(r"\{\{-?\s*" + re.escape(name) + r"\s*-?\}\}", text)}


def _rendered(templar: Any, text: str) -> Any:
    """``text`` rendered as the probe renders it: a value only the run has is unknown, a name
    defined nowhere undefined; a value that is known only in part is shown as `vars` shows a
    variable holding it (a list in an order only the run knows is unknown, engine.values.unknown_as_shown)."""
    from engine.templating.errors import RunTimeOnly, cause_of, undefined_cause
    from engine.templating.templar import TemplateFailure
    from engine.values import unknown_as_shown

    try:
        value = templar.template(text)
    except TemplateFailure as exc:
        if cause_of(exc, RunTimeOnly) is None and undefined_cause(exc):
            return "undefined"
        return f"unknown: {exc}"
    why = unknown_as_shown(value)
    return value if why is None else f"unknown: {why}"


def judged(name: str, expected: Any, ours: Any, runtime: set[str], first_seed_only: bool = False) -> str | None:
    """What is wrong with playbook-ls's value ``ours`` of ``name`` where ansible recorded ``expected``
    (None when right). A value only the run knows (a name of ``runtime``: the case's on the host,
    var_cases.runtime_names; or a value that
    differed between the recordings under several hash seeds, ``ansible_tools.RUN_DEPENDENT``) must be
    said to be unknown: a value given there is a guess (the message starts ``guessed``), even an equal
    one. ``first_seed_only`` scores as when ansible was recorded once: against the first seed's value."""
    from ansible_tools import run_dependent
    from var_cases import typed

    seen = run_dependent(expected)
    if seen is not None and first_seed_only:
        expected, seen = seen[0], None
    if name in runtime or seen is not None:
        if str(ours).startswith("unknown: "):
            return None
        return f"guessed: ansible's value is the run's own ({'; '.join(map(repr, seen or [expected]))}); " \
               f"playbook-ls {ours!r}"
    return None if typed(ours) == typed(expected) else f"ansible {expected!r}; playbook-ls {ours!r}"


def probed(expected: dict[str, Any]) -> list[tuple[str, str, int, int | None, dict[str, Any] | None]]:
    """Every probe result of a recording: (FILE:LINE, host, run index, loop item or None, values), values
    None for an item skipped, or one whose running at all was the run's own (``RUN_DEPENDENT``)."""
    from ansible_tools import run_dependent

    return [(where, host, index, item, None if values is None or run_dependent(values) is not None else values)
            for where, hosts in sorted(expected.items()) for host, runs in sorted(hosts.items())
            for index, run in enumerate(runs)
            for item, values in (enumerate(run) if isinstance(run, list) else [(None, run)])]


def measure(root: Path, first_seed_only: bool = False, as_written: bool = False) -> tuple[int, list[str]]:
    """Every value the scenario in ``root`` recorded, compared with playbook-ls's (in the
    scenario's directory and ``env``, no other ANSIBLE_ setting): how many, and each difference
    (``label: name: what is wrong``, :func:`judged`); ``as_written``: see :func:`values_at`."""
    import os

    from var_cases import runtime_names

    spec = read_case(root)
    expected = json.loads((root / "expected.json").read_text())
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        del os.environ[name]
    os.environ.update(spec.get("env", {}))
    os.chdir(root)
    compared, wrong = 0, []
    try:
        for where, host, index, item, values in probed(expected):
            if values is None:
                continue
            label = f"{where} on {host} run {index + 1}" + (f" item {item + 1}" if item is not None else "")
            compared += len(values)
            try:
                ours = values_at(root, where, host, index, list(values), item, as_written)
            except AssertionError as exc:
                wrong += [f"{label}: {name}: {exc}" for name in values]
                continue
            for name, value in values.items():
                problem = judged(name, value, ours.get(name), runtime_names(spec, host), first_seed_only)
                if problem:
                    wrong.append(f"{label}: {name}: {problem}")
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return compared, wrong


def plan_against_recording(project: Path, inventory: str, monkeypatch: Any) -> Any:
    """``playbook-ls plan`` of a project recorded by ``bench/values_heldout.py record`` compared with
    its ``outcomes.json`` (tests/plan/plan_cases.py ``compare``), in the project's directory and
    with no ANSIBLE_ setting of the machine running the tests."""
    import os

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plan"))
    from plan_cases import compare, plan_outcomes

    monkeypatch.chdir(project)
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    return compare(json.loads((project / "outcomes.json").read_text()), plan_outcomes(project, [], inventory))

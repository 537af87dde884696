"""Recorded runs for ``playbook-ls plan``: what ansible-playbook did with each task on each host.

Every directory under ``scenarios/`` is one scenario: a ``site.yml``, an ``inventory.ini``,
whatever vars files and task files it needs, and a ``case.json``::

    {"description": "...", "args": ["--tags", "deploy", "-e", "x=1"], "decided": true}

``args`` are ansible-playbook options (playbook-ls plan is given the same), ``inventory`` (a
source or a list of them, default ``inventory.ini``) the inventory both read, ``env`` environment
variables both run in; ``decided`` says
every value the conditions use is known before the run. The test-only callback in
``callback_plugins/`` records, with ``-c local``, each task's status per host into
``scenarios/NAME/expected.json`` as ``{"FILE:LINE": {HOST: [STATUS, ...]}}``.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/plan/plan_cases.py [NAME...]           # rewrite expected.json
    python tests/plan/plan_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import read_case, record_or_verify, run_with_callback, scenario_dirs  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
CALLBACK = HERE / "callback_plugins" / "task_outcomes.py"


def scenarios(names: list[str] | None = None) -> list[Path]:
    return scenario_dirs(SCENARIOS, names)


case = read_case


RAN = {"ok", "changed", "failed", "unreachable"}
Planned = list[tuple[str, str, str, str, bool, bool]]
"""(FILE:LINE, HOST, OUTCOME, REASON, SHARED, REPEATS) in run order, as playbook-ls plans a
scenario; OUTCOME ``unreported`` for a skip ansible says nothing of (no callback, so no recorded
status); REPEATS: a looping include loads the task (or the flush point of a handler), which then runs
once per item where the plan lists it once (its first run is compared).
HOST ``*`` (:data:`ANY_OTHER`): the play may run on hosts no source read names (an inventory
script not run), each a ``depends`` of REASON for every host ansible ran the task on that the plan
does not name.
SHARED: the outcome also rests on the other hosts succeeding (``run_once`` picks the first host
still running; ``any_errors_fatal`` and ``max_fail_percentage`` stop every host)."""


ANY_OTHER = "*"


def plan_outcomes(directory: Path, args: list[str], inventory: str | list[str] = "inventory.ini") -> Planned:
    """What ``playbook-ls plan`` says of the scenario in ``directory`` (the current directory
    must be it) given ansible-playbook's ``args``, with ansible.cfg's fact cache read."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.host_reading import include_loop_names
    from engine.flow.plan import make_plan
    from engine.parsing.source import SourceCache
    from engine.variables.fact_cache import known_facts
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options

    sources = [inventory] if isinstance(inventory, str) else inventory
    options, problem = launch_options(build_parser().parse_args(
        ["plan", "site.yml", *(part for source in sources for part in ("-i", source)), *args]),
                                      SourceCache())
    assert problem is None, problem
    plan = make_plan(options, dynamic_inventory=False)
    plan.facts = known_facts()
    planned = plan_hosts(plan)
    # ansible reports a meta task only when its condition skips it, an include whose file does
    # not load twice: ok (included), then failed
    # a task whose outcome the plan states item by item of the looping include around it: one
    # outcome per run, compared run by run
    return [(f"{os.path.relpath(str(task.path), directory)}:{task.line}", host, reported, each.reason,
             _shared(play_plan.play, task.task),
             outcome.items is None and (task.repeats or bool(include_loop_names(play_plan.play, task.task))
                                        and not _one_item_copy(play_plan.play, task.task)))
            for play_plan, play in zip(plan.plays, planned, strict=True) for task in play.tasks
            for host, outcome in task.hosts.items() for each in outcome.items or (outcome,)
            for reported in _reports(task.task, each)] + \
        [(f"{os.path.relpath(str(task.path), directory)}:{task.line}", ANY_OTHER, "depends", play.more_hosts,
          False, False) for play in planned if play.more_hosts for task in play.tasks]


def _one_item_copy(play: Any, task: Any) -> bool:
    """Whether ``task`` is in the copy of a file the loader made for one item of the looping
    include around it (a loop written out): the plan lists each copy, in run order."""
    from engine.variables.loop_vars import copy_items, includer_loops
    from engine.variables.play_order import play_order

    loops = [include for include in play_order(play).includers.get(id(task), []) if includer_loops(include)]
    return len(loops) == 1 and copy_items(task, loops)[0] is not None


def _reports(task: Any, outcome: Any) -> list[str]:
    from engine.flow.host_includes import LOAD_FAILURE
    from engine.loading.keywords import META

    if outcome.unreported or (task.action in META and outcome.outcome == "runs"):
        return ["unreported"]
    if outcome.outcome == "fails" and outcome.reason.startswith(LOAD_FAILURE):
        return ["runs", "fails"]
    return [outcome.outcome]


def _shared(play: Any, task: Any) -> bool:
    data = play.data if isinstance(play.data, dict) else {}
    # with serial, whether a later batch runs rests on the earlier ones not all failing
    return bool({"any_errors_fatal", "max_fail_percentage", "serial"} & set(data)) or any(
        getattr(task.effective(keyword), "value", None) not in (None, False) for keyword in ("run_once",
                                                                                           "any_errors_fatal"))


@dataclass
class Comparison:
    wrong: list[str] = field(default_factory=list)
    compared: int = 0
    decided: int = 0
    excluded: int = 0
    depends: dict[str, int] = field(default_factory=dict)
    """``depends`` outcomes by the kind of run-time value named (:func:`depends_kind`)."""
    failed: set[str] = field(default_factory=set)
    """The hosts that failed where the plan did not say so."""
    """Outcomes on a host after a failure the plan did not state: the plan takes every task
    that runs to succeed, so what follows such a failure is not its claim."""


RUN_TIME_KINDS = {
    "set at run time": "a registered result or set_fact", "gathered": "a gathered fact",
    "a fact, gathered": "a gathered fact", "reports a change": "a handler's notifier changing",
    "rescue section": "a failure in a block", "whether the host goes on": "an earlier failure",
    "looping include": "an include's loop item", "ran no task": "an earlier use of the role",
    "force_handlers": "an earlier failure", "did not fail the host": "an earlier failure",
    "stops the host at an": "an earlier failure", "before the item where the host stops": "an earlier failure",
    "the host whose result comes in first": "the order the hosts' results come in",
    "which it names from what only the run knows": "the file a run-named include loads",
    "of the result of": "a registered result or set_fact",
    "a fact the run gathers or clears": "a gathered fact",
    "check mode: whether": "a module's check mode support",
    "not run if every host of the batch": "an earlier failure",
    "(as their results came in)": "the order the hosts' results come in",
    "the last to finish wins": "the order the hosts' results come in",
    "in the order of a Python set of groups": "the inventory's order of a set of groups",
    "the play's order is the run's (shuffle)": "the play's shuffled order",
    "(not run here)": "an inventory source not run",
}


def depends_kind(reason: str) -> str:
    """What a ``depends`` outcome waits for, in a word: a value only the run has, or ``static``
    for one a plan could decide (a lookup, an expression it cannot read), which counts against it."""
    return next((kind for marker, kind in RUN_TIME_KINDS.items() if marker in reason), f"static: {reason[:60]}")


def compare(recorded: dict[str, Any], ours: Planned) -> Comparison:
    """Every decided outcome (runs, skipped, fails) ansible contradicts; ``depends`` claims
    nothing. A task written once and run n times is compared run by run. The plan lists a play
    task by task, where a run with ``serial`` goes batch by batch: an outcome resting on the
    other hosts (SHARED) is not compared once any host failed unforeseen anywhere, before or
    after it in the plan's order."""
    first = _compare(recorded, ours, set())
    return _compare(recorded, ours, first.failed) if first.failed else first


def _compare(recorded: dict[str, Any], ours: Planned, failing_anywhere: set[str]) -> Comparison:
    result = Comparison()
    seen: dict[tuple[str, str], int] = {}
    failed_unforeseen: set[str] = set()
    excused: set[tuple[str, str]] = set()
    repeating = {(where, host) for where, host, *_, repeats in ours if repeats}
    open_to = {where: reason for where, host, _outcome, reason, *_ in ours if host == ANY_OTHER}
    for where, host, outcome, reason, shared, _repeats in ours:
        if host == ANY_OTHER:
            continue
        statuses = recorded.get(where, {}).get(host, [])
        if (where, host) in repeating and (where, host) in seen:
            result.excluded += 1  # which of ansible's runs per item it stands for is not known
            continue
        if outcome == "unreported":  # ansible's run of it reports nothing: no status is its own
            index, status = seen.get((where, host), -1), None
        else:
            index = seen[(where, host)] = seen.get((where, host), -1) + 1
            status = statuses[index] if index < len(statuses) else None
        if host in failed_unforeseen or (shared and (failed_unforeseen or failing_anywhere)):
            result.excluded += 1
            if status == "failed" and outcome != "fails":  # failing unforeseen, even where not compared
                failed_unforeseen.add(host)
            excused.add((where, host))  # another host's unforeseen failure may change which host runs it
            continue
        result.compared += 1
        result.decided += outcome != "depends"
        if outcome == "depends":
            kind = depends_kind(reason)
            result.depends[kind] = result.depends.get(kind, 0) + 1
        agrees = {"runs": status in RAN, "skipped": status in (None, "skipped"), "fails": status == "failed",
                  "depends": True, "unreported": True}[outcome]
        if not agrees:
            did = status or "never ran it"
            result.wrong.append(f"{where} on {host}: plan says {outcome} ({reason}); ansible: {did}")
        if status == "failed" and outcome != "fails" or \
                (where, host) in repeating and outcome != "fails" and "failed" in statuses[index + 1:]:
            failed_unforeseen.add(host)  # also at a later item: what follows is not the plan's claim either
    # a host no source read names: its runs depend on the source not run
    for where, hosts in recorded.items():
        for host, statuses in hosts.items():
            if where in open_to and (where, host) not in seen and host not in failed_unforeseen:
                result.compared += len(statuses)
                kind = depends_kind(open_to[where])
                result.depends[kind] = result.depends.get(kind, 0) + len(statuses)
                seen[(where, host)] = len(statuses) - 1
    # a run ansible reported that no reported outcome of the plan stands for
    result.wrong += [f"{where} on {host}: ansible reported {statuses}, the plan {seen.get((where, host), -1) + 1} "
                     "reported run(s)" for where, hosts in recorded.items() for host, statuses in hosts.items()
                     if len(statuses) > seen.get((where, host), -1) + 1 and host not in failed_unforeseen
                     and (where, host) not in repeating and (where, host) not in excused]
    # a task the plan lists once for the items of a looping include, said not to run at all
    # (unreported), which ansible ran
    result.wrong += [f"{where} on {host}: ansible reported {statuses}, the plan no run"
                     for where, hosts in recorded.items() for host, statuses in hosts.items()
                     if (where, host) in repeating and (where, host) not in seen and set(statuses) & RAN
                     and host not in failed_unforeseen and (where, host) not in excused]
    result.failed = failed_unforeseen
    return result


def inventory_of(scenario: Path) -> list[str]:
    """The scenario's inventory sources: ``inventory.ini``, or the case's ``inventory`` (a source
    or a list of them, each given to both tools with ``-i`` in that order)."""
    named = case(scenario).get("inventory", "inventory.ini")
    return [str(named)] if isinstance(named, str) else [str(source) for source in named]


def ansible_outcomes(scenario: Path, tool: str) -> dict[str, Any]:
    """Run the scenario with ansible-playbook in a scratch copy, in the case's ``env`` as the
    plan reads it; each task's status per host."""
    spec = case(scenario)
    sources = [part for source in inventory_of(scenario) for part in ("-i", source)]
    return run_with_callback(scenario, tool, CALLBACK, ["site.yml", *sources, *spec.get("args", [])],
                             spec.get("env", {}))


if __name__ == "__main__":
    sys.exit(record_or_verify(sys.argv[1:], __doc__ or "", scenarios, ansible_outcomes, lambda _, a, b: a == b,
                              lambda found: f"{sum(map(len, found.values()))} task-host outcomes recorded"))


def classes_followed(monkeypatch: Any) -> list[tuple[str, str]]:
    """(task, host) of each host a class of hosts (engine.variables.change_classes.HostClasses)
    followed on its own from now on: what sharing by class saved is the rest."""
    from engine.variables import change_classes

    followed: list[tuple[str, str]] = []
    original = change_classes.HostClasses.add

    def counted(self: Any, host: Any, read: Any, joined: Any) -> None:
        followed.append((self.task.name, host.name))
        original(self, host, read, joined)

    monkeypatch.setattr(change_classes.HostClasses, "add", counted)
    return followed


def readings_counted(monkeypatch: Any) -> list[tuple[str, str]]:
    """(task, host) of each reading of a task's conditions on a host (engine.flow.host_outcome's
    ``_HostTask.outcome``) from now on: what sharing between hosts saved is the rest."""
    from engine.flow import host_outcome

    readings: list[tuple[str, str]] = []
    original = host_outcome._HostTask.outcome

    def counted(self: Any, conditions: Any) -> Any:
        readings.append((self.task.name, self.host.name))
        return original(self, conditions)

    monkeypatch.setattr(host_outcome._HostTask, "outcome", counted)
    return readings


def calls_counted(monkeypatch: Any, owner: Any, name: str) -> list[Any]:
    """The first argument after ``self`` of each call of the method ``owner.name`` from now on
    (the host a walk or a key was worked out for)."""
    calls: list[Any] = []
    original = getattr(owner, name)

    def counted(self: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(first)
        return original(self, first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def once_alone(kept: dict[str, Any], make: Callable[[], Any], monkeypatch: Any,
               *settings: tuple[Any, str, Any]) -> Any:
    """``make()`` with each of ``settings`` (object, attribute, value) in place for it, made once
    per test module (``kept``): the plan with sharing turned off, which each test's shared plan
    must equal."""
    if "plan" not in kept:
        with monkeypatch.context() as alone:
            for owner, name, value in settings:
                alone.setattr(owner, name, value)
            kept["plan"] = make()
    return kept["plan"]


def fleet_planned_alone(root: Path, write: Callable[[Path], None], kept: dict[str, Any], monkeypatch: Any,
                        *settings: tuple[Any, str, Any],
                        planned: Callable[[Path], Any] | None = None) -> tuple[Path, Any]:
    """A class test's fleet: ``write(root)``, the working directory there, and the fleet planned
    (``planned``, default :func:`planned_by_play`) with ``settings`` in place (default: no
    ``group_by`` class sharing), made once per test module (``kept``), which each shared plan must
    equal."""
    from engine.variables import change_classes

    write(root)
    monkeypatch.chdir(root)
    plan = planned or planned_by_play
    return root, once_alone(kept, lambda: plan(root), monkeypatch, *(settings or [(change_classes, "SHARING", False)]))


def walked_alone_fleet(inventory: str, playbook: str, *settings: tuple[Any, str, Any]) -> Any:
    """A pytest fixture: ``inventory.ini`` and ``site.yml`` written from these texts, and the plan's
    rows (:func:`planned_rows`) with ``settings`` in place (default: each host's walk of the setters
    on its own), made once per test module, which each shared plan must equal."""
    import pytest

    from engine.variables import walk_classes

    kept: dict[str, Any] = {}

    def write(root: Path) -> None:
        (root / "inventory.ini").write_text(inventory)
        (root / "site.yml").write_text(playbook)

    @pytest.fixture()
    def fleet(tmp_path: Path, monkeypatch: Any) -> tuple[Path, Any]:
        return fleet_planned_alone(tmp_path, write, kept, monkeypatch,
                                   *(settings or [(walk_classes, "SHARING", False)]), planned=planned_rows)

    return fleet


def planned_by_play(root: Path) -> list[tuple[str, list[str], list[tuple[str, str, str, str]]]]:
    """``ROOT/site.yml`` planned with ``ROOT/inventory.ini``: each play's name, hosts and (task, host,
    outcome, reason) of its tasks, what a plan shared between hosts must give as host by host."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import RunOptions, make_plan

    plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")]))
    return [(play.name, sorted(play.hosts), [(task.name, host, outcome.outcome, outcome.reason)
                                             for task in play.tasks for host, outcome in task.hosts.items()])
            for play in plan_hosts(plan)]


def outcomes_by_host(root: Path, limit: str | None = None) -> dict[tuple[str, str], str]:
    """``ROOT/site.yml`` planned with ``ROOT/inventory.ini`` (and ``--limit`` ``limit``): each
    (task, host)'s outcome, what a fleet's host must have as when planned alone."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import RunOptions, make_plan

    plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")],
                                limit=limit))
    return {(task.name, host): outcome.outcome
            for play in plan_hosts(plan) for task in play.tasks for host, outcome in task.hosts.items()}


def planned_rows(root: Path) -> list[tuple[str, str, str, str]]:
    """:func:`planned_by_play`'s (task, host, outcome, reason) rows, the plays' in order."""
    return [row for _play, _hosts, rows in planned_by_play(root) for row in rows]


def shared_and_alone(root: Path, monkeypatch: Any) -> tuple[list[tuple[str, str, str, str]], ...]:
    """The fleet in ``root`` planned (:func:`planned_rows`, sorted, the working directory there) as the
    plan shares its readings, and with every host read on its own (per-host vars_files), which a
    shared plan must equal."""
    from engine.flow import host_outcome

    monkeypatch.chdir(root)
    shared = sorted(planned_rows(root))
    with monkeypatch.context() as patch:
        patch.setattr(host_outcome, "per_host_vars_files", lambda _play: True)  # every host on its own
        alone = sorted(planned_rows(root))
    return shared, alone


def without_key_part(monkeypatch: Any, left_out: str) -> None:
    """The class key of engine.variables.change_classes without its part named ``left_out``."""
    from engine.variables import change_classes

    monkeypatch.setattr(change_classes, "KEY_PARTS", tuple(part for part in change_classes.KEY_PARTS
                                                           if part.__name__ != left_out))


def hosts_asked(monkeypatch: Any, owner: Any, name: str, host_at: int,
                counts: Callable[[tuple[Any, ...]], bool] | None = None) -> list[str]:
    """The name of the host each call of ``owner.name`` is given (its positional argument at
    ``host_at``), in call order, while the test lasts; ``counts``: which calls, by their
    positional arguments (default: all)."""
    asked: list[str] = []
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        if counts is None or counts(args):
            asked.append(args[host_at].name)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return asked


def readings_by_size(root: Path, monkeypatch: Any, write: Callable[[Path, int], None], task: str,
                     sizes: tuple[int, ...]) -> list[int]:
    """For each fleet size of ``sizes`` (``write(dir, size)`` writes the fleet), how many hosts' own
    variables were read (engine.variables.task_variables.variables_at) for ``task``'s outcomes: a
    reading shared by class, or rebound from host to host, reads none."""
    from engine.variables import task_variables

    counts = []
    for hosts in sizes:
        fleet = root / str(hosts)
        fleet.mkdir()
        write(fleet, hosts)
        monkeypatch.chdir(fleet)
        counted: set[str] = set()
        original = task_variables.variables_at

        def variables_at(plan: Any, play_plan: Any, host: Any, asked: Any, *args: Any,
                         original: Any = original, counted: set[str] = counted, **kwargs: Any) -> Any:
            if getattr(asked, "name", None) == task:
                counted.add(host.name)
            return original(plan, play_plan, host, asked, *args, **kwargs)

        monkeypatch.setattr(task_variables, "variables_at", variables_at)
        planned_rows(fleet)
        counts.append(len(counted))
        monkeypatch.undo()
    return counts

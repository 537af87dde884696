"""Every recorded scenario: what ``playbook-ls plan`` says of each task on each host is what
ansible-playbook did there. ``runs`` must be a task ansible ran (ok, changed or failed),
``skipped`` one it skipped or never reached on the host, ``fails`` one that failed; ``depends``
claims nothing, and is counted: a scenario whose ``case.json`` says ``"decided": true`` has only
values known before the run, so every outcome must be decided but at the places its ``"module_rescues"``
lists (FILE:LINE of a rescue task whose block holds a module: it runs only if the module fails, which
only the run knows, and the plan says so); one that says ``"foreseen": true``
fails hosts only where the failure is certain before the run, so the plan must say ``fails`` at
every task ansible failed (the comparison otherwise takes an unforeseen failure for a module's own).

With ansible-core present, ``test_recordings_match_ansible`` re-runs ansible on a fixed third of
the scenarios (all of them with PLAYBOOK_LS_LIVE=all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample
from plan_cases import SCENARIOS, Planned, ansible_outcomes, case, compare, inventory_of, plan_outcomes, scenarios

from engine.flow.host_blocks import MODULE_RESCUE


def our_outcomes(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> Planned:
    monkeypatch.chdir(scenario)
    for name, value in case(scenario).get("env", {}).items():  # ansible_outcomes records in the same
        monkeypatch.setenv(name, value)
    return plan_outcomes(scenario, case(scenario).get("args", []), inventory_of(scenario))


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda p: p.name)
def test_plan_matches_what_ansible_did(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = our_outcomes(scenario, monkeypatch)
    compared = compare(json.loads((scenario / "expected.json").read_text()), ours)
    assert compared.wrong == []
    if case(scenario).get("foreseen"):  # every failure of the run is certain before it: the plan states it
        assert compared.failed == set()
    if case(scenario).get("decided"):
        rescues = set(case(scenario).get("module_rescues", []))
        undecided = [f"{where} on {host}: {reason}" for where, host, outcome, reason, *_ in ours
                     if outcome == "depends" and not (where in rescues and reason == MODULE_RESCUE)]
        assert undecided == []
        assert rescues <= {where for where, _, outcome, reason, *_ in ours
                           if outcome == "depends" and reason == MODULE_RESCUE}


def test_every_outcome_kind_is_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenarios reach runs, skipped, depends and fails: a plan that said only one of them
    everywhere could not pass the comparison above unnoticed."""
    kinds = {outcome for scenario in scenarios() for _, _, outcome, *_ in our_outcomes(scenario, monkeypatch)}
    assert kinds == {"runs", "skipped", "depends", "fails", "unreported"}


def test_the_comparison_catches_a_wrong_claim() -> None:
    recorded = {"site.yml:3": {"h1": ["skipped"], "h2": ["ok"]}, "site.yml:5": {"h2": ["failed"]}}
    ours = [("site.yml:3", "h1", "runs", "", False, False), ("site.yml:3", "h2", "runs", "", False, False),
            ("site.yml:5", "h1", "skipped", "x", False, False), ("site.yml:5", "h2", "runs", "", False, False),
            ("site.yml:7", "h2", "runs", "", False, False), ("site.yml:9", "h1", "runs", "", True, False)]
    compared = compare(recorded, ours)
    assert compared.wrong == ["site.yml:3 on h1: plan says runs (); ansible: skipped"]
    # h2 failed unforeseen at :5: its later outcomes, and run_once ones on any host, are not compared
    assert (compared.compared, compared.decided, compared.excluded) == (4, 4, 2)


LIVE = live_sample([p.name for p in scenarios()])


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize("name", LIVE)
def test_recordings_match_ansible(name: str) -> None:
    scenario = SCENARIOS / name
    assert ansible_outcomes(scenario, str(find_tool("ansible-playbook"))) == \
        json.loads((scenario / "expected.json").read_text())


def test_a_meta_action_without_conditions_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``meta: noop`` ignores its ``when`` (ansible warns and runs it): the plan says it runs,
    though nothing is reported of it to compare with."""
    scenario = SCENARIOS / "handler_flushes"
    monkeypatch.chdir(scenario)
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import make_plan
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options

    options, _ = launch_options(build_parser().parse_args(["plan", "site.yml", "-i", "inventory.ini"]), SourceCache())
    noop = [task for play in plan_hosts(make_plan(options, dynamic_inventory=False)) for task in play.tasks
            if task.line == 13 and task.path and task.path.endswith("site.yml")]
    assert [outcome.outcome for task in noop for outcome in task.hosts.values()] == ["runs", "runs"]


def test_a_looping_include_is_stated_item_by_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose `when` reads the looping include's item has one outcome per item where the
    include loads it (none where the include's own `when` skips the item), compared run by run;
    a task failing the host at an item stops it there: the include's tasks before it ran up to
    that item, those after it up to the item before."""
    ours = our_outcomes(SCENARIOS / "include_item_outcomes", monkeypatch)
    per_host: dict[tuple[str, str], list[str]] = {}
    for where, host, outcome, *_ in ours:
        per_host.setdefault((where, host), []).append(outcome)
    assert per_host["tasks/zone.yml:1", "ns1"] == ["runs", "skipped", "unreported"]
    assert per_host["tasks/zone.yml:1", "ns2"] == ["runs"]  # the assert fails ns2 at the first item
    assert per_host["tasks/zone.yml:5", "ns3"] == ["runs", "fails"]  # and ns3 at the second
    assert per_host["tasks/zone.yml:1", "ns3"] == ["runs", "skipped"]
    assert per_host["tasks/zone.yml:8", "ns3"] == ["runs"]


def test_the_comparison_reads_every_run_of_a_repeating_task() -> None:
    """A task listed once for a looping include's items: a later run that failed makes the host's
    later outcomes no claim of the plan; said to run nowhere while ansible ran it is wrong."""
    recorded = {"inc.yml:1": {"h1": ["skipped", "failed"]}, "site.yml:9": {"h1": ["ok"]},
                "inc.yml:5": {"h2": ["ok", "ok"]}}
    ours = [("inc.yml:1", "h1", "depends", "x", False, True), ("site.yml:9", "h1", "skipped", "x", False, False),
            ("inc.yml:5", "h2", "unreported", "x", False, True)]
    compared = compare(recorded, ours)
    assert compared.wrong == ["inc.yml:5 on h2: ansible reported ['ok', 'ok'], the plan no run"]
    assert compared.excluded == 1


def test_depends_kinds_tell_run_time_values_from_static_ones() -> None:
    """What a ``depends`` waits for is counted as the run's only where the reason names a value
    only the run has (a module's result, a fact the run gathers or clears, check mode support, a
    batch failing); a lookup the plan leaves undecided counts against it."""
    from plan_cases import depends_kind

    assert depends_kind("`said.stdout == 'on'` (this task) needs Error rendering expression: 'stdout' of the result "
                        "of task 'register a result' is known only at run time") == "a registered result or set_fact"
    assert depends_kind("`x` needs `ansible_os_family`: a fact the run gathers or clears") == "a gathered fact"
    assert depends_kind("check mode: whether ansible.builtin.command runs then") == "a module's check mode support"
    assert depends_kind("`lookup('file', 'x')` needs a lookup").startswith("static")

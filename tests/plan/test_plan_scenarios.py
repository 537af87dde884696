"""Every recorded scenario: what ``playbook-ls plan`` says of each task on each host is what
ansible-playbook did there. ``runs`` must be a task ansible ran (ok, changed or failed),
``skipped`` one it skipped or never reached on the host, ``fails`` one that failed; ``depends``
claims nothing, and is counted: a scenario whose ``case.json`` says ``"decided": true`` has only
values known before the run, so every outcome must be decided.

With ansible-core present, ``test_recordings_match_ansible`` re-runs ansible on a fixed third of
the scenarios (all of them with PLAYBOOK_LS_LIVE=all)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample
from plan_cases import SCENARIOS, ansible_outcomes, case, scenarios

RAN = {"ok", "changed", "failed", "unreachable"}


def our_outcomes(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """``{"FILE:LINE": {HOST: [(OUTCOME, REASON), ...]}}`` as playbook-ls plans the scenario,
    given the case's ansible-playbook options, in its directory."""
    from engine.fact_cache import known_facts
    from engine.plan import make_plan
    from engine.source import SourceCache
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options
    from playbook_ls.features.host_plan import plan_hosts

    monkeypatch.chdir(scenario)
    args = build_parser().parse_args(["plan", "site.yml", "-i", "inventory.ini", *case(scenario).get("args", [])])
    options, problem = launch_options(args, SourceCache())
    assert problem is None, problem
    found: dict[str, dict[str, list[tuple[str, str]]]] = {}
    plan = make_plan(options, dynamic_inventory=False)
    plan.facts = known_facts()  # ansible.cfg's fact cache, as the command reads it
    for play in plan_hosts(plan):
        for task in play.tasks:
            where = f"{os.path.relpath(str(task.path), scenario)}:{task.line}"
            for host, outcome in task.hosts.items():
                found.setdefault(where, {}).setdefault(host, []).append((outcome.outcome, outcome.reason))
    return found


def differences(scenario: Path, ours: dict[str, dict[str, list[tuple[str, str]]]]) -> list[str]:
    """Every decided outcome ansible contradicts, and every task ansible ran that the plan lacks."""
    recorded = json.loads((scenario / "expected.json").read_text())
    wrong = []
    for where, hosts in ours.items():
        for host, outcomes in hosts.items():
            statuses = recorded.get(where, {}).get(host, [])
            for index, (outcome, reason) in enumerate(outcomes):
                status = statuses[index] if index < len(statuses) else None
                agrees = {"runs": status in RAN, "skipped": status in (None, "skipped"),
                          "fails": status == "failed", "depends": True}[outcome]
                if not agrees:
                    did = status or "never ran it"
                    wrong.append(f"{where} on {host}: plan says {outcome} ({reason}); ansible: {did}")
    for where, hosts in recorded.items():
        for host in hosts:
            if host not in ours.get(where, {}):
                wrong.append(f"{where} on {host}: ansible ran it ({hosts[host]}), the plan has no such task there")
    return wrong


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda p: p.name)
def test_plan_matches_what_ansible_did(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = our_outcomes(scenario, monkeypatch)
    assert differences(scenario, ours) == []
    if case(scenario).get("decided"):
        undecided = [f"{where} on {host}: {reason}" for where, hosts in ours.items() for host, outcomes in hosts.items()
                     for outcome, reason in outcomes if outcome == "depends"]
        assert undecided == []


def test_every_outcome_kind_is_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenarios reach runs, skipped, depends and fails: a plan that said only one of them
    everywhere could not pass the comparison above unnoticed."""
    kinds = {outcome for scenario in scenarios() for hosts in our_outcomes(scenario, monkeypatch).values()
             for outcomes in hosts.values() for outcome, _ in outcomes}
    assert kinds == {"runs", "skipped", "depends", "fails"}


LIVE = live_sample([p.name for p in scenarios()])


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize("name", LIVE)
def test_recordings_match_ansible(name: str) -> None:
    scenario = SCENARIOS / name
    assert ansible_outcomes(scenario, str(find_tool("ansible-playbook"))) == \
        json.loads((scenario / "expected.json").read_text())

"""Every recorded scenario: the value `playbook-ls vars` gives each probed variable on each host
at each probe task equals what ansible-playbook printed there (and, since every definition's
value names where it is written, the winning source is the same too). A probe value
``"undefined"`` (from ``| default('undefined')``) means the variable must be defined nowhere;
a name listed in the case's ``runtime`` (a value built from facts) must be said to be unknown.

With ansible-core present, ``test_recordings_match_ansible`` re-runs ansible on every scenario."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from var_cases import SCENARIOS, ansible_values, case, scenarios

from engine.plan import RunOptions, make_plan
from engine.var_report import find_task, variables_at


def _probes() -> list[tuple[str, str, str, str, dict[str, Any]]]:
    found = []
    for scenario in scenarios():
        expected = json.loads((scenario / "expected.json").read_text())
        for where, hosts in sorted(expected.items()):
            for host, values in sorted(hosts.items()):
                found.append((scenario.name, where, host, f"{scenario.name}:{where}:{host}", values))
    return found


PROBES = _probes()


def our_values(scenario: str, where: str, host: str, names: list[str]) -> dict[str, Any]:
    root = SCENARIOS / scenario
    spec = case(root)
    extra: dict[str, Any] = {}
    args = spec.get("args", [])
    for flag, value in zip(args, args[1:], strict=False):
        if flag == "-e" and value.startswith("{"):
            extra.update(json.loads(value))
        elif flag == "-e":
            key, _, text = value.partition("=")
            extra[key] = text
    path, _, line = where.rpartition(":")
    options = RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / s) for s in spec.get("inventory", [])],
                         extra_vars=extra)
    plan = make_plan(options, dynamic_inventory=False)
    for play_plan in plan.plays:
        task = find_task(play_plan.play, str(root / path), int(line) - 1)
        chosen = next((h for h in play_plan.hosts if h.name == host), None)
        if task is None or chosen is None:
            continue
        report = variables_at(plan, play_plan, chosen, task, names)
        values = {name: ("undefined" if not resolved.definitions else
                         resolved.value if resolved.unknown is None else f"unknown: {resolved.unknown}")
                  for name, resolved in report.variables.items()}
        # as the recording callback writes the scenario's directory
        return json.loads(json.dumps(values, default=str).replace(json.dumps(str(root))[1:-1], "<ROOT>"))
    raise AssertionError(f"no task at {where} for {host}")


@pytest.mark.parametrize(("scenario", "where", "host", "label", "expected"), PROBES, ids=[p[3] for p in PROBES])
def test_values_match_ansible(scenario: str, where: str, host: str, label: str, expected: dict[str, Any],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SCENARIOS / scenario)  # its ansible.cfg, as ansible-playbook read it
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    ours = our_values(scenario, where, host, list(expected))
    for name in case(SCENARIOS / scenario).get("runtime", []):  # only the run knows: said, not guessed
        if name in expected:
            assert str(ours.pop(name)).startswith("unknown: "), name
            expected = {k: v for k, v in expected.items() if k != name}
    assert ours == expected


def test_every_scenario_has_a_recording() -> None:
    assert all((s / "expected.json").is_file() for s in scenarios())
    assert len(PROBES) >= 3


def test_recordings_match_ansible() -> None:
    from ansible_tools import find_tool

    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook is not installed")
    for scenario in scenarios():
        assert ansible_values(scenario, tool) == json.loads((scenario / "expected.json").read_text()), scenario.name

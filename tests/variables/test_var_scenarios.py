"""Every recorded scenario: the value `playbook-ls vars` gives each probed variable on each host
at each probe task equals what ansible-playbook printed there (and, since every definition's
value names where it is written, the winning source is the same too). A probe value
``"undefined"`` (from ``| default('undefined')``) means the variable must be defined nowhere;
a name listed in the case's ``runtime`` (a value built from facts), or in its ``runtime_on`` for the
host, must be said to be unknown.
Values are compared strictly about type (``var_cases.typed``): 1, 1.0, "1" and true differ.

A task written once can run several times (a role or task file reached twice): ansible's Nth
run of the task at FILE:LINE on a host is compared with the Nth task playbook-ls places at
FILE:LINE for that host in run order (:func:`tasks_at`).

playbook-ls is given what ansible-playbook was given: the case's ``args`` as run options and
its ``env`` as environment variables (``monkeypatch.setenv``), in the scenario's directory.

With ansible-core present, ``test_recordings_match_ansible`` re-runs ansible on a fixed third of the
scenarios (all of them with PLAYBOOK_LS_LIVE=all)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from ansible_tools import run_dependent
from var_cases import SCENARIOS, ansible_values, case, runtime_names, scenarios, steady, typed
from var_values import judged, values_at

# Where playbook-ls gives another value than ansible today, one entry per probe result
# ("scenario:FILE:LINE:HOST", with "#N" for the Nth run of a task that ran more than once),
# each reason "name: what ansible gives; what playbook-ls gives". Each is a strict xfail: a fix
# makes it pass, and then its entry must go.

PLAYBOOK_VARS_ROOT = ("ANSIBLE_PLAYBOOK_VARS_ROOT=all: ansible looks for group_vars beside the task's file and its "
                      "dependency chain's roles (roles/r/tasks/group_vars for a role task, not the playbook's); "
                      "playbook-ls ignores the setting (the playbook's group_vars)")

GROUP_BY_ORDER = ("ansible_play_hosts of a play on a group group_by made from hosts of one batch: ansible lists them "
                  "in the order their results came in; playbook-ls says that order is the run's (unknown)")

BOTH_PATHS = ("a value the same whichever way a block goes: ansible's always section sets it from what the block set "
              "after a module or what its rescue set (both give it the same value); playbook-ls follows one way, and "
              "whether the module fails is the run's (unknown)")


def _at(scenario: str, hosts: str, reasons: dict[str, str]) -> dict[str, str]:
    """``reasons`` per FILE:LINE[#N] of ``scenario``, for each of the space-separated ``hosts``."""
    return {f"{scenario}:{where.partition('#')[0]}:{host}{''.join(where.partition('#')[1:])}": reason
            for where, reason in reasons.items() for host in hosts.split()}


KNOWN_DIFFERENT: dict[str, str] = {
    "playbook_vars_root_all:roles/r/tasks/main.yml:1:h1": PLAYBOOK_VARS_ROOT,
    "deploy7_db_replication:site.yml:93:pg-a2": BOTH_PATHS,
    **_at("deploy7_web_rolling", "web1.example.com web2.example.com web3.example.com",
          {"site.yml:147": GROUP_BY_ORDER}),
}


def _probes() -> list[Any]:
    found = []
    for scenario in scenarios():
        expected = json.loads((scenario / "expected.json").read_text())
        for where, hosts in sorted(expected.items()):
            for host, runs in sorted(hosts.items()):
                for index, values in enumerate(runs):
                    label = f"{scenario.name}:{where}:{host}" + (f"#{index + 1}" if len(runs) > 1 else "")
                    reason = KNOWN_DIFFERENT.get(label)
                    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                    found.append(pytest.param(scenario.name, where, host, index, values, id=label, marks=marks))
    return found


PROBES = _probes()


def our_values(scenario: str, where: str, host: str, index: int, names: list[str],
               item: int | None = None) -> dict[str, Any]:
    """What playbook-ls says ``names`` are at the ``index``-th run of the task at ``where`` (at
    ``item`` of its loop)."""
    return values_at(SCENARIOS / scenario, where, host, index, names, item)


@pytest.fixture
def in_scenario(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenario's directory (its ansible.cfg, as ansible-playbook read it) and its ``env``,
    and no other ANSIBLE_ setting of the machine running the tests."""
    scenario = request.node.callspec.params["scenario"]
    monkeypatch.chdir(SCENARIOS / scenario)
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    for name, value in case(SCENARIOS / scenario).get("env", {}).items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(("scenario", "where", "host", "index", "expected"), PROBES)
@pytest.mark.usefixtures("in_scenario")
def test_values_match_ansible(scenario: str, where: str, host: str, index: int,
                              expected: dict[str, Any] | list[dict[str, Any] | None]) -> None:
    if isinstance(expected, list):  # a looped probe: each item's values (None: its `when` skipped it)
        for item, values in enumerate(expected):
            if values is not None and run_dependent(values) is None:
                _compare(scenario, host, our_values(scenario, where, host, index, list(values), item), values)
        return
    _compare(scenario, host, our_values(scenario, where, host, index, list(expected)), expected)


def _compare(scenario: str, host: str, ours: dict[str, Any], expected: dict[str, Any]) -> None:
    """Every value as ansible's; one only the run knows (a name of the case's ``runtime`` or of its
    ``runtime_on`` for ``host``, a value that differed between the recordings under several hash
    seeds) said to be unknown, not guessed."""
    runtime = runtime_names(case(SCENARIOS / scenario), host)
    problems = {name: judged(name, value, ours.get(name), runtime) for name, value in expected.items()}
    assert {name: problem for name, problem in problems.items() if problem} == {}


def test_comparison_is_strict_about_type() -> None:
    assert typed(1) != typed(1.0)
    assert typed(True) != typed(1)
    assert typed("1") != typed(1)
    assert typed(None) != typed("None")
    assert typed({"a": [1, {"b": 1}]}) != typed({"a": [1, {"b": 1.0}]})
    assert typed({"a": [1, True, None]}) == typed(json.loads('{"a": [1, true, null]}'))
    assert isinstance(json.loads("1.0"), float)


def test_known_differences_name_recorded_probes() -> None:
    labels = {param.id for param in PROBES}
    assert not set(KNOWN_DIFFERENT) - labels


def test_every_scenario_has_a_recording() -> None:
    assert all((s / "expected.json").is_file() for s in scenarios())
    assert len(PROBES) >= 3


@pytest.mark.ansible
def test_recordings_match_ansible() -> None:
    from ansible_tools import HASH_SEEDS, agrees_with_recording, collection_installed, find_tool, live_sample

    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook is not installed")
    sampled = set(live_sample([s.name for s in scenarios()]))  # PLAYBOOK_LS_LIVE=all: every one
    # a scenario needing a collection ansible does not find here is left out (ansible would fail on it)
    for scenario in (s for s in scenarios() if s.name in sampled and all(
            collection_installed(name) for name in case(s).get("collections", []))):
        recorded = json.loads((scenario / "expected.json").read_text())
        spec = case(scenario)
        # one run, under the first seed the recording used: what differed between seeds may differ
        once = ansible_values(scenario, tool, HASH_SEEDS[:1])
        assert agrees_with_recording(steady(recorded, spec), steady(once, spec)), scenario.name

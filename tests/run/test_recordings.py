"""The recordings of tests/run/scenarios: complete, self-consistent, and (with ansible) still true."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample
from engine_cases import (
    HERE,
    SCRATCH,
    Scenario,
    case_ids,
    check_mode_problems,
    compare,
    describe,
    load_scenarios,
    run_case,
    text_problems,
)

# the recordings the engine is compared with in a subprocess (scenarios/) and in process
SCENARIOS = load_scenarios() + load_scenarios(None, HERE / "scenarios_in_process")


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 30


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_recording_is_complete(scenario: Scenario) -> None:
    data = scenario.load_expected()
    assert data, f"no expected.json: python tests/run/engine_cases.py {scenario.name}"
    assert set(data["cases"]) == set(scenario.modes), "modes changed: re-record"
    for mode, case in data["cases"].items():
        assert case["argv"] == scenario.argv(mode), "arguments changed: re-record"
        assert isinstance(case["rc"], int)
        # a path under /tmp, not a file's text naming /tmp itself (an fstab line)
        assert not re.search(r"(?<![\w.>-])/tmp/", json.dumps(case)), "an absolute scratch path was not normalised"
        if case["recap"] is None and case["tasks"] is None and case["rc"] != 0:
            continue  # the playbook stopped before its recap: its results are in the text alone (engine_cases)
        # an empty recap is a run in which no host ran a task (--start-at-task that matches nothing)
        assert case["recap"] or (case["recap"] == {} and case["tasks"] == []), \
            "no recap: was the pls_json callback used?"
        tasks = case["tasks"]
        assert {t["status"] for t in tasks} <= {"ok", "changed", "skipped", "failed", "unreachable"}
        for host, counts in case["recap"].items():
            mine = [t["status"] for t in tasks if t["host"] == host]
            # every counted failure (ignored and rescued ones too) is one task result of the host, and
            # so is every unreachable (an ignored one, ignore_unreachable, counts ok and ignored); a
            # failed command that ran also counts as changed
            assert counts["failed"] + counts["ignored"] + counts["rescued"] + counts["unreachable"] == \
                mine.count("failed") + mine.count("unreachable")
            assert mine.count("changed") <= counts["changed"] <= mine.count("changed") + mine.count("failed")
            assert counts["skipped"] <= mine.count("skipped")  # a skipped meta task is not counted
        if mode.startswith("check") and not scenario.check_writes:
            assert case["files"] == {}, "ansible changed files in check mode"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_text_is_recorded_per_mode(scenario: Scenario) -> None:
    recorded = {p.name for p in scenario.path.glob("stdout.*.txt")}
    if not scenario.stdout:
        assert not recorded, f"{scenario.name} opts out of the text ({scenario.stdout_reason}) but has {recorded}"
        return
    assert recorded == {scenario.stdout_file(m).name for m in scenario.modes}, "modes changed: re-record"
    for mode in scenario.modes:
        text = scenario.load_stdout(mode) or ""
        assert "PLAY RECAP" in text or "ERROR" in text, "not the default callback's text"
        # a path that starts at /tmp, not a scenario's own directory named tmp (<SCRATCH>/out/tmp/)
        assert not re.search(r"(?<![\w.>-])/tmp/", text), "a temporary path was not normalised"


def test_when_quiz_of_the_blog() -> None:
    (quiz,) = [s for s in SCENARIOS if s.name == "when_quiz_blog"]
    recap = quiz.load_expected()["cases"]["run"]["recap"]["localhost"]
    assert (recap["ok"], recap["skipped"]) == (2, 3)


def test_compare_notices_every_kind_of_difference() -> None:
    case = SCENARIOS[0].load_expected()["cases"]["run"]
    assert compare(case, copy.deepcopy(case)) == []
    for mutate in (
        lambda c: c.update(rc=c["rc"] + 1),
        lambda c: next(iter(c["recap"].values())).update(ok=99),
        lambda c: c["tasks"][0].update(status="skipped" if c["tasks"][0]["status"] != "skipped" else "ok"),
        lambda c: c["tasks"].pop(),
        lambda c: c["files"].update({"extra.txt": {"type": "file", "mode": "0644", "content": SCRATCH}}),
    ):
        other = copy.deepcopy(case)
        mutate(other)
        assert compare(case, other), "a difference went unnoticed"


LIVE = set(live_sample([scenario.name for scenario in SCENARIOS]))  # PLAYBOOK_LS_LIVE=all: every one


# one test per scenario and mode, so that the test workers share the ansible-playbook runs
@pytest.mark.ansible
@pytest.mark.parametrize("case", [c for c in case_ids(SCENARIOS) if c[0].name in LIVE],
                         ids=lambda c: f"{c[0].name}-{c[1]}")
def test_recordings_match_ansible_playbook(case: tuple[Scenario, str]) -> None:
    if find_tool("ansible-playbook") is None:
        pytest.skip("ansible-playbook is not installed")
    scenario, mode = case
    run = run_case(scenario, mode, "ansible")
    problems = ([run.error] if run.error else []) + check_mode_problems(scenario, mode, run)
    problems += compare(scenario.load_expected()["cases"][mode], run.outcome)
    problems += text_problems(scenario, mode, run)
    assert not problems, describe(scenario, mode, run, problems)


def test_text_diff_ignores_only_how_hosts_interleave() -> None:
    from stdout_text import text_diff

    # recorded twice from ansible-playbook (scenario no_log_censor --check): h2's items came before h1's line
    i1, i2, h1, h2 = "skipping: [h1] => (item=a) \n", "skipping: [h2] => (item=a) \n", "skipping: [h1]\n", \
        "skipping: [h2]\n"
    first = "TASK [loop] ***\n" + i1 + h1 + i2 + h2
    second = "TASK [loop] ***\n" + i1 + i2 + h1 + h2
    assert text_diff(first, second) == ""
    assert text_diff(first, first.replace(h1, "ok: [h1]\n"))  # a real difference
    swapped = "TASK [loop] ***\n" + h1 + i1 + i2 + h2
    assert text_diff(first, swapped)  # the order of one host's lines counts


def test_both_tools_start_alike(tmp_path: Path) -> None:
    """One Python starts both tools and both give the hosts the same interpreter: what a playbook
    reads of them (``ansible_playbook_python``, ``ansible_facts.python``) is then the same."""
    from engine_cases import ansible_argv, ansible_env, engine_command, engine_env, load_scenarios

    scenario = load_scenarios()[0]
    assert ansible_argv(scenario, "run")[0] == engine_command()[0][0] == sys.executable
    assert engine_env(tmp_path)["ANSIBLE_PYTHON_INTERPRETER"] == ansible_env(tmp_path)["ANSIBLE_PYTHON_INTERPRETER"]

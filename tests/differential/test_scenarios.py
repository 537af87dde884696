"""Differential tests: playbook-ls output must equal the ansible-playbook output recorded in expected/."""

from __future__ import annotations

import pytest
from ansible_tools import live_sample
from harness import (
    EXPECTED_DIR,
    Scenario,
    ansible_playbook,
    as_result,
    cases,
    comparable,
    load_scenarios,
    record_all,
    run_ours,
    stale_cases,
)

SCENARIOS = load_scenarios()
EXPECTED = {s.name: s.load_expected() for s in SCENARIOS}


@pytest.mark.parametrize(
    ("scenario", "case_id", "mode", "argv"),
    [pytest.param(s, cid, mode, argv, id=f"{s.name}: {cid}") for s in SCENARIOS for cid, mode, argv in cases(s)],
)
def test_matches_ansible(scenario: Scenario, case_id: str, mode: str, argv: list[str]) -> None:
    entry = EXPECTED[scenario.name].get(case_id)
    assert entry is not None, f"no fixture; run: python tests/differential/record.py {scenario.name}"
    expected_stdout, expected_rc = comparable(as_result(entry))
    stdout, rc = comparable(run_ours(scenario, mode, argv))
    assert stdout == expected_stdout
    assert rc == expected_rc


def test_corpus_is_consistent() -> None:
    assert len(SCENARIOS) >= 45
    assert {p.stem for p in EXPECTED_DIR.glob("*.json")} == {s.name for s in SCENARIOS}


LIVE = set(live_sample([scenario.name for scenario in SCENARIOS]))  # PLAYBOOK_LS_LIVE=all: every one


# one test per scenario, so that the test workers share the ansible-playbook runs
@pytest.mark.ansible
@pytest.mark.skipif(ansible_playbook() is None, reason="ansible-playbook is not installed")
@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.name in LIVE], ids=lambda s: s.name)
def test_fixtures_are_fresh(scenario: Scenario) -> None:
    stale = stale_cases([scenario], record_all([scenario]))
    assert not stale, "stale fixtures (re-record with tests/differential/record.py):\n" + "\n".join(stale)

"""The recorded scenarios of ``scenarios_in_process/``: shapes taken from real roles, each the
recording of a difference the engine had, compared as tests/run/test_engine_vs_ansible.py compares
``scenarios/`` (results, files, then the default callback's text), but with the engine run in this
process, one case after the other: no interpreter start and import per case, so a scenario added
here costs the suite a fraction of a second, where one of ``scenarios/`` costs a subprocess per mode.

Record with ``python tests/run/engine_cases.py --scenarios tests/run/scenarios_in_process [NAME]``;
tests/run/test_recordings.py checks these recordings with the others (and re-runs ansible on its sample).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_cases import (
    Scenario,
    case_ids,
    check_mode_problems,
    compare,
    describe,
    load_scenarios,
    run_case,
    text_problems,
)

DIRECTORY = Path(__file__).resolve().parent / "scenarios_in_process"
SCENARIOS = load_scenarios(None, DIRECTORY)

# SCENARIO-MODE -> why the engine still differs there (strict xfail: a fix fails the run until removed)
KNOWN_DIFFERENT: dict[str, str] = {}


def _params() -> list[object]:
    return [pytest.param((scenario, mode), id=f"{scenario.name}-{mode}",
                         marks=[pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENT[f"{scenario.name}-{mode}"])]
                         if f"{scenario.name}-{mode}" in KNOWN_DIFFERENT else [])
            for scenario, mode in case_ids(SCENARIOS)]


def test_known_different_names_exist() -> None:
    assert set(KNOWN_DIFFERENT) <= {f"{s.name}-{m}" for s, m in case_ids(SCENARIOS)}


@pytest.mark.parametrize("case", _params())
def test_engine_in_process_matches_ansible(case: tuple[Scenario, str]) -> None:
    scenario, mode = case
    expected = scenario.load_expected().get("cases", {}).get(mode)
    assert expected is not None, f"{scenario.name} [{mode}] is not recorded"
    run = run_case(scenario, mode, "in-process")
    problems = ([run.error] if run.error else []) + compare(expected, run.outcome)
    problems += check_mode_problems(scenario, mode, run) + text_problems(scenario, mode, run)
    assert not problems, describe(scenario, mode, run, problems)

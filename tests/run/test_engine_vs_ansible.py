"""`playbook-ls run --json` against the recorded ansible-playbook runs of every scenario and mode.

Each case runs the bundled engine (in this process, or for a sample as a child process) in a fresh
scratch copy of the scenario and compares the exit code, the recap, the task results per host and
the resulting files with ``expected.json``; in check mode nothing on disk may change. A second test
per case compares the text the engine shows with the default callback's text of ``stdout.MODE.txt``
(normalised; a unified diff on mismatch).
Re-record with ``python tests/run/engine_cases.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from engine_cases import (
    WORKERS,
    Run,
    Scenario,
    case_ids,
    check_mode_problems,
    compare,
    describe,
    load_scenarios,
    text_problems,
)

try:
    import engine.run  # noqa: F401
except ImportError as e:  # only a missing engine skips; any other error is a failure
    pytest.skip(f"the bundled engine (engine.run) cannot be imported: {e}", allow_module_level=True)

# Cases (SCENARIO-MODE) where playbook-ls does not behave like ansible-playbook yet, with what differs.
# Strict xfail: a fix makes the case XPASS, which fails the run until its name is removed here.
KNOWN_DIFFERENT: dict[str, str] = {
}

# Cases whose default-callback text still differs from ansible-playbook's, with what differs
# (strict xfails as above).
KNOWN_TEXT_DIFFERENT: dict[str, str] = {
}

CASES = case_ids(load_scenarios())


def case_id(scenario: Scenario, mode: str) -> str:
    return f"{scenario.name}-{mode}"


def params(known: dict[str, str], cases: list[tuple[Scenario, str]]) -> list[object]:
    return [
        pytest.param(
            (scenario, mode),
            id=case_id(scenario, mode),
            marks=[pytest.mark.xfail(strict=True, reason=known[case_id(scenario, mode)])]
            if case_id(scenario, mode) in known
            else [],
        )
        for scenario, mode in cases
    ]


PARAMS = params(KNOWN_DIFFERENT, CASES)
TEXT_PARAMS = params(KNOWN_TEXT_DIFFERENT, [(s, m) for s, m in CASES if s.stdout])


def test_known_different_names_exist() -> None:
    assert set(KNOWN_DIFFERENT) <= {case_id(s, m) for s, m in CASES}
    assert set(KNOWN_TEXT_DIFFERENT) <= {case_id(s, m) for s, m in CASES if s.stdout}


def _through_a_subprocess(ids: list[str]) -> set[str]:
    """The cases run as ``playbook-ls run`` in a child process, as a user runs it: a fixed one in ten
    (by a stable hash of the id), or every one with ``PLAYBOOK_LS_ENGINE_SUBPROCESS=all``. The rest
    run the same command line in this process (engine_cases.run_case's "in-process"), which gives
    the same results and text without an interpreter start and import per case: 317 cases took
    16 s of CPU in process, where as subprocesses they were most of the suite's time."""
    from ansible_tools import stable_sample

    return set(stable_sample(ids, 10, "PLAYBOOK_LS_ENGINE_SUBPROCESS"))


SUBPROCESS = _through_a_subprocess([case_id(*c) for c in CASES])


def test_some_cases_run_as_a_subprocess() -> None:
    assert 10 <= len(SUBPROCESS) < len(CASES)


@pytest.fixture(scope="session")
def engine_runs(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Callable[[Scenario, str], Run]:
    """Hands out each case's run, made once per test worker: in this process, or, for the cases of
    ``SUBPROCESS``, as a child process, those all at the first request (two at a time, split with the
    other test workers)."""
    from engine_cases import run_case
    from worker_share import SharedResults, session_directory

    by_id = {case_id(*c): c for c in CASES}
    shared = SharedResults(session_directory(tmp_path_factory, "engine_runs"),
                           lambda key: run_case(*by_id[key], "engine"), threads=WORKERS)
    in_process: dict[str, Run] = {}

    def selected() -> list[str]:
        return [key for item in request.session.items
                if hasattr(item, "callspec") and item.callspec.params.get("case") in CASES
                and ((key := case_id(*item.callspec.params["case"])) in SUBPROCESS
                     or item.callspec.params["case"][0].hash_seeded)]

    def get(scenario: Scenario, mode: str) -> Run:
        key = case_id(scenario, mode)
        if key in SUBPROCESS or scenario.hash_seeded:
            return shared.get(key, selected)
        if key not in in_process:
            in_process[key] = run_case(scenario, mode, "in-process")
        return in_process[key]

    return get


@pytest.mark.parametrize("case", PARAMS)
def test_engine_matches_ansible(case: tuple[Scenario, str], engine_runs: Callable[[Scenario, str], Run]) -> None:
    scenario, mode = case
    expected = scenario.load_expected().get("cases", {}).get(mode)
    assert expected is not None, f"{scenario.name} [{mode}] is not recorded: python tests/run/engine_cases.py"
    run = engine_runs(scenario, mode)
    problems = ([run.error] if run.error else []) + compare(expected, run.outcome)
    problems += check_mode_problems(scenario, mode, run)
    assert not problems, describe(scenario, mode, run, problems)


@pytest.mark.parametrize("case", TEXT_PARAMS)
def test_engine_text_matches_ansible(case: tuple[Scenario, str], engine_runs: Callable[[Scenario, str], Run]) -> None:
    scenario, mode = case
    problems = text_problems(scenario, mode, engine_runs(scenario, mode))
    assert not problems, f"{scenario.name} [{mode}]: " + "\n".join(problems)

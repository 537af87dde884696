"""Every case in cases.py gives the result and leaves the disk the way ansible-core 2.19 did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample
from cases import CASES
from recorder import FIXTURE, record
from replay import align_uploaded, run_case

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_matches_recording(case, tmp_path: Path) -> None:
    ours = run_case(case, tmp_path)
    recorded = RECORDED[case.id]
    assert ours["disk"] == recorded["disk"]
    assert align_uploaded(ours["result"], recorded["result"]) == recorded["result"]


@pytest.mark.ansible
def test_recording_is_current() -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook not installed")
    sampled = set(live_sample([case.id for case in CASES]))  # PLAYBOOK_LS_LIVE=all: every case
    cases = [case for case in CASES if case.id in sampled]
    assert record(tool, cases) == {case.id: RECORDED[case.id] for case in cases}

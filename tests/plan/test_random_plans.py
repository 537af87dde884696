"""Random playbooks (tests/run_random/random_playbook.py, random_roles.py's playbooks built from
roles, and random_semantics.py's) planned by playbook-ls and run by ansible-playbook on a few fixed
seeds: no outcome the plan decides may be one ansible contradicts (random_plans.py runs many).

What ansible-playbook did on each seed is recorded in random_plans_recorded.json (``python
tests/plan/random_plans.py --record``) with a digest of the files the seed writes; the plan is
compared with it offline, and the ansible-marked test re-runs ansible on a sample of the seeds.
"""

from __future__ import annotations

import json
from pathlib import Path

import plan_cases
import pytest
from ansible_tools import directory_digest, find_tool, live_sample
from random_plans import RECORDED, TEST_SEEDS, plan_of, seed_key, write_seed

RECORDINGS = json.loads(RECORDED.read_text()) if RECORDED.is_file() else {}
RECORD = "python tests/plan/random_plans.py --record"
IDS = [seed_key(seed, kind) for seed, kind in TEST_SEEDS]


@pytest.mark.parametrize(("seed", "kind"), TEST_SEEDS, ids=IDS)
def test_a_random_plan_claims_only_what_ansible_does(seed: int, kind: str, tmp_path: Path) -> None:
    recorded = RECORDINGS.get(seed_key(seed, kind))
    assert recorded is not None, f"not recorded: {RECORD}"
    directory, case = write_seed(seed, kind, tmp_path)
    assert directory_digest(directory) == recorded["digest"], f"the generator writes other files now: {RECORD}"
    result = plan_cases.compare(recorded["outcomes"], plan_of(directory, case))
    assert result.wrong == []
    assert result.compared > 0


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize(("seed", "kind"), [s for s in TEST_SEEDS if seed_key(*s) in live_sample(IDS)],
                         ids=lambda value: str(value))
def test_the_recording_is_what_ansible_does(seed: int, kind: str, tmp_path: Path) -> None:
    directory, _ = write_seed(seed, kind, tmp_path)
    outcomes = plan_cases.ansible_outcomes(directory, str(find_tool("ansible-playbook")))
    assert outcomes == RECORDINGS.get(seed_key(seed, kind), {}).get("outcomes"), f"ansible does otherwise now: {RECORD}"

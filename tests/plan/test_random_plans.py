"""Random playbooks (tests/run_random/random_playbook.py) planned by playbook-ls and run by
ansible-playbook on a few fixed seeds: no outcome the plan decides may be one ansible
contradicts (random_plans.py runs many; its ``--roles`` role playbooks are not yet held to it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible_tools import find_tool
from random_plans import one_seed

SEEDS = range(5000, 5006)


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_plan_claims_only_what_ansible_does(seed: int, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = one_seed(seed, False, str(find_tool("ansible-playbook")), tmp_path)
    assert result.wrong == []
    assert result.compared > 0

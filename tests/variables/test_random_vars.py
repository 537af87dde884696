"""Random playbooks of what earlier tasks set (random_vars.py): on a few fixed seeds, every value
a probe printed is the one ``playbook-ls vars`` gives (or said unknown where only the run knows it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible_tools import find_tool
from random_vars import one_seed


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize("seed", [1, 4, 8, 17])
def test_random_variables_match_ansible(seed: int, tmp_path: Path) -> None:
    compared, differences = one_seed(seed, str(find_tool("ansible-playbook")), tmp_path)
    assert differences == []
    assert compared > 0

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make `import trap_repo` work in any import mode


def pytest_configure(config: pytest.Config) -> None:
    # registered by tests/differential and tests/random_playbooks too; repeated here so that
    # `pytest tests/safety` alone knows the marker
    config.addinivalue_line("markers", "ansible: re-runs the real ansible-playbook (needs ansible-core 2.19)")

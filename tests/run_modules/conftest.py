from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # cases, module_cases, recorder
sys.path.insert(0, str(HERE.parent))  # ansible_tools


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ansible: re-runs the real ansible-playbook (needs ansible-core 2.19)")

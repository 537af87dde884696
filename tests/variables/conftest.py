from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make `import var_cases` work in any import mode
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # and `import ansible_tools`


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ansible: re-runs the real ansible-playbook (needs ansible-core 2.19)")

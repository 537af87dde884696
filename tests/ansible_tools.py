"""Finding the real ansible tools the differential tests compare with."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def find_tool(name: str) -> str | None:
    """``name`` (ansible-playbook, ansible-inventory, ansible) installed beside this Python, as in
    a virtualenv that is not activated, else on PATH; None when ansible-core is not installed."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)

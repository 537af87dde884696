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


LIVE_ALL = "PLAYBOOK_LS_LIVE"
"""Set to ``all`` to re-run ansible on every recording; by default a fixed third is re-run."""


def live_sample(names: list[str], share: int = 3) -> list[str]:
    """The recordings a test re-checks against the real ansible: every one with
    ``PLAYBOOK_LS_LIVE=all``, else a fixed one in ``share`` (chosen by a stable hash of the name,
    the same on every machine and run). The recordings themselves are always compared with
    playbook-ls; re-running ansible on all of them costs minutes of CI on two cores, and a third
    is enough to notice an ansible-core release that changed behaviour (then run them all and
    re-record what differs)."""
    import hashlib
    import os

    if os.environ.get(LIVE_ALL) == "all":
        return list(names)
    return [name for name in names if int(hashlib.sha1(name.encode()).hexdigest(), 16) % share == 0]

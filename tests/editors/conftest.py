"""Editor clients for the end-to-end tests: skipped when missing, except under CI."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(message: str) -> NoReturn:
    """Skip, or fail when ``CI`` is set: CI installs every client, so a missing one is a bug."""
    if in_ci():
        pytest.fail(f"{message} (CI is set, so this test must not be skipped)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        missing("nvim is not installed: `apt-get install neovim` (0.7 or newer)")
    return found


@pytest.fixture(scope="session")
def playbook_ls() -> str:
    """The installed `playbook-ls` command, as editors start it."""
    beside = Path(sys.executable).parent / "playbook-ls"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("playbook-ls")
    if found is None:
        missing("the playbook-ls executable is not installed: `pip install -e .`")
    return found

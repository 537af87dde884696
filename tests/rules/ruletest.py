"""Helpers for rule tests: write a small repository, check it, get findings as tuples."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings
from playbook_ls.rules.base import Finding


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def check(root: Path, files: dict[str, str], code: str | None = None) -> list[Finding]:
    """Findings of ``code`` (all rules if None) for a repository made of ``files``."""
    write_files(root, files)
    settings = load_settings(None, str(root))
    if code is not None:
        settings.select = [code]
    result = run_check([str(root)], settings, use_cache=False)
    assert not result.internal_errors, result.internal_errors
    return result.findings


def positions(findings: list[Finding]) -> list[tuple[str, int, int]]:
    """(relative path, 0-based line, 0-based column) of each finding."""
    return [(os.path.relpath(f.span.file), f.span.line, f.span.col) for f in findings if f.span]

"""The editor's view of ``playbook-ls diff``: what the branch changes in the run of a playbook,
against its merge base. Made by the command line in a child process from the workspace's root,
as the plan view is: git is read (its objects, never a checkout or a hook) and nothing from
either revision runs."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import lru_cache
from typing import Any

REVIEW_SECONDS = 120


@lru_cache(maxsize=64)
def in_git_repository(root: str) -> bool:
    """Whether ``root`` is inside a git work tree (a ``.git`` on the way up), looked at once."""
    directory = os.path.abspath(root)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def default_base(root: str) -> str:
    """The merge base of HEAD with the remote's default branch (``origin/HEAD``, else
    ``origin/main``, ``origin/master``, ``main``, ``master``): what a pull request of the branch
    is compared with. HEAD itself when none is found (the uncommitted change)."""
    for candidate in ("origin/HEAD", "origin/main", "origin/master", "main", "master"):
        found = _git(root, "merge-base", "HEAD", candidate)
        if found:
            return found
    return "HEAD"


def _git(root: str, *args: str) -> str | None:
    try:
        from playbook_ls.review.revisions import SAFE_GIT

        done = subprocess.run([*SAFE_GIT, "-C", root, *args], capture_output=True, text=True, timeout=30, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def review_text(root: str, playbooks: str | list[str], base: str | None, inventory: list[str]) -> str:
    """``playbook-ls diff BASE PLAYBOOK...`` as text (BASE: :func:`default_base` when None), or
    what stopped it."""
    base = base or default_base(root)
    shown = [os.path.relpath(path, root) if os.path.isabs(path) else path
             for path in ([playbooks] if isinstance(playbooks, str) else playbooks)]
    named = " ".join(shown)
    command = [sys.executable, "-P", "-m", "playbook_ls", "diff", base, *shown,
               *(arg for source in inventory for arg in ("-i", source))]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=REVIEW_SECONDS,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"playbook-ls diff {base} {named}: no answer in {REVIEW_SECONDS} s; run it in a terminal to see why\n"
    if done.returncode not in (0, 1):
        return f"playbook-ls diff {base} {named}\n\n{done.stderr.strip() or f'exit code {done.returncode}'}\n"
    return done.stdout


def playbooks_of(index: Any, path: str) -> list[str]:
    """The playbooks to review for a file: the file itself when it is one, else every playbook
    that reaches it (a task file, a role's file, a variables file)."""
    books = sorted({reach.book.path for reach in index.reaches(path) if not reach.book.synthetic})
    return [path] if path in books or not books else books


def revision_problem(base: str) -> str | None:
    """Why ``base`` cannot name a revision to compare with (None when it can)."""
    if not base.strip():
        return "give a git revision (a branch, a tag, a commit), or nothing for the branch's merge base"
    if base.startswith("-"):
        return f"'{base}' is not a revision: a revision does not start with '-'"
    return None

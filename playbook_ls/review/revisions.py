"""The two sides of a review, as directories: a git revision written out of git's object store
into a temporary directory, the working tree as it is, or a directory given as it is.

Writing a revision runs nothing from it: ``git ls-tree`` lists its files and ``git cat-file
--batch`` gives their bytes, so no hook, filter, ``export-ignore`` or ``export-subst`` of the
repository's applies (a file stored with Git LFS is its pointer, as in a checkout without LFS).
Submodules are left out and said so."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

WORKING_TREE = "working tree"
GIT_TIMEOUT = 120
SAFE_GIT = ("git", "-c", "core.fsmonitor=false")
"""git with no file-system monitor: a repository's own configuration names no program it runs."""


class RevisionError(Exception):
    """A side that cannot be read: not a directory, not a revision git knows, git missing."""


@dataclass
class Side:
    """One side of the review: ``root`` holds its files; ``label`` names it for the reader."""

    label: str
    root: str
    notes: list[str] = field(default_factory=list)
    revision: str | None = None
    """The commit it was written from (None: a directory or the working tree)."""


def git(repository: str, *args: str, text: bool = True) -> str:
    """``git -C repository args``; its standard output. Raises RevisionError with git's words."""
    try:
        done = subprocess.run([*SAFE_GIT, "-C", repository, *args], capture_output=True, text=text, timeout=GIT_TIMEOUT,
                              check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise RevisionError("git is not installed: give two directories instead of revisions") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {' '.join(args)} took more than {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        error = done.stderr if text else done.stderr.decode(errors="replace")
        raise RevisionError(error.strip().splitlines()[-1] if error.strip() else f"git {args[0]} failed")
    return done.stdout


def repository_of(directory: str) -> tuple[str, str]:
    """The top of the git repository holding ``directory`` and ``directory``'s place in it
    (``""`` at the top, else ending in ``/``)."""
    top = git(directory, "rev-parse", "--show-toplevel").strip()
    prefix = git(directory, "rev-parse", "--show-prefix").strip()
    return top, prefix


@contextmanager
def side(spec: str, directory: str) -> Iterator[Side]:
    """The side ``spec`` names, seen from ``directory``: an existing directory, ``WORKING_TREE``
    (the directory itself), or a git revision of the repository holding ``directory`` (written
    to a temporary directory, removed afterwards; ``directory``'s place in it is the root)."""
    if spec == WORKING_TREE:
        yield Side(WORKING_TREE, os.path.abspath(directory))
        return
    if os.path.isdir(spec):
        yield Side(spec, os.path.abspath(spec))
        return
    try:
        top, prefix = repository_of(directory)
    except RevisionError as exc:
        raise RevisionError(f"{spec} is not a directory, and {directory} is in no git repository ({exc}): give two "
                            "directories, or run playbook-ls diff in the repository") from None
    try:
        commit = git(top, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}").strip()
    except RevisionError:
        commit = ""
    if not commit:
        raise RevisionError(f"{spec}: neither a directory nor a revision of the repository at {top} (a branch, a "
                            "tag, a commit; fetch it first if it is a remote's)")
    scratch = tempfile.mkdtemp(prefix="playbook-ls-review-")
    try:
        notes = write_revision(top, commit, prefix, scratch)
        yield Side(f"{spec} ({commit[:10]})", os.path.join(scratch, prefix) if prefix else scratch, notes, commit)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write_revision(repository: str, commit: str, prefix: str, target: str) -> list[str]:
    """Write the files of ``commit`` under ``prefix`` into ``target`` (with their paths from the
    repository's top); the notes on what was left out."""
    listing = git(repository, "ls-tree", "-r", "-z", "--full-tree", commit, *([prefix] if prefix else []))
    entries = []
    submodules = []
    for record in listing.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "commit":
            submodules.append(path)
        elif kind == "blob":
            entries.append((mode, sha, path))
    contents = _blobs(repository, [sha for _, sha, _ in entries])
    root = os.path.realpath(target)
    for mode, sha, path in entries:
        destination = os.path.join(target, path)
        if not os.path.realpath(os.path.dirname(destination)).startswith(root):
            continue  # a path through a symlink the revision holds: never written outside the scratch
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        if mode == "120000":
            os.symlink(contents[sha].decode(errors="surrogateescape"), destination)
            continue
        with open(destination, "wb") as out:
            out.write(contents[sha])
        if mode == "100755":
            os.chmod(destination, 0o755)
    return [f"submodule {path} is left out (its files are not in this repository)" for path in submodules]


def _blobs(repository: str, shas: list[str]) -> dict[str, bytes]:
    """The bytes of each blob, in one ``git cat-file --batch``."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    try:
        done = subprocess.run([*SAFE_GIT, "-C", repository, "cat-file", "--batch"],
                              input="\n".join(wanted).encode() + b"\n", capture_output=True, timeout=GIT_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git cat-file took more than {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        raise RevisionError(done.stderr.decode(errors="replace").strip() or "git cat-file failed")
    found: dict[str, bytes] = {}
    data, at = done.stdout, 0
    for sha in wanted:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        size = int(header[2])
        found[sha] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1  # the content, then a newline
    return found


def changed_files(old: Side, new: Side) -> list[str]:
    """The paths (relative to the roots) whose content differs between the sides, or that only
    one side has: compared byte for byte (hidden directories and virtualenvs left out, as
    ``check`` leaves them out)."""
    from playbook_ls.check.discover import SKIPPED_DIRS

    def files(root: str) -> dict[str, str]:
        found = {}
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS]
            for name in names:
                path = os.path.join(folder, name)
                found[os.path.relpath(path, root)] = path
        return found

    before, after = files(old.root), files(new.root)
    changed = []
    for path in sorted(before.keys() | after.keys()):
        if path not in before or path not in after or not _same(before[path], after[path]):
            changed.append(path)
    return changed


def _same(first: str, second: str) -> bool:
    try:
        if os.path.islink(first) or os.path.islink(second):
            return os.path.islink(first) and os.path.islink(second) and os.readlink(first) == os.readlink(second)
        if os.path.getsize(first) != os.path.getsize(second):
            return False
        with open(first, "rb") as a, open(second, "rb") as b:
            return a.read() == b.read()
    except OSError:
        return False

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
import threading
import time
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
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Of a written revision: each file's (mode, blob), by its path from the repository's top."""
    top: str | None = None
    """Of a written revision: the directory those paths start in."""


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
def side(spec: str, directory: str, like: Side | None = None) -> Iterator[Side]:
    """The side ``spec`` names, seen from ``directory``: an existing directory, ``WORKING_TREE``
    (the directory itself), or a git revision of the repository holding ``directory`` (written
    to a temporary directory, removed afterwards; ``directory``'s place in it is the root).
    ``like``, a revision written before, lends the files both have alike (see write_revision)."""
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
    scratch = tempfile.mkdtemp(prefix="playbook-ls-review-", dir=_scratch_parent(top, commit, prefix))
    try:
        blobs: dict[str, tuple[str, str]] = {}
        earlier = (like.blobs, like.top) if like is not None and like.top is not None else None
        notes = write_revision(top, commit, prefix, scratch, blobs, earlier)
        yield Side(f"{spec} ({commit[:10]})", os.path.join(scratch, prefix) if prefix else scratch, notes, commit,
                   blobs, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


MEMORY_SCRATCH = "/dev/shm"
MEMORY_SCRATCH_LIMIT = 128 << 20
"""The largest revision written to memory: its files, with another revision's beside it, stay a
small share of what the machine has there."""


def _scratch_parent(top: str, commit: str, prefix: str) -> str | None:
    """Where a revision is written: a file system in memory when there is one, no ``TMPDIR`` says
    otherwise, and the revision's files (their sizes in git's listing) take at most
    :data:`MEMORY_SCRATCH_LIMIT` and a quarter of its free room; else the temporary directory.
    Creating and removing a thousand files on a disk's file system costs more than reading them
    (kubespray's 1,225: 1.8 s of system time on ext4 mounted with ``discard``, 0.1 s in memory)."""
    if os.environ.get("TMPDIR") or not os.path.isdir(MEMORY_SCRATCH) or \
            not os.access(MEMORY_SCRATCH, os.W_OK | os.X_OK):
        return None
    try:
        listing = git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, *([prefix] if prefix else []))
        room = os.statvfs(MEMORY_SCRATCH)
    except (RevisionError, OSError):
        return None
    size = sum(int(fields[3]) for record in listing.split("\0") if record
               for fields in [record.split("\t", 1)[0].split()] if len(fields) == 4 and fields[3].isdigit())
    return MEMORY_SCRATCH if size <= min(MEMORY_SCRATCH_LIMIT, room.f_bavail * room.f_frsize // 4) else None


def write_revision(repository: str, commit: str, prefix: str, target: str,
                   blobs: dict[str, tuple[str, str]] | None = None,
                   earlier: tuple[dict[str, tuple[str, str]], str] | None = None) -> list[str]:
    """Write the files of ``commit`` under ``prefix`` into ``target`` (with their paths from the
    repository's top); the notes on what was left out. Each blob goes from git to its file in
    pieces: a revision of any size takes a bounded memory. ``blobs`` receives each file's (mode,
    blob); ``earlier`` is another revision's (and the directory it was written to): a file it has
    at the same path with the same mode and blob is linked to instead of written again (two
    revisions of a change share all but a few files; nothing writes to them)."""
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
    root = os.path.realpath(target)
    written: dict[str, str] = {}  # a blob already written: its file (the same content at two paths)
    links: dict[str, bytes | None] = {}  # a blob already read as a symlink's target
    folders: dict[str, bool] = {}  # a directory made (True) or found outside the scratch (False)
    lent = {path for mode, sha, path in entries if mode != "120000" and earlier is not None
            and earlier[0].get(path) == (mode, sha)}
    missing: dict[str, list[str]] = {}  # a blob the repository lacks: the paths listing it
    with _BlobStream(repository, list(dict.fromkeys(sha for _, sha, path in entries if path not in lent))) as stream:
        for mode, sha, path in entries:
            destination = os.path.join(target, path)
            folder = os.path.dirname(destination)
            if folder not in folders:  # a directory never turns into a symlink once made
                if _within_scratch(folder, target, root, folders):
                    os.makedirs(folder, exist_ok=True)
            if not folders[folder]:
                continue  # a path through a symlink the revision holds: never written outside the scratch
            if blobs is not None:
                blobs[path] = (mode, sha)
            if path in lent and earlier is not None and _linked(os.path.join(earlier[1], path), destination):
                continue
            if sha in missing:
                missing[sha].append(path)
                continue
            if mode == "120000":
                if sha in written:
                    with open(written[sha], "rb") as first:
                        links[sha] = first.read(LINK_LIMIT + 1)
                elif sha not in links:
                    try:
                        links[sha] = stream.small(sha)
                    except MissingBlob:
                        missing[sha] = [path]
                        continue
                link = links[sha]
                if link is not None and len(link) <= LINK_LIMIT:
                    os.symlink(link.decode(errors="surrogateescape"), destination)
                continue
            if sha in written:
                shutil.copyfile(written[sha], destination)
            else:
                try:
                    with open(destination, "wb") as out:
                        if sha in links:
                            out.write(links[sha] or b"")
                        else:
                            for piece in _pieces(stream, sha, path in lent, repository):
                                out.write(piece)
                except MissingBlob:
                    os.unlink(destination)
                    missing[sha] = [path]
                    continue
                written[sha] = destination
            if mode == "100755":
                os.chmod(destination, 0o755)
    notes = [f"submodule {path} is left out (its files are not in this repository)" for path in submodules]
    if missing:
        paths = sorted(path for paths in missing.values() for path in paths)
        notes.append(f"{len(paths)} file{'s' if len(paths) > 1 else ''} of {commit[:10]} left out, their content "
                     f"not in this repository (a clone without all its objects: fetch them to compare what reads "
                     f"them): {', '.join(paths[:5])}{', …' if len(paths) > 5 else ''}")
    return notes


def _within_scratch(folder: str, target: str, root: str, folders: dict[str, bool]) -> bool:
    """Whether ``folder`` (below ``target``, whose real path is ``root``) leads into the scratch
    directory: its parent does and it is no symlink (one ``lstat``, where its real path costs one
    per component), the answers kept in ``folders`` (a parent is made with its first child)."""
    known = folders.get(folder)
    if known is None:
        parent = os.path.dirname(folder)
        known = _within_scratch(parent, target, root, folders) and not os.path.islink(folder) \
            if parent.startswith(target + os.sep) else os.path.realpath(folder).startswith(root)
        folders[folder] = known
    return known


def _linked(source: str, destination: str) -> bool:
    """``destination`` made a hard link of ``source`` (False: the file system cannot, or it is gone)."""
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:
        return False
    return True


def _pieces(stream: _BlobStream, sha: str, lent: bool, repository: str) -> Iterator[bytes]:
    """The blob's content: from the stream, or, for one the stream was not asked for (it was to be
    linked and could not be), from a git of its own."""
    if not lent:
        yield from stream.pieces(sha)
        return
    with _BlobStream(repository, [sha]) as alone:
        yield from alone.pieces(sha)


LINK_LIMIT = 4096
"""The longest symlink target read (a path; a longer one is no link a checkout would make)."""
CHUNK = 1 << 16


class MissingBlob(RevisionError):
    """A blob the repository lists but does not hold (a clone made without its largest files)."""


class _BlobStream:
    """``git cat-file --batch`` asked for ``shas`` up front (a thread feeds them), their contents
    taken in that order, each in pieces of ``CHUNK`` bytes."""

    def __init__(self, repository: str, shas: list[str]) -> None:
        self.shas = shas
        self.next = 0
        self.deadline = time.monotonic() + GIT_TIMEOUT
        self.process: subprocess.Popen[bytes] | None = None
        self.repository = repository

    def __enter__(self) -> _BlobStream:
        if not self.shas:
            return self
        try:
            self.process = subprocess.Popen([*SAFE_GIT, "-C", self.repository, "cat-file", "--batch"],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError:
            raise RevisionError("git is not installed: give two directories instead of revisions") from None
        request = "\n".join(self.shas).encode() + b"\n"
        threading.Thread(target=self._feed, args=(request,), daemon=True).start()
        return self

    def _feed(self, request: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(request)
            self.process.stdin.close()
        except OSError:
            pass  # git stopped early: its error is read where the blobs are

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()

    def _header(self, sha: str) -> int:
        """The size of ``sha``, the next blob git gives."""
        if time.monotonic() > self.deadline:
            raise RevisionError(f"git cat-file took more than {GIT_TIMEOUT} s")
        assert self.process is not None and self.process.stdout is not None
        if self.next >= len(self.shas) or self.shas[self.next] != sha:
            raise RevisionError(f"git cat-file: blob {sha} asked out of order")
        self.next += 1
        header = self.process.stdout.readline().split()
        if header == [sha.encode(), b"missing"]:  # git goes on with the next blobs
            raise MissingBlob(f"the repository lacks blob {sha} (a clone without all its objects?)")
        if len(header) != 3 or header[0].decode(errors="replace") != sha:
            # anything else: stopped first, else git waits for its output to be read while its
            # error output is waited for
            self.process.kill()
            self.process.wait()
            error = self.process.stderr.read().decode(errors="replace").strip() if self.process.stderr else ""
            raise RevisionError(error or f"git cat-file gave no blob {sha}")
        return int(header[2])

    def pieces(self, sha: str) -> Iterator[bytes]:
        """``sha``'s content, ``CHUNK`` bytes at a time."""
        size = self._header(sha)
        assert self.process is not None and self.process.stdout is not None
        while size > 0:
            piece = self.process.stdout.read(min(size, CHUNK))
            if not piece:
                raise RevisionError(f"git cat-file stopped in the middle of blob {sha}")
            size -= len(piece)
            yield piece
        self.process.stdout.read(1)  # the newline after the content

    def small(self, sha: str) -> bytes | None:
        """``sha``'s content if it is no longer than a symlink's target may be (else None)."""
        kept = bytearray()
        for piece in self.pieces(sha):
            if len(kept) <= LINK_LIMIT:
                kept += piece[:LINK_LIMIT + 1 - len(kept)]
        return bytes(kept) if len(kept) <= LINK_LIMIT else None


def changed_files(old: Side, new: Side) -> list[str]:
    """The paths (relative to the roots) whose content differs between the sides, or that only
    one side has: compared byte for byte (hidden directories and virtualenvs left out, as
    ``check`` leaves them out)."""
    from playbook_ls.check.discover import SKIPPED_DIRS

    if old.top is not None and new.top is not None:
        return _changed_blobs(old, new, SKIPPED_DIRS)

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


def _changed_blobs(old: Side, new: Side, skipped: frozenset[str] | set[str]) -> list[str]:
    """changed_files of two written revisions, from their blobs: what walking and comparing both
    trees gives (the same directories left out, a symlink to a directory no file, a file's mode
    no change) without reading them."""

    def files(one: Side) -> dict[str, tuple[bool, str]]:
        assert one.top is not None
        prefix = os.path.relpath(one.root, one.top)
        prefix = "" if prefix == "." else prefix + "/"
        found = {}
        for path, (mode, sha) in one.blobs.items():
            if not path.startswith(prefix):
                continue
            relative = path[len(prefix):]
            if any(part.startswith(".") or part in skipped for part in relative.split("/")[:-1]):
                continue
            if mode == "120000" and os.path.isdir(os.path.join(one.root, relative)):
                continue
            found[relative] = (mode == "120000", sha)
        return found

    before, after = files(old), files(new)
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def _same(first: str, second: str) -> bool:
    try:
        if os.path.islink(first) or os.path.islink(second):
            return os.path.islink(first) and os.path.islink(second) and os.readlink(first) == os.readlink(second)
        one, other = os.stat(first), os.stat(second)
        if (one.st_ino, one.st_dev) == (other.st_ino, other.st_dev):
            return True  # a file one revision lent the other
        if one.st_size != other.st_size:
            return False
        with open(first, "rb") as a, open(second, "rb") as b:
            return a.read() == b.read()
    except OSError:
        return False

"""A revision written out of git's objects: every file as the commit holds it, in a bounded memory."""

from __future__ import annotations

import os
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from playbook_ls.review.revisions import CHUNK, RevisionError, write_revision

BIG = 12 * 1024 * 1024


def commit(repository: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *command], cwd=repository, env=env, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repository, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_revision_is_written_blob_by_blob(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    (repository / "roles" / "web" / "files").mkdir(parents=True)
    (repository / "site.yml").write_text("- hosts: all\n  roles: [web]\n")
    (repository / "again.yml").write_text("- hosts: all\n  roles: [web]\n")  # the same blob twice
    (repository / "roles" / "web" / "files" / "archive.bin").write_bytes(os.urandom(BIG))
    (repository / "script.sh").write_text("#!/bin/sh\n")
    (repository / "script.sh").chmod(0o755)
    (repository / "linked.yml").symlink_to("site.yml")
    (repository / "site_link.yml").symlink_to("again.yml")  # a link whose target text is no file's content
    revision = commit(repository)
    target = tmp_path / "written"
    target.mkdir()

    tracemalloc.start()
    write_revision(str(repository), revision, "", str(target))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert peak < 2 * 1024 * 1024 + 4 * CHUNK, peak  # never the 12 MB blob at once
    for name in ("site.yml", "again.yml", "roles/web/files/archive.bin", "script.sh"):
        assert (target / name).read_bytes() == (repository / name).read_bytes()
    assert os.access(target / "script.sh", os.X_OK)
    assert os.readlink(target / "linked.yml") == "site.yml"
    assert os.readlink(target / "site_link.yml") == "again.yml"


def test_a_revision_git_cannot_read_is_said(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "site.yml").write_text("- hosts: all\n")
    commit(repository)
    with pytest.raises(RevisionError):
        write_revision(str(repository), "0" * 40, "", str(tmp_path))


def test_a_second_revision_links_the_files_the_first_has_alike(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    (repository / "roles" / "web" / "tasks").mkdir(parents=True)
    (repository / "site.yml").write_text("- hosts: all\n  roles: [web]\n")
    (repository / "roles" / "web" / "tasks" / "main.yml").write_text("- debug: msg=one\n")
    (repository / "run.sh").write_text("#!/bin/sh\n")
    (repository / "linked.yml").symlink_to("site.yml")
    first = commit(repository)
    (repository / "roles" / "web" / "tasks" / "main.yml").write_text("- debug: msg=two\n")
    (repository / "run.sh").chmod(0o755)  # the same blob, another mode: written, not linked
    (repository / "added.yml").write_text("- hosts: all\n")
    second = commit(repository)
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    blobs: dict[str, tuple[str, str]] = {}
    write_revision(str(repository), first, "", str(old), blobs)
    write_revision(str(repository), second, "", str(new), {}, (blobs, str(old)))

    def inode(path: Path) -> int:
        return os.lstat(path).st_ino

    assert inode(new / "site.yml") == inode(old / "site.yml")
    for name in ("roles/web/tasks/main.yml", "run.sh", "added.yml", "linked.yml"):
        assert not (old / name).exists() or inode(new / name) != inode(old / name), name
        assert (new / name).read_bytes() == (repository / name).read_bytes(), name
    assert os.access(new / "run.sh", os.X_OK) and not os.access(old / "run.sh", os.X_OK)
    assert os.readlink(new / "linked.yml") == "site.yml"


def test_two_written_revisions_differ_in_the_files_walking_them_finds(tmp_path: Path) -> None:
    """What changed between two revisions written out of git is told from their blobs: the same
    paths as walking both trees and comparing the files, hidden and skipped directories, a symlink
    to a directory and a change of mode alike."""
    from playbook_ls.review.revisions import changed_files, side

    repository = tmp_path / "repository"
    for folder in ("roles/web/tasks", ".github", "node_modules/x", "other"):
        (repository / folder).mkdir(parents=True)
    for name in ("site.yml", "roles/web/tasks/main.yml", ".github/ci.yml", "node_modules/x/a.yml", "run.sh",
                 "other/b.yml"):
        (repository / name).write_text(f"{name}: 1\n")
    (repository / "linked").symlink_to("roles")
    (repository / "link.yml").symlink_to("site.yml")
    first = commit(repository)
    for name in ("roles/web/tasks/main.yml", ".github/ci.yml", "node_modules/x/a.yml"):
        (repository / name).write_text(f"{name}: 2\n")
    (repository / "run.sh").chmod(0o755)
    (repository / "linked").unlink()
    (repository / "linked").symlink_to("other")
    (repository / "link.yml").unlink()
    (repository / "link.yml").symlink_to("other/b.yml")
    (repository / "added.yml").write_text("x: 1\n")
    second = commit(repository)
    with side(first, str(repository)) as old, side(second, str(repository), like=old) as new:
        fast = changed_files(old, new)
        old.top = new.top = None  # as two directories: walked and compared file by file
        assert fast == changed_files(old, new) == ["added.yml", "link.yml", "roles/web/tasks/main.yml"]


def test_a_blob_the_repository_lacks_is_left_out_with_a_note(tmp_path: Path) -> None:
    """A clone without all its objects (a mirror that drops its largest files) lacks some blobs:
    git says so and goes on writing the next ones (a megabyte after it fills the pipe). The
    revision is written without those files, and says which; it never waits on git forever."""
    import threading

    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "a.yml").write_text("- hosts: all\n")
    (repository / "copy.yml").write_text("- hosts: all\n")
    (repository / "b.bin").write_bytes(os.urandom(1 << 20))
    (repository / "c.yml").write_text("- hosts: web\n")
    revision = commit(repository)
    sha = subprocess.run(["git", "rev-parse", f"{revision}:a.yml"], cwd=repository, capture_output=True, text=True,
                         check=True).stdout.strip()
    (repository / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    (tmp_path / "written").mkdir()
    notes: list[str] = []

    def write() -> None:
        notes.extend(write_revision(str(repository), revision, "", str(tmp_path / "written")))

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(60)
    assert not writer.is_alive()
    assert notes == [f"2 files of {revision[:10]} left out, their content not in this repository (a clone without "
                     "all its objects: fetch them to compare what reads them): a.yml, copy.yml"]
    written = tmp_path / "written"
    assert not (written / "a.yml").exists() and not (written / "copy.yml").exists()
    assert (written / "b.bin").read_bytes() == (repository / "b.bin").read_bytes()
    assert (written / "c.yml").read_text() == "- hosts: web\n"

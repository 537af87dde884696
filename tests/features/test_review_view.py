"""The editor's review of a change: a lens on each play of a playbook in a git repository, and
the comparison with the branch's merge base (features.review_view)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from playbook_ls.features import SHOW_REVIEW
from playbook_ls.features.lenses import lenses
from playbook_ls.features.review_view import (
    default_base,
    in_git_repository,
    playbooks_of,
    review_text,
    revision_problem,
)
from playbook_ls.features.workspace import WorkspaceIndex

PLAYBOOK = ("- name: web\n  hosts: all\n  gather_facts: false\n  tasks:\n"
            "    - name: greet\n      debug:\n        msg: hi\n")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_a_branch_is_reviewed_against_its_merge_base(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    _git(tmp_path, "checkout", "-qb", "topic")
    (tmp_path / "site.yml").write_text(PLAYBOOK + "      tags: [greeting]\n")
    _git(tmp_path, "commit", "-qam", "tag it")
    base = default_base(str(tmp_path))
    assert len(base) == 40  # the commit main and topic share
    text = review_text(str(tmp_path), str(tmp_path / "site.yml"), None, [])
    assert text.startswith(f"playbook-ls diff: {base} (")
    assert "--tags greeting: now runs 1, no longer runs 0" in text


def test_the_lens_is_on_plays_of_a_git_repository_only(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    assert not [lens for lens in lenses(index, str(tmp_path / "site.yml")) if lens.command == SHOW_REVIEW]
    _git(tmp_path, "init", "-q")
    in_git_repository.cache_clear()
    found = [lens for lens in lenses(index, str(tmp_path / "site.yml")) if lens.command == SHOW_REVIEW]
    assert [(lens.title, lens.span.line) for lens in found] == [("Review the change", 0)]
    assert found[0].arguments == [{"path": str(tmp_path / "site.yml")}]


def test_a_file_a_playbook_reads_is_reviewed_in_every_playbook_that_reaches_it(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks/greet.yml").write_text("- name: greet\n  debug:\n    msg: hi\n")
    for name in ("site.yml", "other.yml"):
        (tmp_path / name).write_text("- name: web\n  hosts: all\n  gather_facts: false\n  tasks:\n"
                                     "    - import_tasks: tasks/greet.yml\n")
    (tmp_path / "alone.yml").write_text(PLAYBOOK)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    assert playbooks_of(index, str(tmp_path / "tasks/greet.yml")) == [str(tmp_path / "other.yml"),
                                                                    str(tmp_path / "site.yml")]
    assert playbooks_of(index, str(tmp_path / "site.yml")) == [str(tmp_path / "site.yml")]
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "tasks/greet.yml").write_text("- name: greet\n  debug:\n    msg: hi\n  tags: [greeting]\n")
    text = review_text(str(tmp_path), playbooks_of(index, str(tmp_path / "tasks/greet.yml")), "HEAD", [])
    assert "other.yml" in text and "site.yml" in text and "alone.yml" not in text


@pytest.mark.parametrize(("base", "refused"), [("main", False), ("HEAD~2", False), ("", True), ("  ", True),
                                               ("--output=x", True), ("-h", True)])
def test_a_revision_that_is_an_option_or_empty_is_refused(base: str, refused: bool) -> None:
    assert (revision_problem(base) is not None) == refused

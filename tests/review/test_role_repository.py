"""A repository that is a role has no playbook but its test playbooks (``tests/``, ``molecule/``),
which run it: a change to the role reaches them and is reviewed there. A monorepo's roles keep
theirs to themselves (their playbooks are elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from review_cases import SIDES, write_tree

TEST_PLAYBOOK = """\
- name: Ensure that the role runs
  hosts: all
  gather_facts: false
  roles: [my.role]
"""


def _role(root: Path, port: str) -> None:
    write_tree(root, {"tasks/main.yml": f"- name: Listen\n  debug:\n    msg: listen\n  when: {port} > 100\n",
                      "meta/main.yml": "galaxy_info:\n  author: someone\n",
                      "tests/tests_default.yml": TEST_PLAYBOOK,
                      "molecule/default/converge.yml": TEST_PLAYBOOK.replace("runs", "converges")})
    for where in ("tests/roles", "molecule/default/roles"):
        (root / where).mkdir(parents=True)
        os.symlink(os.path.relpath(root, root / where), root / where / "my.role")


@pytest.mark.parametrize("layout", ["role", "monorepo"])
def test_a_role_repository_is_reviewed_through_its_test_playbooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   layout: str) -> None:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review import report
    from playbook_ls.review.build import build_review

    for side, port in zip(SIDES, ("80", "8080"), strict=True):
        _role(tmp_path / side / ("roles/my.role" if layout == "monorepo" else ""), port)
    monkeypatch.chdir(tmp_path / "new")
    files_changed()
    text = report.as_text(build_review("../old", ".", [], RunOptions(playbook="", inventory=[]), None,
                                       str(tmp_path / "new")))
    if layout == "role":
        assert "tests/tests_default.yml" in text and "molecule/default/converge.yml" in text
        assert "(was `80 > 100`)" in text
    else:
        assert report.NOTHING_REACHED in text

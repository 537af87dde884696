"""A change no playbook loads (a README, a role no playbook uses) is said to change no run, in
text and markdown: a review that printed nothing could as well be one that failed."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_cases import SIDES, write_tree

PLAYBOOK = """\
- name: Web
  hosts: all
  gather_facts: false
  roles: [web]
"""


@pytest.mark.parametrize("changed", ["README.md", "roles/unused/defaults/main.yml", "roles/web/defaults/main.yml"])
def test_a_change_no_playbook_loads_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str) -> None:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review import report
    from playbook_ls.review.build import build_review

    for side, value in zip(SIDES, ("1", "2"), strict=True):
        files = {"site.yml": PLAYBOOK, "roles/web/tasks/main.yml": "- name: Port\n  debug:\n    msg: '{{ port }}'\n",
                 "roles/web/defaults/main.yml": "port: 80\n", "roles/unused/defaults/main.yml": "x: 1\n",
                 "README.md": "readme\n"}
        files[changed] = files[changed].replace("80", value).replace("1", value).replace("readme", value)
        write_tree(tmp_path / side, files)
    monkeypatch.chdir(tmp_path / "new")
    files_changed()
    review = build_review("../old", ".", [], RunOptions(playbook="", inventory=[]), None, str(tmp_path / "new"))
    text, markdown = report.as_text(review), report.as_markdown(review)
    reached = changed == "roles/web/defaults/main.yml"
    assert (report.NOTHING_REACHED in text) is not reached
    assert ("No playbook that either revision can plan loads a changed file" in markdown) is not reached
    assert ("site.yml" in text) is reached

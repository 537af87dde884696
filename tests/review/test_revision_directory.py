"""A repository that is a role applied by its path (``role: "{{ playbook_dir }}"``, as the
lockdown roles are) names the role by the revision's directory: each side of a review is written
to a directory of its own, so what the review prints (task names, the reasons of outcomes, where
a value comes from, notes) names it relative to the revision, the same on both sides, never the
temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_cases import SIDES, write_tree

PLAYBOOK = """\
- name: Apply the role
  hosts: all
  gather_facts: false
  roles:
    - role: "{{ playbook_dir }}"
"""
TASKS = """\
- name: Audit the flag
  debug:
    msg: "{{ audited_flag }}"
  when: audited_flag | bool
"""


@pytest.mark.parametrize("kind", ["text", "json", "markdown"])
def test_the_revision_directory_is_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review import report
    from playbook_ls.review.build import build_review

    for side, flag in zip(SIDES, ("true", "false"), strict=True):
        write_tree(tmp_path / side, {"site.yml": PLAYBOOK, "tasks/main.yml": TASKS,
                                     "defaults/main.yml": f"audited_flag: {flag}\n",
                                     "hosts.ini": "web1\nweb2\n"})
    monkeypatch.chdir(tmp_path / "new")
    files_changed()
    review = build_review("../old", ".", [], RunOptions(playbook="", inventory=["hosts.ini"]), None,
                          str(tmp_path / "new"))
    shown = {"text": report.as_text, "json": report.as_json, "markdown": report.as_markdown}[kind](review)
    assert str(tmp_path) not in shown
    assert "skipped" in shown
    assert "role '.' defaults" in shown

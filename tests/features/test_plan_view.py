"""The editor's plan view (features.plan_view): the command line's plan as a table of tasks by
hosts, with each task's FILE:LINE, and the reasons; ansible's error when the launch stops."""

from __future__ import annotations

import shutil
from pathlib import Path

from playbook_ls.features.plan_view import plan_text

SCENARIOS = Path(__file__).resolve().parents[1] / "plan" / "scenarios"


def test_the_table_marks_each_host_and_explains(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(SCENARIOS / "tag_selection", root)
    text = plan_text(str(root), str(root / "site.yml"), ["inventory.ini"], ["deploy"], [])
    lines = text.splitlines()
    assert lines[0] == "playbook-ls plan site.yml -i inventory.ini --tags deploy"
    assert f"  always              ✓  –   {root}/site.yml:11" in lines
    assert f"  other               –  –   {root}/site.yml:8" in lines
    assert "      – t2: `inventory_hostname == 't1'` is false (this task)" in lines


def test_a_launch_that_cannot_be_planned_says_why(tmp_path: Path) -> None:
    text = plan_text(str(tmp_path), "missing.yml", ["localhost,"], [], [])
    assert text.startswith("playbook-ls plan missing.yml -i localhost,\n\n")
    assert "missing.yml could not be found" in text

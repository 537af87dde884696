from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ansible_tools import find_tool
from helpers import write
from test_execute import QUIZ, SAMPLE

from engine.run.plan import RunOptions, make_plan, render_plan

TAGGED = """
- hosts: all
  gather_facts: false
  tasks:
    - {name: one, debug: {msg: 1}, tags: [a]}
    - {name: two, debug: {msg: 2}, tags: [never, b]}
"""


def test_plan_hosts_limit_and_tags(tmp_path: Path) -> None:
    write(tmp_path, {"site.yml": TAGGED})
    options = RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["web1,web2,localhost"], limit="web*",
                         tags=["b"])
    plan = make_plan(options)
    play = plan.plays[0]
    assert [h.name for h in play.hosts] == ["web1", "web2"]
    assert [t.display_name() for t in play.tasks if not t.implicit] == ["two"]
    assert "two\tTAGS: [b, never]" in render_plan(plan)


@pytest.mark.ansible
def test_quiz_recap_matches_ansible_playbook(tmp_path: Path) -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook is not installed")
    write(tmp_path, {"site.yml": QUIZ, "roles/sample/tasks/main.yml": SAMPLE})
    real = subprocess.run([tool, "-i", "localhost,", "-c", "local", "site.yml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    recap = next(line for line in real.stdout.splitlines() if line.startswith("localhost "))
    from helpers import run_playbook

    _, out, _ = run_playbook(tmp_path, QUIZ, {"roles/sample/tasks/main.yml": SAMPLE})
    assert recap + "\n" in out

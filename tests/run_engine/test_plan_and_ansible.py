from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ansible_tools import find_tool
from helpers import write
from test_execute import QUIZ, SAMPLE

from engine.flow.plan import RunOptions, make_plan
from engine.run.preflight import make_run_plan, unknown_module_problems

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


UNSUPPORTED = """
- hosts: all
  gather_facts: false
  debugger: on_failed
  tasks:
    - name: retried
      command: "true"
      become_method: su
    - block:
        - {name: elevated, debug: {msg: x}}
      become: true
      become_user: pls-someone-else
    - {name: local is fine, debug: {msg: y}, connection: local}
    - {name: ssh is not, debug: {msg: y}, connection: ssh}
    - {name: no defaults are fine, debug: {msg: z}, module_defaults: {}}
    - name: an action group's defaults are not
      copy: {content: x, dest: out}
      module_defaults:
        group/testgroup: {data: pong}
"""


def test_unimplemented_keywords_are_refused_with_where_and_hint(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.run.become

    monkeypatch.setattr(engine.run.become, "sudo_available", lambda: True)  # become to another user: refused
    write(tmp_path, {"site.yml": UNSUPPORTED})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    problems = unknown_module_problems(plan)
    refused = {(keyword, span.line if span else None) for keyword, span in plan.unsupported}
    assert {keyword for keyword, _ in refused} == {"debugger", "become_method", "become", "connection",
                                                   "module_defaults for the action group testgroup"}
    assert len(problems) == len(refused) == 5
    assert all("--engine ansible" in str(p) and p.span is not None for p in problems)
    lines = (tmp_path / "site.yml").read_text().splitlines()
    # the block's keyword, reported once, on its own (0-based) line
    assert ("become", lines.index("      become: true")) in refused


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

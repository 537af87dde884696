"""Handlers and roles where no recorded scenario can say it: ansible-playbook ends such runs
before its JSON callback writes anything (a notification nothing answers), or the behaviour is
the engine's own (a filter it lacks found before the run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook

MISSING = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: change
      command: "true"
      notify: nobody listens
    - name: never reached
      debug: {msg: after}
"""
MISSING_TEXT = ("[ERROR]: The requested handler 'nobody listens' was not found in either the main handlers list "
                "nor in the listening handlers list\n")


def test_a_notification_no_handler_answers_ends_the_playbook(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, MISSING)
    assert code == 1
    assert out.endswith("TASK [change] " + "*" * 66 + "\n" + MISSING_TEXT)  # before the result, no recap
    assert data["tasks"] == []


def test_error_on_missing_handler_false_only_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_ERROR_ON_MISSING_HANDLER", "false")
    code, out, _ = run_playbook(tmp_path, MISSING)
    assert code == 0
    assert "[WARNING]: The requested handler 'nobody listens' was not found" in out
    assert "PLAY RECAP" in out


FORCED = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: change
      command: "true"
      notify: handler
    - name: fail
      fail: {msg: boom}
  post_tasks:
    - name: not after a failure
      debug: {msg: post}
  handlers:
    - name: handler
      debug: {msg: handler ran}
"""


@pytest.mark.parametrize("forced", [False, True])
def test_force_handlers_option(tmp_path: Path, forced: bool) -> None:
    code, out, data = run_playbook(tmp_path, FORCED, force_handlers=forced)
    assert code == 2
    statuses = [(t["task"], t["status"]) for t in data["tasks"]]
    assert statuses == [("change", "changed"), ("fail", "failed")] + ([("handler", "ok")] if forced else [])
    assert "not after a failure" not in out


def test_a_filter_the_engine_lacks_is_found_before_the_run(tmp_path: Path) -> None:
    from engine.plan import RunOptions
    from engine.run.modules import get_module
    from engine.run.plan import make_run_plan, unknown_module_problems

    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: {msg: "{{ [1] | community.general.json_query('[0]') }} {{ 'a|b' | upper }}"}
      when: "'x' | ansible.utils.ipaddr"
""")
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: get_module(action) is not None)
    messages = [str(problem) for problem in unknown_module_problems(plan)]
    assert len(messages) == 2
    assert "no filter 'community.general.json_query'" in messages[0]
    assert "no filter 'ansible.utils.ipaddr'" in messages[1]

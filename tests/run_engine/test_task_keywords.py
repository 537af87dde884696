"""Task keywords the engine honours beyond when/loop: environment, run_once, until/retries/delay,
no_log, debugger. The messages are ansible-playbook 2.19's, as its default callback prints them."""

from __future__ import annotations

from pathlib import Path

from helpers import run_playbook

from engine.run.environment import expand_user, expand_variables

ENVIRONMENT = """
- hosts: localhost
  gather_facts: false
  environment: {SHARED: play, ONLY_PLAY: p}
  tasks:
    - block:
        - name: merged
          shell: echo "$SHARED $ONLY_PLAY $ONLY_BLOCK $NUM" > "{{ playbook_dir }}/merged.txt"
          environment: {SHARED: task, NUM: 3}
        - name: undefined
          debug: {msg: x}
          environment: {X: "{{ nope }}"}
          ignore_errors: true
        - name: not a dict
          shell: echo "$SHARED" > "{{ playbook_dir }}/not_a_dict.txt"
          environment: text
      environment: {SHARED: block, ONLY_BLOCK: b}
"""


def test_environment_merges_outer_first_and_reports_like_ansible(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, ENVIRONMENT)
    assert code == 0
    assert (tmp_path / "merged.txt").read_text() == "task p b 3\n"
    assert ('fatal: [localhost]: FAILED! => {"msg": "Task failed: Error processing keyword '
            "'environment': 'nope' is undefined\"}") in out
    assert ("[WARNING]: could not parse environment value, skipping: "
            "[{'SHARED': 'play', 'ONLY_PLAY': 'p'}, {'SHARED': 'block', 'ONLY_BLOCK': 'b'}, 'text']") in out
    assert (tmp_path / "not_a_dict.txt").read_text() == "block\n"


def test_command_expansion_reads_the_task_environment() -> None:
    environment = {"NAME": "x", "HOME": "/home/someone/"}
    assert expand_variables("$NAME-${NAME}-$MISSING", environment) == "x-x-$MISSING"
    assert expand_user("~/file", environment) == "/home/someone/file"
    assert expand_user("~", environment) == "/home/someone"

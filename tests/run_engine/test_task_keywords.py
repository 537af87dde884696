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


UNTIL = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: counts
      shell: n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count; echo $((n+1))
      args: {chdir: "{{ playbook_dir }}"}
      register: counted
      until: counted.stdout == "2"
      retries: 3
      delay: 0
    - name: never
      debug: {msg: "{{ item }}"}
      until: false
      retries: 1
      delay: 0
      loop: [a]
      register: never
      ignore_errors: true
    - debug: {msg: "{{ counted.attempts }} {{ never.results[0].attempts }} {{ counted.retries is defined }}"}
"""


def test_until_retries_with_attempts_and_retry_lines(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, UNTIL)
    assert code == 0
    assert "FAILED - RETRYING: [localhost]: counts (3 retries left).\nchanged: [localhost]\n" in out
    # debug asks to be shown, so its retried attempt is dumped too; the item line comes after
    # then ansible 2.19's error block; a debug loop's own failed line follows its items (recorded)
    assert ('FAILED - RETRYING: [localhost]: never (1 retries left).Result was: {\n    "attempts": 1,\n'
            '    "changed": false,\n    "msg": "a",\n    "retries": 2\n}\n'
            '[ERROR]: Task failed: Action failed: a\n') in out
    assert ('         ^ column 7\n\nfailed: [localhost] (item=a) => {\n    "msg": "a"\n}\n'
            'fatal: [localhost]: FAILED! => {"msg": "One or more items failed"}\n...ignoring\n') in out
    assert '"msg": "2 1 False"' in out


def test_retries_without_until_retry_a_failing_task(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - {name: fails, command: "false", retries: 2, delay: 0, ignore_errors: true, register: failing}
        - {name: shown, debug: {msg: "{{ failing.attempts }}"}}
    """
    _, out, _ = run_playbook(tmp_path, playbook)
    assert out.count("FAILED - RETRYING: [localhost]: fails") == 2
    assert '"msg": 2' in out


def test_debugger_is_refused_unless_never_and_no_log_is_run(tmp_path) -> None:
    """The engine starts no debugger; it censors no_log results as ansible does."""
    from engine.loading.resolve import Resolver
    from engine.parsing.source import SourceCache
    from engine.run.preflight import unsupported_keywords

    (tmp_path / "site.yml").write_text(
        "- hosts: localhost\n  gather_facts: false\n  no_log: false\n  tasks:\n"
        "    - debug: msg=secret\n      no_log: true\n"
        "    - debug: msg=ok\n      no_log: false\n      debugger: never\n"
        "    - debug: msg=dbg\n      debugger: on_failed\n")
    book = Resolver(SourceCache()).load_playbook(str(tmp_path / "site.yml"))
    found = [(keyword, span.line + 1 if span else None) for keyword, span in unsupported_keywords(book)]
    assert found == [("debugger", 11)]

"""Default-callback lines as ansible-playbook 2.19 prints them (recorded with -c local -v)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook


def test_included_files_are_named_by_absolute_path_and_skipped_loops_dumped_under_v(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - include_tasks: inc.yml
            - name: skip all loop
              debug: msg={{ item }}
              loop: [1]
              when: false
            - name: hidden
              debug: msg={{ item }}
              loop: [1]
              when: false
              no_log: true
        """, files={"inc.yml": "- debug: msg=in\n"}, verbosity=1)
    assert code == 0
    assert f"included: {tmp_path / 'inc.yml'} for localhost\n" in out
    assert ('skipping: [localhost] => (item=1)  => {"false_condition": false, "item": 1}\n'
            'skipping: [localhost] => {"msg": "All items skipped"}\n') in out
    assert ('skipping: [localhost] => {"censored": "the output has been hidden due to the fact that '
            "'no_log: true' was specified for this result\"}\n") in out


def test_included_files_are_grouped_by_file_and_item_across_hosts(tmp_path: Path) -> None:
    (tmp_path / "hosts.ini").write_text("h1\nh2\n\n[all:vars]\nansible_connection=local\n")
    code, out, _ = run_playbook(tmp_path, """
        - hosts: all
          gather_facts: false
          tasks:
            - include_tasks: inc.yml
            - include_tasks: inc.yml
              loop: [a, a]
              loop_control: {loop_var: letter}
            - include_role: {name: greeter}
        """, files={"inc.yml": "- debug: msg=in\n", "roles/greeter/tasks/main.yml": "- debug: msg=hi\n"},
        inventory=[str(tmp_path / "hosts.ini")])
    assert code == 0
    inc = tmp_path / "inc.yml"
    assert f"\nincluded: {inc} for h1, h2\n" in out
    assert out.count(f"included: {inc} for h1, h2 => (item=a)\n") == 2
    assert "included: greeter for h1, h2\n" in out


ERRORS_PLAYBOOK = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - name: an action fails
      fail: {msg: boom}
      ignore_errors: true
    - name: a module fails in a loop
      command: "false"
      loop: [1, 2]
      ignore_errors: true
    - name: an argument does not template
      debug:
        msg: "{{ nope }}"
      ignore_errors: true
    - name: the loop is not a list
      debug: msg={{ item }}
      loop: "{{ 'text' }}"
      ignore_errors: true
    - name: failed_when fails a command that worked
      command: "true"
      failed_when: true
"""

# what ansible-playbook 2.19.14 -c local printed for ERRORS_PLAYBOOK (stdout and stderr, <DIR> the
# playbook's directory)
ACTION_FAILED = """\
TASK [an action fails] *********************************************************
[ERROR]: Task failed: Action failed: boom
Origin: <DIR>/site.yml:4:7

2   gather_facts: false
3   tasks:
4     - name: an action fails
        ^ column 7

fatal: [localhost]: FAILED! => {"changed": false, "msg": "boom"}
...ignoring
"""
MODULE_FAILED_ONCE_FOR_TWO_ITEMS = """\
TASK [a module fails in a loop] ************************************************
[ERROR]: Task failed: Module failed: non-zero return code
Origin: <DIR>/site.yml:7:7

5       fail: {msg: boom}
6       ignore_errors: true
7     - name: a module fails in a loop
        ^ column 7

failed: [localhost] (item=1) => {"""
FINALIZATION_FAILED = """\
TASK [an argument does not template] *******************************************
[ERROR]: Task failed: Finalization of task args for 'ansible.builtin.debug' failed: \
Error while resolving value for 'msg': 'nope' is undefined

Task failed.
Origin: <DIR>/site.yml:11:7

 9       loop: [1, 2]
10       ignore_errors: true
11     - name: an argument does not template
         ^ column 7

<<< caused by >>>

Finalization of task args for 'ansible.builtin.debug' failed.
Origin: <DIR>/site.yml:12:7

10       ignore_errors: true
11     - name: an argument does not template
12       debug:
         ^ column 7

<<< caused by >>>

Error while resolving value for 'msg': 'nope' is undefined
Origin: <DIR>/site.yml:13:14

11     - name: an argument does not template
12       debug:
13         msg: "{{ nope }}"
                ^ column 14

fatal: [localhost]: FAILED! => {"msg": "Task failed: Finalization of task args for 'ansible.builtin.debug' failed: \
Error while resolving value for 'msg': 'nope' is undefined"}
...ignoring
"""
LOOP_NOT_A_LIST = """\
TASK [the loop is not a list] **************************************************
[ERROR]: The `loop` value must resolve to a 'list', not 'str'.
Origin: <DIR>/site.yml:17:13

15     - name: the loop is not a list
16       debug: msg={{ item }}
17       loop: "{{ 'text' }}"
               ^ column 13

Provide a list of items/templates, or a template resolving to a list.

fatal: [localhost]: FAILED! => {"msg": "The `loop` value must resolve to a 'list', not 'str'."}
...ignoring
"""
FAILED_WHEN = """\
TASK [failed_when fails a command that worked] *********************************
[ERROR]: Task failed: Action failed.
Origin: <DIR>/site.yml:19:7

17       loop: "{{ 'text' }}"
18       ignore_errors: true
19     - name: failed_when fails a command that worked
         ^ column 7

fatal: [localhost]: FAILED! => {"changed": true, "cmd": ["true"], "delta": \
"""


def test_error_blocks_before_failed_results_as_ansible_prints_them(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, ERRORS_PLAYBOOK)
    assert code == 2
    out = out.replace(str(tmp_path), "<DIR>")
    for block in (ACTION_FAILED, MODULE_FAILED_ONCE_FOR_TWO_ITEMS, FINALIZATION_FAILED, LOOP_NOT_A_LIST, FAILED_WHEN):
        assert block in out
    assert out.count("[ERROR]: Task failed: Module failed: non-zero return code") == 1  # Display shows an error once


def test_error_block_formatting() -> None:
    from engine.run.error_block import UNKNOWN, Event, brief, format_events

    assert brief(["Task failed.", "Action failed.", ""]) == "Task failed: Action failed."
    assert brief(["Task failed.", "Module failed.", "x"]) == "Task failed: Module failed: x"
    # a link at an origin ansible does not know shows the value instead of a source excerpt (as in
    # the recorded scenario environment_keyword); a cause with no context of its own folds into it
    text = format_events([Event("Task failed."), Event("Error processing keyword 'environment'.", UNKNOWN,
                                                       value="[{'X': '{{ nope }}'}]"), Event("'nope' is undefined")])
    assert text == ("Task failed: Error processing keyword 'environment': 'nope' is undefined\n\n"
                    "Task failed.\n\n<<< caused by >>>\n\n"
                    "Error processing keyword 'environment': 'nope' is undefined\nOrigin: <unknown>\n\n"
                    "[{'X': '{{ nope }}'}]\n\n")


def test_a_when_that_cannot_be_evaluated_is_reported_at_the_condition(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19 (-c local): the chain names the task, then the
    condition where it is written (a list item: that item)."""
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - name: stat 1
              ansible.builtin.stat:
                path: /nowhere
              register: r_1
              when: r_1.rc == 0
        """)
    site = tmp_path / "site.yml"
    assert code == 2
    assert ("[ERROR]: Task failed: Error while evaluating conditional: 'r_1' is undefined\n\nTask failed.\n"
            f"Origin: {site}:5:7\n") in out
    assert ("<<< caused by >>>\n\nError while evaluating conditional: 'r_1' is undefined\n"
            f"Origin: {site}:9:13\n\n7         path: /nowhere\n8       register: r_1\n9       when: r_1.rc == 0\n"
            "              ^ column 13\n") in out
    assert ('fatal: [localhost]: FAILED! => {"changed": false, "msg": "Task failed: Error while evaluating '
            "conditional: 'r_1' is undefined\"}") in out


def test_a_missing_attribute_is_worded_by_the_values_type() -> None:
    """ansible's Marker: "object of type 'dict' has no attribute 'b'" (Jinja: "'dict object' ...")."""
    from engine.templating.templar import Templar, TemplateFailure

    templar = Templar({"d": {"a": 1}, "items": [1]})
    for text, message in (("{{ d.b }}", "object of type 'dict' has no attribute 'b'"),
                          ("{{ d['b'] }}", "object of type 'dict' has no attribute 'b'"),
                          ("{{ items.x }}", "object of type 'list' has no attribute 'x'")):
        with pytest.raises(TemplateFailure, match=message):
            templar.template(text)
    assert templar.template("{{ d.b.c | default(1) }}") == 1


def test_a_test_or_filter_given_an_undefined_value_says_it_is_undefined() -> None:
    """As ansible's plugins trip over the undefined value first (recorded: `when: r_7 is changed`
    with r_7 never registered fails with "'r_7' is undefined")."""
    from engine.templating.templar import Templar, TemplateFailure

    templar = Templar({})
    with pytest.raises(TemplateFailure, match="Error while evaluating conditional: 'r_7' is undefined"):
        templar.evaluate("r_7 is changed")
    with pytest.raises(TemplateFailure, match="'nope' is undefined"):
        templar.template("{{ nope | to_nice_json }}")
    assert templar.evaluate("r_7 is not defined") is True


def test_a_condition_that_fails_otherwise_than_undefined_is_an_expression_error(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19: only an undefined variable is 'Error while evaluating
    conditional'; a changed_when that cannot be evaluated fails the action."""
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - debug: msg=a
              when: 1 + "a" == 2
              ignore_errors: true
            - command: "true"
              changed_when: 1 + "a" == 2
              ignore_errors: true
        """)
    assert code == 0
    assert ('fatal: [localhost]: FAILED! => {"msg": "Task failed: Error rendering expression: unsupported operand '
            "type(s) for +: 'int' and 'str'\"}") in out
    assert "[ERROR]: Task failed: Action failed.\n" in out
    assert "\"changed_when_result\": \"Error rendering expression: unsupported operand type(s) for +: 'int' and" in out


def test_an_assert_condition_that_cannot_be_evaluated_is_reported_at_it(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19: the cause's Origin is the `that` item."""
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - name: assert 7
              ansible.builtin.assert:
                that:
                  - r_1.rc == 0
        """)
    assert code == 2
    assert ("[ERROR]: Task failed: Error while evaluating conditional: 'r_1' is undefined\n\nTask failed.\n"
            in out)
    assert f"Origin: {tmp_path / 'site.yml'}:8:13\n" in out


def test_an_embedded_template_in_a_condition_gives_a_tagged_value(tmp_path: Path) -> None:
    """ansible 2.19 renders '{{ n }}' in a condition to its tagged int: `in` fails on it."""
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          vars: {n: 1}
          tasks:
            - command: "true"
              register: out
              changed_when: "'{{ n }}' in out.stdout"
              ignore_errors: true
        """)
    assert code == 0
    assert ("\"changed_when_result\": \"Error rendering expression: 'in <string>' requires string as left operand, "
            "not _AnsibleTaggedInt\"") in out
    assert "Use inline expressions, for example: `when: \"{{ a_var }}\" == 42` becomes `when: a_var == 42`" in out

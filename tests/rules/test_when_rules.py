"""PLS104 when-changed-inside and PLS105 when-with-jinja-delimiters."""

from __future__ import annotations

from pathlib import Path

from ruletest import check, positions

SEED_QUIZ = {
    "playbook.yml": """
        - hosts: localhost
          gather_facts: false
          vars:
            cond1: true
            cond2: true
          roles:
            - role: sample
              when:
                - cond1 is defined and cond1|bool
                - cond2 is defined and cond2|bool
            - other
        """,
    "roles/sample/tasks/main.yml": """
        - name: roled task 1
          debug:
            msg: "cond1 {{cond1}} , cond2 {{cond2}}"
        - name: set cond2 to false
          set_fact:
            cond2: 0
        - name: roled task 2
          debug:
            msg: "cond1 {{cond1}} , cond2 {{cond2}}"
        - name: set cond2 to true
          set_fact:
            cond2: 1
        - name: roled task 3
          debug:
            msg: "cond1 {{cond1}} , cond2 {{cond2}}"
        """,
    "roles/other/tasks/main.yml": "- debug: msg=other\n",
}


def test_seed_quiz_set_fact_flips_the_role_condition(repo: Path) -> None:
    found = check(repo, SEED_QUIZ, "PLS104")
    # 'set cond2 to true' (line 9) is not reported: when it runs the condition holds, and cond2: 1
    # keeps it true
    assert positions(found) == [("roles/sample/tasks/main.yml", 3, 8)]
    first = found[0].message
    assert "'sample : set cond2 to false' assigns 'cond2'" in first
    assert 'the roles: entry "sample" (playbook.yml:9)' in first
    assert "each of the 3 tasks after this one" in first
    assert [(r.span.file.endswith("playbook.yml"), r.span.line) for r in found[0].related] == [(True, 8)]


def test_unrelated_or_last_assignment_is_fine(repo: Path) -> None:
    found = check(repo, {"playbook.yml": """
        - hosts: all
          tasks:
            - when: enabled
              block:
                - set_fact:
                    other: 1
                - debug: msg=x
                - command: probe
                  register: enabled
        """}, "PLS104")
    assert found == []


def test_register_inside_a_block(repo: Path) -> None:
    found = check(repo, {"playbook.yml": """
        - hosts: all
          tasks:
            - when: result is not defined or result.rc == 0
              block:
                - command: probe
                  register: result
                - debug: msg=next
        """}, "PLS104")
    assert positions(found) == [("playbook.yml", 4, 10)]


def test_resetting_the_value_the_condition_holds_for_is_not_reported(repo: Path) -> None:
    playbook = """
        - hosts: all
          tasks:
            - when: mode == 'fast' and not (done | bool)
              block:
                - set_fact:
                    mode: fast
                    done: {done}
                - debug: msg=next
        """
    assert check(repo, {"playbook.yml": playbook.format(done="false")}, "PLS104") == []
    # the same task setting a value that turns the condition false is reported
    flipped = check(repo, {"playbook.yml": playbook.format(done="true")}, "PLS104")
    assert positions(flipped) == [("playbook.yml", 4, 10)]
    assert check(repo, {"playbook.yml": """
        - hosts: all
          tasks:
            - when: mode == 'fast'
              block:
                - set_fact: mode=fast
                - debug: msg=next
        """}, "PLS104") == []
    # a template or a variable the rule cannot see keeps the finding
    found = check(repo, {"playbook.yml": """
        - hosts: all
          tasks:
            - when: mode == wanted
              block:
                - set_fact:
                    mode: fast
                - debug: msg=next
        """}, "PLS104")
    assert len(found) == 1


def test_include_condition_is_checked_once(repo: Path) -> None:
    found = check(repo, {
        "playbook.yml": "- hosts: all\n  tasks:\n    - include_tasks: inner.yml\n      when: flag\n",
        "inner.yml": "- set_fact:\n    flag: false\n- debug: msg=after\n",
    }, "PLS104")
    assert found == []


def test_a_file_included_at_several_points_of_a_block_is_one_finding(repo: Path) -> None:
    """A block includes cli.yml twice; its task registers what the block's when tests. The tasks
    after it differ by where it is included: one finding says both counts."""
    found = check(repo, {
        "playbook.yml": """
            - hosts: all
              tasks:
                - when: result is not defined or result.rc == 0
                  block:
                    - include_tasks: cli.yml
                    - debug: msg=one
                    - debug: msg=two
                    - include_tasks: cli.yml
                    - debug: msg=three
            """,
        "cli.yml": "- command: echo\n  register: result\n",
    }, "PLS104")
    assert len(found) == 1
    assert "re-checked for each of the tasks after this one (1 or 5, by where it is included)" in found[0].message


def test_jinja_delimiters_in_conditions(repo: Path) -> None:
    found = check(repo, {
        "playbook.yml": """
            - hosts: all
              roles:
                - role: web
                  when: "{{ web_enabled }}"
              tasks:
                - debug: msg=x
                  when:
                    - ok
                    - "{{ other }}"
                  changed_when: "{% if x %}true{% endif %}"
                - debug: msg=y
                  when: plain | bool
            """,
        "roles/web/tasks/main.yml": "- debug: msg=web\n",
    }, "PLS105")
    assert positions(found) == [("playbook.yml", 3, 12), ("playbook.yml", 8, 10), ("playbook.yml", 9, 20)]
    assert "write when: web_enabled" in found[0].message

"""Default-callback lines as ansible-playbook 2.19 prints them (recorded with -c local -v)."""

from __future__ import annotations

from pathlib import Path

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

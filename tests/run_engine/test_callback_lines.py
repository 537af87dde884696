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

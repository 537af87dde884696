"""Registered results as ansible 2.19 makes them: ``exception`` in failed results, no ``failed``
in a skip an action plugin raised, ``skipped`` in a loop's aggregate; BYPASS_HOST_LOOP actions
run once; modules resolve relative paths in the playbook's directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_playbook

RESULTS = """
- hosts: localhost
  gather_facts: false
  tasks:
    - {fail: {msg: boom}, register: failed_action, ignore_errors: true}
    - {command: "false", loop: [1], register: failed_loop, ignore_errors: true}
    - {script: /bin/true, check_mode: true, register: script_skip}
    - {command: "true", check_mode: true, register: command_skip}
    - copy:
        dest: "{{ playbook_dir }}/out.json"
        content: "{{ [failed_action, failed_loop, script_skip, command_skip] | to_json }}"
"""


def test_failed_and_skipped_results_have_ansibles_keys(tmp_path: Path) -> None:
    code, _, _ = run_playbook(tmp_path, RESULTS)
    assert code == 0
    failed_action, failed_loop, script_skip, command_skip = json.loads((tmp_path / "out.json").read_text())
    assert failed_action["exception"] == "(traceback unavailable)"
    assert "exception" not in failed_loop and failed_loop["skipped"] is False
    assert failed_loop["results"][0]["exception"] == "(traceback unavailable)"
    assert "failed" not in script_skip and script_skip["skipped"] is True
    assert command_skip["failed"] is False and command_skip["skipped"] is True


PAUSE = """
- hosts: all
  gather_facts: false
  tasks:
    - {pause: {seconds: 1}, register: paused}
    - debug: {msg: "{{ paused is defined }}"}
"""


def test_pause_runs_once_for_the_first_host(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text("h1\nh2\n[all:vars]\nansible_connection=local\n")
    code, out, data = run_playbook(tmp_path, PAUSE, inventory=[str(tmp_path / "hosts")])
    assert code == 0
    assert out.count("Pausing for 1 seconds") == 1
    assert [(t["host"], t["status"]) for t in data["tasks"]][:1] == [("h1", "ok")]
    assert '"msg": true' in out and '"msg": false' in out  # only h1 registered the result


RELATIVE = """
- hosts: localhost
  gather_facts: false
  tasks:
    - copy: {dest: out.txt, content: "x\\n"}
    - file: {path: touched, state: touch}
"""


def test_modules_resolve_relative_paths_in_the_playbook_directory(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, _ = run_playbook(tmp_path / "book", RELATIVE)
    assert code == 0
    assert (tmp_path / "book" / "out.txt").read_text() == "x\n"
    assert (tmp_path / "book" / "touched").exists()
    assert not list(elsewhere.iterdir())
    assert Path.cwd() == elsewhere  # the engine went back where it was started


TIMESTAMPS = """
- hosts: localhost
  gather_facts: false
  vars:
    a: 2024-01-05T08:15:30Z
    b: 2024-01-05 08:15:30.25
    c: 2024-01-05
  tasks:
    - debug:
        msg: "a={{ a }} b={{ b }} c={{ c }} s={{ a | string }} j={{ a ~ '' }} y={{ a.year }}"
    - debug:
        msg: "{{ a }}"
    - debug:
        var: b
"""


def test_yaml_timestamps_are_the_datetimes_ansible_templates_see(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19: in text a timestamp is str(datetime), alone it is the
    datetime (attributes work), which a result writes in ISO format."""
    code, out, _ = run_playbook(tmp_path, TIMESTAMPS)
    assert code == 0
    assert ('"msg": "a=2024-01-05 08:15:30+00:00 b=2024-01-05 08:15:30.250000 c=2024-01-05 '
            's=2024-01-05 08:15:30+00:00 j=2024-01-05 08:15:30+00:00 y=2024"') in out
    assert '"msg": "2024-01-05T08:15:30+00:00"' in out
    assert '"b": "2024-01-05T08:15:30.250000"' in out


CONSTRUCTED_EXTRA_VARS = """
- hosts: web
  gather_facts: false
  tasks:
    - debug: {msg: "{{ stage_tag | default('none') }}"}
"""


def test_extra_vars_reach_constructeds_use_extra_vars(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19 (-i inv -e stage=prod): the composed variable saw -e."""
    files = {"inv/01-hosts.ini": "[web]\nw1\nw2\n[all:vars]\nansible_connection=local\n",
             "inv/02-c.yml": "plugin: constructed\nuse_extra_vars: true\nstrict: false\n"
                             "compose:\n  stage_tag: \"stage ~ '-' ~ inventory_hostname\"\n"}
    code, out, _ = run_playbook(tmp_path, CONSTRUCTED_EXTRA_VARS, files, inventory=[str(tmp_path / "inv")],
                                extra_vars={"stage": "prod"})
    assert code == 0
    assert '"msg": "prod-w1"' in out and '"msg": "prod-w2"' in out


BACKSLASHES = r"""
- hosts: localhost
  gather_facts: false
  vars:
    r: eu-west-1
  tasks:
    - debug: {msg: "{{ 'a\\nb' }}"}
    - debug: {msg: "{{ r | regex_replace('^(\\w+)-(\\w+)-\\d$', '\\1\\2') }}"}
    - debug: {msg: "{% set x = 'a\\tb' %}{{ x }}"}
    - debug: {msg: "{{ 'x' if ('a\\tb' | length) == 3 else 'y' }}"}
      when: "'a\\tb' | length == 3"
"""


def test_backslashes_of_string_constants_inside_braces_are_escaped_as_ansible_does(tmp_path: Path) -> None:
    """Recorded from ansible-playbook 2.19: inside {{ }} a string constant's backslashes stay (its
    lexer doubles them), in {% %} and in a conditional Jinja reads them as escapes."""
    code, out, _ = run_playbook(tmp_path, BACKSLASHES)
    assert code == 0
    assert [line.strip() for line in out.splitlines() if '"msg"' in line] == [
        r'"msg": "a\\nb"', '"msg": "euwest"', r'"msg": "a\tb"', '"msg": "y"']

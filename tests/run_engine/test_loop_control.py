"""loop_control as ansible-playbook -c local 2.19 prints it: the item lines of scenario loop_control
(its statuses and recap are compared by tests/run), and how the default callback shows results."""

from __future__ import annotations

from pathlib import Path

from helpers import run_playbook

SCENARIO = Path(__file__).resolve().parent.parent / "run" / "scenarios" / "loop_control" / "site.yml"

# the "(item=...)" lines of ansible-playbook's stdout for that scenario, in order
ANSIBLE_ITEM_LINES = [
    'ok: [localhost] => (item=a) => {',
    'ok: [localhost] => (item=b) => {',
    'ok: [localhost] => (item=c) => {',
    'ok: [localhost] => (item=1) => {',
    'ok: [localhost] => (item=2) => {',
    'ok: [localhost] => (item=x) => {',
    'ok: [localhost] => (item=y) => {',
    'ok: [localhost] => (item=n1)',
    'ok: [localhost] => (item=n2)',
    'ok: [localhost] => (item=a)',
    'ok: [localhost] => (item=b)',
    'ok: [localhost] => (item=1) => {',
    'skipping: [localhost] => (item=L1) ',
    'ok: [localhost] => (item=L2) => {',
    'failed: [localhost] (item=L1) => {"ansible_loop_var": "item", "changed": false, "item": 1, "msg": "boom"}',
    'ok: [localhost] => (item=1) => {',
    'ok: [localhost] => (item=2) => {',
    'ok: [localhost] => (item=0-a)',
    'ok: [localhost] => (item=1-b)',
]


def test_item_lines_are_ansibles(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, SCENARIO.read_text())
    assert code == 0
    assert [line for line in out.splitlines() if "(item=" in line] == ANSIBLE_ITEM_LINES


def test_extended_loop_values_and_pause(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, SCENARIO.read_text())
    assert '"msg": "2/1/2/1 False False 3 a c [\'a\', \'b\', \'c\']"' in out
    assert '"msg": "no allitems 1"' in out


ASSERTS = """
- hosts: localhost
  gather_facts: false
  tasks:
    - assert: {that: true}
    - assert: {that: true, quiet: true}
    - set_fact: {x: 1}
      loop: [1]
"""


def test_results_are_shown_as_ansibles_callback_shows_them(tmp_path: Path) -> None:
    """assert asks to be shown (indented) unless quiet; -v shows other results on one line; an
    item's line leaves out failed/skipped as the top-level line does."""
    _, out, _ = run_playbook(tmp_path, ASSERTS)
    assert 'ok: [localhost] => {\n    "changed": false,\n    "msg": "All assertions passed"\n}' in out
    assert out.count("All assertions passed") == 1
    _, out, _ = run_playbook(tmp_path, ASSERTS, verbosity=1)
    assert 'ok: [localhost] => {"changed": false, "msg": "All assertions passed"}' in out
    assert 'ok: [localhost] => (item=1) => {"ansible_facts": {"x": 1}, "ansible_loop_var": "item", "changed": false, ' \
        '"item": 1}' in out


def test_verbose_item_lines(tmp_path: Path) -> None:
    _, out, _ = run_playbook(tmp_path, SCENARIO.read_text(), verbosity=1)
    assert 'skipping: [localhost] => (item=L1)  => {"false_condition": "item > 1", "item": 1}' in out
    failed = 'failed: [localhost] (item=L1) => {"ansible_loop_var": "item", "changed": false, "item": 1, "msg": "boom"}'
    assert failed in out

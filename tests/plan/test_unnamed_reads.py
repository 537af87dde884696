"""A condition that reads variables it does not name (``lookup('template', 'flag.j2')``, whose file
reads ``inventory_hostname``; ``lookup('vars', 'flag_' ~ tier)``) reads the host's own variables, as
``vars`` does: the first host's reading is not another host's outcome. Each host's outcome in the
fleet is its outcome planned alone, as ansible-playbook 2.19 runs it (node02 alone runs the first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import outcomes_by_host

from engine.templating.variable_uses import reads_unnamed

PLAYBOOK = """
- hosts: web
  gather_facts: false
  tasks:
    - name: by a template file
      ansible.builtin.debug: {msg: hi}
      when: lookup('template', 'flag.j2') | trim == 'yes'
    - name: by a computed name
      ansible.builtin.debug: {msg: hi}
      when: lookup('ansible.builtin.vars', 'flag_' ~ tier) == 'on'
    - name: items by a template file
      ansible.builtin.debug: {msg: "{{ item }}"}
      loop: "{{ (lookup('template', 'flag.j2') | trim == 'yes') | ternary(['a', 'b'], []) }}"
"""


def _fleet(root: Path) -> None:
    hosts = [f"node{index:02d}" for index in range(1, 13)]
    (root / "inventory.ini").write_text("[web]\n" + "\n".join(hosts) + "\n\n[web:vars]\ntier=web\nflag_web=off\n")
    (root / "host_vars").mkdir()
    (root / "host_vars" / "node05.yml").write_text("flag_web: 'on'\n")
    (root / "templates").mkdir()
    (root / "templates" / "flag.j2").write_text("{{ 'yes' if inventory_hostname == 'node02' else 'no' }}\n")
    (root / "site.yml").write_text(PLAYBOOK)


def test_a_reading_of_unnamed_variables_is_the_host_s_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    fleet = outcomes_by_host(tmp_path)
    alone: dict[tuple[str, str], str] = {}
    for index in range(1, 13):
        alone.update(outcomes_by_host(tmp_path, f"node{index:02d}"))
    assert fleet == alone
    running = {task: sorted(host for (name, host), outcome in fleet.items() if name == task and outcome == "runs")
               for task in ("by a template file", "by a computed name", "items by a template file")}
    assert running == {"by a template file": ["node02"], "by a computed name": ["node05"],
                       "items by a template file": ["node02"]}


@pytest.mark.parametrize(("text", "expression", "unnamed"), [
    ("lookup('template', 'a.j2') == 'x'", True, True),
    ("query('ansible.builtin.varnames', '^a') | length", True, True),
    ("lookup(kind, 'a')", True, True),
    ("lookup('community.general.dig', 'example.org')", True, True),
    ("q('first_found', files) | first", True, False),
    ("lookup('file', 'a.txt') == 'x'", True, False),
    ("x == 1", True, False),
    ("{{ lookup('vars', 'a_' ~ b) }}", False, True),
    ("plain text", False, False),
])
def test_which_templates_read_unnamed_variables(text: str, expression: bool, unnamed: bool) -> None:
    assert reads_unnamed(text, expression) is unnamed

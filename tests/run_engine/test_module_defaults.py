"""``module_defaults`` as ansible-core 2.19 merges them (engine.loading.module_defaults): the
nearest level naming a module replaces its whole defaults, the task's own arguments win."""

from __future__ import annotations

from pathlib import Path

from helpers import write

from engine.flow.plan import RunOptions, every_task
from engine.loading.module_defaults import resolved_action
from engine.run.preflight import make_run_plan

PLAYBOOK = """\
- hosts: localhost
  gather_facts: false
  module_defaults:
    copy: {mode: "0600", force: false}
    ansible.legacy.file: {mode: "0700"}
  tasks:
    - name: play level
      ansible.builtin.copy: {content: x, dest: a}
    - name: a block
      module_defaults:
        ansible.builtin.copy: {mode: "0644"}
      block:
        - name: block level
          copy: {content: x, dest: b}
        - name: own argument
          ansible.legacy.copy: {content: x, dest: c, mode: "0400"}
    - name: other module
      file: {path: d, state: directory}
    - name: none
      debug: {msg: x}
"""


def test_each_task_gets_the_nearest_defaults_under_its_own_arguments(tmp_path: Path) -> None:
    write(tmp_path, {"site.yml": PLAYBOOK})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    args = {task.name: task.args for task in every_task(plan.playbook)}
    assert args["play level"] == {"mode": "0600", "force": False, "content": "x", "dest": "a"}
    assert args["block level"] == {"mode": "0644", "content": "x", "dest": "b"}  # no force: replaced whole
    assert args["own argument"] == {"mode": "0400", "content": "x", "dest": "c"}
    assert args["other module"] == {"mode": "0700", "path": "d", "state": "directory"}
    assert args["none"] == {"msg": "x"}
    written = {task.name: task.written_args for task in every_task(plan.playbook)}
    assert written["play level"] == {"content": "x", "dest": "a"} and written["none"] is None


def test_names_resolve_as_ansible_resolves_them() -> None:
    """A short name is ``ansible.legacy``'s, whose defaults go to ``ansible.builtin``'s too; what
    ansible-core routes to a collection is keyed by the collection's name."""
    assert {resolved_action(name) for name in ("copy", "ansible.legacy.copy", "ansible.builtin.copy")} == \
        {"ansible.builtin.copy"}
    names = ("ini_file", "ansible.builtin.ini_file", "community.general.ini_file")
    assert {resolved_action(name) for name in names} == {"community.general.ini_file"}
    assert resolved_action("community.general.ufw") is None and resolved_action(3) is None

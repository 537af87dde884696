"""An ``ansible_*`` name nothing on the way defines (``ansible_virtualization_type`` in a condition,
as hardening roles test for containers, facts not gathered), read where a task before may set any name (an
``include_vars`` whose file only the run names), is keyed as a gathered fact is: by the walk of the
tasks before and by the host's facts (cached, or where the run gathers them). Hosts with equal keys
share the reading (each host was read on its own); the plan is the one reading every host alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_facts_under_open_names import _fleet, planned_both_ways

PLAYBOOK = """
- name: containers
  hosts: all
  gather_facts: false
  tasks:
    - {name: on the connection, ansible.builtin.debug: {msg: local},
       when: "hardening and ansible_virtualization_type | default('none') == 'none'"}
    - name: os variables
      ansible.builtin.include_vars: {file: "{{ item }}", name: os_vars}
      with_first_found:
        - files: ["{{ ansible_facts.distribution | default('x') }}.yml"]
          skip: true
    - name: each os variable
      ansible.builtin.set_fact: {"{{ item.key }}": "{{ item.value }}"}
      with_dict: "{{ os_vars | default({}) }}"
    - name: if a container
      when: ansible_virtualization_type == 'docker' or ansible_facts.virtualization_type | default('') in ['lxc']
      block:
        - {name: is a container, ansible.builtin.set_fact: {system_is_container: true}}
        - {name: says so, ansible.builtin.debug: {msg: container}, when: system_is_container}
"""


def test_undefined_ansible_names_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    shared, alone, read_shared, read_alone = planned_both_ways(tmp_path, monkeypatch)
    assert shared == alone
    kinds = {(task, kind) for (_, task, _), (kind, _) in shared.items()}
    assert {("on the connection", "runs"), ("on the connection", "skipped"), ("is a container", "fails")} <= kinds
    for task in ("on the connection", "is a container"):
        assert 0 < read_shared.count(task) * 4 <= read_alone.count(task), task


def test_whether_facts_are_gathered_asked_once_per_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether the run gathers facts by a play (ansible.cfg's ``gathering`` read for a play that
    does not say) is worked out once per plan and play, not at each reading of a host."""
    from engine.variables import sources

    _fleet(tmp_path)
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    asked: list[str] = []
    original = sources.gathers_facts
    monkeypatch.setattr(sources, "gathers_facts", lambda play: asked.append(play.name) or original(play))
    shared, alone, read_shared, read_alone = planned_both_ways(tmp_path, monkeypatch)
    assert shared == alone and len(read_alone) > 20
    assert 0 < asked.count("containers") <= 20

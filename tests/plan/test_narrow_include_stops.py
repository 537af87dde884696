"""Where a host stops running the file a looping include loads (engine.variables.include_stops), and the
include's items there (engine.variables.report.include_items), are read with the host's templar walked
only for the names they read (engine.variables.host_runtime.narrow_reading): the same stops and items
as the whole walk gives, also where a name read is set by an earlier task or through another
variable's template, with fewer setters walked on each host."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import hosts_asked, planned_rows

from engine.variables import host_runtime
from engine.variables.host_runtime import Follower

PLAYBOOK = """
- name: site
  hosts: app
  gather_facts: false
  tasks:
    - {name: one, ansible.builtin.set_fact: {one: "{{ tier }}-1"}}
    - {name: two, ansible.builtin.set_fact: {two: "{{ tier }}-2"}}
    - {name: three, ansible.builtin.set_fact: {three: "{{ tier }}-3"}}
    - name: strict mode
      ansible.builtin.set_fact: {strict: true}
      when: tier == 'gold'
    - name: parts
      ansible.builtin.include_tasks: part.yml
      loop: "{{ parts }}"
    - name: extra parts
      ansible.builtin.set_fact: {extra_parts: "{{ parts + ['d'] }}"}
      when: tier == 'gold'
    - name: more parts
      ansible.builtin.include_tasks: part.yml
      loop: "{{ extra_parts | default(parts) }}"
      when: tier != 'bronze'
"""
PART = """
- name: part name
  ansible.builtin.set_fact: {part_name: "{{ item }}-{{ one }}"}
- name: refuse a part
  ansible.builtin.fail: {msg: "refused {{ item }}"}
  when: item == stop_at | default('none')
- name: strict check
  ansible.builtin.assert:
    that: not (strict | default(false)) or item != 'b'
- name: limit check
  ansible.builtin.fail: {msg: too many}
  when: limit_text | int < 2
- name: part done
  ansible.builtin.debug: {msg: "{{ part_name }}"}
"""


def _fleet(root: Path, hosts: int) -> None:
    lines = ["[app]"]
    for n in range(hosts):
        extra = " stop_at=b" if n % 5 == 0 else " limit=1" if n % 7 == 0 else ""
        lines.append(f"app{n} tier={('gold', 'silver', 'bronze')[n % 3]}{extra}")
    lines += ["", "[app:vars]", "parts=['a', 'b', 'c']", "limit=5", "limit_text='{{ limit }}'"]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "site.yml").write_text(PLAYBOOK)
    (root / "part.yml").write_text(PART)


def test_narrow_stops_are_the_whole_walks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 21)
    monkeypatch.chdir(tmp_path)
    asked = hosts_asked(monkeypatch, Follower, "_runs_on", 2)
    narrow, narrow_asked = sorted(planned_rows(tmp_path)), len(asked)
    asked.clear()
    monkeypatch.setattr(host_runtime, "_NARROW_TRIES", 0)  # the whole walk at once
    whole = sorted(planned_rows(tmp_path))
    assert narrow == whole
    outcomes = {(task, outcome) for task, _host, outcome, _reason in narrow}
    assert {("refuse a part", "fails"), ("strict check", "fails"), ("limit check", "fails"),
            ("part done", "runs")} <= outcomes, outcomes
    assert narrow_asked < len(asked), (narrow_asked, len(asked))

"""A looped task's conditions are asked what only the run knows once per expression on a host, not
once per loop item: the names an item binds are left out of that question and every item binds the
same ones. A loop over the play's hosts (``with_items: "{{ groups['all'] }}"``, reading
``hostvars[item]``) was hosts x items such questions."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import calls_counted, planned_rows

from engine.flow.host_needs import HostNeeds

PLAYBOOK = """
- name: collects from every host
  hosts: all
  tasks:
    - name: from all hosts
      ansible.builtin.set_fact:
        collected: "{{ collected | default([]) + [item] }}"
      with_items: "{{ groups['all'] }}"
      when: hostvars[item]['objects'][config_host] is defined
    - name: mine
      ansible.builtin.debug: {msg: m}
      loop: "{{ groups['all'] }}"
      when: item == inventory_hostname and config_host | length > 0
"""


def _fleet(root: Path, hosts: int) -> None:
    (root / "inventory.ini").write_text("[all]\n" + "".join(f"h{n:02d}\n" for n in range(hosts)) +
                                        "[all:vars]\nconfig_host={{ ansible_fqdn }}\n")
    (root / "site.yml").write_text(PLAYBOOK)


@pytest.mark.parametrize("hosts", [4, 16])
def test_a_loops_conditions_are_asked_once_per_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     hosts: int) -> None:
    _fleet(tmp_path, hosts)
    monkeypatch.chdir(tmp_path)
    asked = calls_counted(monkeypatch, HostNeeds, "_needs_names")
    rows = planned_rows(tmp_path)
    assert {(task, outcome) for task, _, outcome, _ in rows} == {("from all hosts", "depends"), ("mine", "depends")}
    assert len(rows) == 2 * hosts
    # a few questions per host and task (its conditions' names, the loop's), whatever the number of items
    assert len(asked) <= 6 * hosts

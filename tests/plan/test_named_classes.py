"""A task whose outcome reads the host's name beside other variables (a certificate named after the
host, ``inventory_hostname != groups['etcd'][0]``, a group variable templated with the name) is
read once per class of hosts the other variables tell apart, each other host of the class given
that reading with its own name, groups and short name (engine.flow.shared_outcomes): the outcomes
and reasons are those of each host read on its own, and the full readings do not grow with the
hosts."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import readings_by_size, shared_and_alone

PLAYBOOK = """
- name: nodes named after their hosts
  hosts: all
  gather_facts: false
  tasks:
    - name: certificate
      ansible.builtin.copy:
        src: "{{ base_dir }}/ssl/{{ node_name }}.pem"
        dest: "/etc/ssl/{{ node_name }}.pem"
    - name: not the first etcd member
      ansible.builtin.debug:
        msg: join
      when: inventory_hostname != groups['etcd'][0] and base_dir == '/etc/kube'
    - name: the name through a group variable
      ansible.builtin.debug:
        msg: "{{ node_name }}"
      when: node_name is search('[13]$') and tier == 'web'
    - name: a value shown when false
      ansible.builtin.debug:
        msg: never
      when: node_name == 'k8s-nobody'
    - name: every other db host
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: "{{ groups['db'] }}"
      when: item != inventory_hostname and tier == 'db'
    - name: the short name and a port
      ansible.builtin.debug:
        msg: "{{ inventory_hostname_short }}:{{ port }}"
      when: inventory_hostname_short is search('1') or port | int > 8000
"""


def _fleet(root: Path, hosts: int) -> None:
    lines = ["[etcd]", *(f"node{index}.example.org" for index in range(3)), "", "[web]"]
    lines += [f"node{index}.example.org" for index in range(3, hosts) if index % 2]
    lines += ["", "[db]"] + [f"node{index}.example.org" for index in range(3, hosts) if not index % 2]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text(
        "base_dir: /etc/kube\nnode_name: \"k8s-{{ inventory_hostname | replace('.', '-') }}\"\nport: 80\n")
    (root / "group_vars" / "web.yml").write_text("tier: web\nport: 8080\n")
    (root / "group_vars" / "db.yml").write_text("tier: db\n")
    (root / "group_vars" / "etcd.yml").write_text("tier: etcd\n")
    (root / "site.yml").write_text(PLAYBOOK)



def test_name_readers_share_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 40)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    assert {outcome for _task, _host, outcome, _reason in shared} >= {"runs", "skipped"}
    assert len({reason for task, _host, _outcome, reason in shared if task == "a value shown when false"}) == 40
    assert shared == alone


@pytest.mark.parametrize("task", ["certificate", "not the first etcd member", "the name through a group variable",
                                  "a value shown when false", "every other db host", "the short name and a port"])
def test_name_readers_read_once_per_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str) -> None:
    counts = readings_by_size(tmp_path, monkeypatch, _fleet, task, (30, 90))
    assert counts[0] == counts[1], counts

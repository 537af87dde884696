"""A task whose outcome reads the host's name beside what earlier tasks set on it (consul's
``inventory_hostname in consul_servers`` after a set_fact builds the list, with a registered result
beside it) is read once per class of hosts alike in the other names, what the earlier tasks set
included (their key, engine.variables.earlier_key), each other host of the class given that reading
with its own name (engine.flow.shared_outcomes): the outcomes and reasons are those of each host
read on its own, and the full readings do not grow with the hosts."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import readings_by_size, shared_and_alone

PLAYBOOK = """
- name: servers picked by name
  hosts: all
  gather_facts: false
  tasks:
    - name: list the servers
      ansible.builtin.set_fact:
        servers: "{{ groups['server'] | map('regex_replace', '$', '.example.org') | list if tier == 'web' else [] }}"
    - name: probe
      ansible.builtin.stat: {path: /etc/app.json}
      register: state
    - name: on a server with its state
      ansible.builtin.debug: {msg: s}
      when: inventory_hostname in servers and state is defined and size | int > 1
    - name: on the others
      ansible.builtin.debug: {msg: o}
      when: inventory_hostname not in servers and size | int == 2
"""


def _fleet(root: Path, hosts: int) -> None:
    lines = ["[server]", *(f"node{index}" for index in range(3)), "", "[web]"]
    lines += [f"node{index}.example.org" for index in range(hosts) if index % 2]
    lines += ["", "[db]"] + [f"node{index}.example.org" for index in range(hosts) if not index % 2]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "web.yml").write_text("tier: web\nsize: 2\n")
    (root / "group_vars" / "db.yml").write_text("tier: db\nsize: 2\n")
    (root / "site.yml").write_text(PLAYBOOK)


def test_name_and_earlier_readers_share_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 40)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    assert shared == alone
    outcomes = {(task, host): outcome for task, host, outcome, _ in shared}
    assert outcomes["on a server with its state", "node1.example.org"] == "runs"  # a server (its state: registered)
    assert outcomes["on a server with its state", "node3.example.org"] == "skipped"  # a web host, not a server
    assert outcomes["on the others", "node4.example.org"] == "runs"  # db: no servers listed
    assert outcomes["on the others", "node1.example.org"] == "skipped"


@pytest.mark.parametrize("task", ["on a server with its state", "on the others"])
def test_name_and_earlier_readers_read_once_per_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       task: str) -> None:
    counts = readings_by_size(tmp_path, monkeypatch, _fleet, task, (30, 90))
    assert counts[0] == counts[1], counts

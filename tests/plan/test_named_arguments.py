"""A task whose arguments read the host's name (a certificate per node) is read once for the hosts alike
in its other names and given to each of them with its own name (engine.flow.named_readings). Where
its arguments only interpolate what they read, they template on every such host as on the first one:
they are not templated again per host. Arguments that do more with the name (a subscript by it, which
fails where the name is missing) are still templated on each host, and the plan is the one of each host
read on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import shared_and_alone

from engine.variables import failing

PLAYBOOK = """
- name: nodes
  hosts: node
  gather_facts: false
  tasks:
    - name: copy the node certificate
      ansible.builtin.copy:
        src: "{{ cluster_dir }}/ssl/{{ node_name }}-{{ item }}"
        dest: "/etc/kubernetes/ssl/{{ item }}"
      loop: [kubelet.pem, kubelet-key.pem]
    - name: copy the node kubeconfig
      ansible.builtin.copy:
        src: "{{ cluster_dir }}/{{ inventory_hostname }}.kubeconfig"
        dest: /etc/kubernetes/kubelet.kubeconfig
    - name: node label
      ansible.builtin.command: "kubectl label node {{ inventory_hostname }} rack={{ racks[inventory_hostname] }}"
"""


def _fleet(root: Path, hosts: int) -> None:
    lines = ["[node]", *(f"n{n:03d}" for n in range(hosts)), "", "[node:vars]", "cluster_dir=/etc/cluster",
             "node_name='{{ inventory_hostname }}'"]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    racks = {f"n{n:03d}": f"r{n % 4}" for n in range(0, hosts, 2)}  # every other node has a rack
    (root / "group_vars").mkdir()
    (root / "group_vars" / "node.yml").write_text(f"racks: {racks!r}\n")
    (root / "site.yml").write_text(PLAYBOOK)


def _templated(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times each task's arguments are templated (engine.variables.failing.argument_failure)."""
    counts: dict[str, int] = {}
    original = failing.argument_failure

    def counted(task: object, templar: object) -> object:
        name = getattr(task, "name", "")
        counts[name] = counts.get(name, 0) + 1
        return original(task, templar)  # type: ignore[arg-type]

    monkeypatch.setattr(failing, "argument_failure", counted)
    return counts


def test_interpolated_names_are_templated_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 40)
    counts = _templated(monkeypatch)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    assert shared == alone
    outcomes = {(task, outcome) for task, _host, outcome, _reason in shared}
    assert {("copy the node certificate", "runs"), ("copy the node kubeconfig", "runs"), ("node label", "runs"),
            ("node label", "fails")} <= outcomes, outcomes
    counts.clear()
    shared_and_alone(tmp_path, monkeypatch)  # (shared first, then every host alone: 40 hosts each)
    assert counts["copy the node kubeconfig"] < 40 + 5, counts
    assert counts["copy the node certificate"] < 2 * 40 + 10, counts
    assert counts["node label"] >= 2 * 40, counts

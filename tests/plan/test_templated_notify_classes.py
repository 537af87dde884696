"""A templated ``notify`` at fleet scale (engine.flow.templated_notify, engine.flow.host_handlers): the
names it gives are rendered once per class of hosts whose variables at the task answer the names it
read alike (a group's variable, a value an earlier ``set_fact`` gave, the host's own name), and the
handlers' answers are found per combination of what the hosts rendered, not host by host. The plan
is the one rendering each host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import templated_notify
from engine.variables import change_classes

PLAYBOOK = """
- name: templated notifications
  hosts: all
  gather_facts: false
  tasks:
    - {name: pick, ansible.builtin.set_fact: {mount: "{{ '/var' if size | int > 1 else '/home' }}"}}
    - name: by the group
      ansible.builtin.debug: {msg: g}
      changed_when: true
      notify: "{{ 'reload ' ~ team }}"
    - name: by what was set
      ansible.builtin.debug: {msg: m}
      changed_when: "size | int != 2"
      notify: "Remount {{ mount }}"
    - name: by the name
      ansible.builtin.debug: {msg: n}
      changed_when: true
      notify: "{{ inventory_hostname[:2] }} changed"
  handlers:
    - {name: reload ops, ansible.builtin.debug: {msg: ops}}
    - {name: reload dba, ansible.builtin.debug: {msg: dba}}
    - {name: Remount /var, ansible.builtin.debug: {msg: var}}
    - {name: Remount /home, ansible.builtin.debug: {msg: home}}
    - {name: web topic, ansible.builtin.debug: {msg: web}, listen: we changed}
    - {name: db topic, ansible.builtin.debug: {msg: db}, listen: db changed}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} size={1 + n % 3}" + (" team=dba" if n == 5 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("team: ops\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (change_classes, "SHARING", False),
                               planned=planned_rows)


def test_a_templated_notify_is_rendered_class_by_class(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    rendered = hosts_asked(monkeypatch, templated_notify, "notified_names", 2)
    shared = planned_rows(root)
    assert shared == alone
    outcomes = {(task, host): outcome for task, host, outcome, _ in shared}
    assert outcomes["reload dba", "web05"] == "runs" and outcomes["reload dba", "web04"] == "skipped"
    assert outcomes["Remount /home", "db00"] == "runs" and outcomes["Remount /var", "db00"] == "skipped"
    assert outcomes["Remount /var", "db02"] == "runs"  # size 3: /var, changed
    assert outcomes["Remount /var", "db01"] == "skipped"  # size 2: /var, but no change reported
    assert outcomes["web topic", "web03"] == "runs" and outcomes["web topic", "db03"] == "skipped"
    by_group = [host for host in rendered if host != "web05"]
    # the group's notify twice (ops, dba), what was set's per size: not each of the 40 hosts per task;
    # the one reading the host's name is rendered on each
    assert len(by_group) < 40 + 10

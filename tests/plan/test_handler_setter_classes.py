"""Handlers that set facts or register results at fleet scale (engine.variables.setter_classes,
engine.variables.walk_classes): a handler's effects at its first flush point are shared between the
hosts of a class as any setter's are, and whether it ran on a host is the plan's answer, kept in the
host's walk key, so a task reading what a handler set no longer walks every host on its own. (A
handler's run at a later flush point is still each host's own.) The plan is the one walking and
following every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import shared_outcomes
from engine.variables import setter_classes, walk_classes

PLAYBOOK = """
- name: hardening with handlers that remember what they did
  hosts: all
  gather_facts: false
  tasks:
    - name: change on the big ones
      ansible.builtin.debug: {msg: c}
      changed_when: size | int > 1
      notify: [remount, mark reboot]
    - name: change on the gold ones
      ansible.builtin.debug: {msg: g}
      changed_when: tier | default('') == 'gold'
      notify: remember tier
    - ansible.builtin.meta: flush_handlers
    - {name: on the reboot mark, ansible.builtin.debug: {msg: r}, when: reboot_needed | default(false) | bool}
    - {name: on the remount, ansible.builtin.debug: {msg: m}, when: remounted is defined and remounted is not skipped}
    - {name: on the tier, ansible.builtin.debug: {msg: t}, when: remembered | default('none') == 'gold'}
    - {name: on both, ansible.builtin.debug: {msg: b}, when: reboot_needed | default(false) | bool and size | int == 3}
  handlers:
    - name: remount
      ansible.builtin.debug: {msg: "{{ size }}"}
      register: remounted
    - name: mark reboot
      ansible.builtin.set_fact: {reboot_needed: true}
    - name: remember tier
      ansible.builtin.set_fact: {remembered: "{{ tier }}"}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} size={1 + n % 3}" + (" tier=gold" if n % 4 == 1 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host walked and followed on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               (setter_classes, "SHARING", False), planned=planned_rows)


def test_walks_shared_past_handlers_that_set(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    asked = hosts_asked(monkeypatch, shared_outcomes, "earlier_key", 2)
    shared = planned_rows(root)
    assert shared == alone
    outcomes = {(task, host): outcome for task, host, outcome, _ in shared}
    assert outcomes["on the reboot mark", "web02"] == "runs" and outcomes["on the reboot mark", "web00"] == "skipped"
    assert outcomes["on the tier", "web01"] == "runs" and outcomes["on the tier", "web02"] == "skipped"
    assert outcomes["on both", "web02"] == "runs" and outcomes["on both", "web01"] == "skipped"
    assert 0 < len(asked) < 40 * 4  # each host's key at each task reading what the handlers set


def test_handlers_effects_are_followed_class_by_class(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    from engine.variables.host_runtime import Follower

    followed = hosts_asked(monkeypatch, Follower, "_follow", 2, lambda args: args[3].handler)
    assert planned_rows(root) == alone
    assert 0 < len(followed) < 40  # not each host for each of the three handlers

"""Handlers at a flush point after a ``meta: end_host`` that only the run decides: every host it may
have ended is given one outcome object ("runs only if the meta end_host ... did not end it"), so the
handlers' answers, which group hosts by the identity of what they read, are asked once per group of
hosts, not once per host (a CIS role's 38 handlers on 2,200 hosts asked 6,600 times each)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_cases import planned_rows

from engine.flow import host_handlers

PLAYBOOK = """
- name: hardened
  hosts: all
  gather_facts: false
  tasks:
    - name: probe
      ansible.builtin.command: /bin/true
      register: probe
      changed_when: false
    - name: end where the probe says
      ansible.builtin.meta: end_host
      when: probe.rc != 0
    - name: templated notifier
      ansible.builtin.copy: {dest: /tmp/x, content: x}
      notify: "restart {{ service }}"
    - name: plain notifier
      ansible.builtin.command: /bin/true
      notify: restart a
  handlers:
    - {name: restart a, ansible.builtin.debug: {msg: a}}
    - {name: restart b, ansible.builtin.debug: {msg: b}}
"""
HOSTS = 60


def _answers_asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The handler of each answer asked of a host at a flush point, from now on."""
    asked: list[str] = []
    original = host_handlers.Notifications.handler_outcomes

    def handler_outcomes(self: Any, handler: Any) -> Any:
        answer = original(self, handler)

        def counted(host: str, outcome: Any) -> Any:
            asked.append(handler.name)
            return answer(host, outcome)
        return counted

    monkeypatch.setattr(host_handlers.Notifications, "handler_outcomes", handler_outcomes)
    return asked


def test_handlers_asked_once_per_group_after_end_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["[a]", *(f"host{n:02d} service=a" for n in range(0, HOSTS, 2)),
             "", "[b]", *(f"host{n:02d} service=b" for n in range(1, HOSTS, 2))]
    (tmp_path / "inventory.ini").write_text("\n".join(lines) + "\n")
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    monkeypatch.chdir(tmp_path)
    asked = _answers_asked(monkeypatch)
    rows = planned_rows(tmp_path)
    handlers = {(task, outcome, reason) for task, _host, outcome, reason in rows if task.startswith("restart")}
    assert {(task, outcome) for task, outcome, _ in handlers} == {
        ("restart a", "depends"), ("restart b", "depends"), ("restart b", "skipped")}  # (b: not notified on a's)
    assert all("end_host" in reason for _task, outcome, reason in handlers if outcome == "depends")
    assert 0 < asked.count("restart a") < 10 and 0 < asked.count("restart b") < 10, asked

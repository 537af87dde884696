"""A handler's outcome on each host at a flush point (engine.flow.host_handlers) is worked out once
for the hosts whose notifiers have the same outcomes and report the same changes there, not once
per host: what notified it is found once per handler and flush. The plan is the one answering every
host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import planned_rows

from engine.flow.host_handlers import Notifications

PLAYBOOK = """
- name: handlers on a fleet
  hosts: all
  gather_facts: false
  tasks:
    - {name: configure, ansible.builtin.command: /bin/true, changed_when: true, notify: restart, when: managed}
    - {name: maybe, ansible.builtin.command: /bin/true, notify: [reload, restart], when: tier == 'gold'}
    - {name: flush, ansible.builtin.meta: flush_handlers, when: managed or tier == "gold"}
    - {name: later, ansible.builtin.command: /bin/true, changed_when: false, notify: reload}
  handlers:
    - {name: restart, ansible.builtin.debug: {msg: restart}, when: not quiet | default(false)}
    - {name: reload, ansible.builtin.debug: {msg: reload}}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        lines += [f"{group}{n:02d} tier={'gold' if n % 3 == 0 else 'bronze'}" + (" quiet=true" if n % 5 == 0 else "")
                  for n in range(15)]
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "web.yml").write_text("managed: true\n")
    (root / "group_vars" / "db.yml").write_text("managed: false\n")
    (root / "site.yml").write_text(PLAYBOOK)


def test_handler_answers_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    answered: list[str] = []
    answer = Notifications._answer

    def counted(self, handler, host, *args):  # type: ignore[no-untyped-def]
        answered.append(host)
        return answer(self, handler, host, *args)

    monkeypatch.setattr(Notifications, "_answer", counted)
    shared = planned_rows(tmp_path)
    asked = len(answered)

    def each_host(self, handler):  # type: ignore[no-untyped-def] - every host answered on its own
        notifiers, looped = self._notifiers(handler)
        templated = [notifier for name, found in self.flushing.items() if "{{" in name for notifier in found]
        return lambda host, outcome: self._waiting(host) if self.flush is not None and host in self.flush[1] \
            else counted(self, handler, host, outcome, notifiers, looped, templated)

    def each_answer(self, handler, hosts, outcomes, kept):  # type: ignore[no-untyped-def] - host by host
        answer = self.handler_outcomes(handler)
        return ({host: outcomes[host] if outcomes[host] is kept else answer(host, outcomes[host]) for host in hosts},
                any(outcomes[host] is not kept for host in hosts))

    monkeypatch.setattr(Notifications, "handler_outcomes", each_host)
    monkeypatch.setattr(Notifications, "handler_answers", each_answer)
    answered.clear()
    alone = planned_rows(tmp_path)
    assert shared == alone
    handled = {(task, outcome) for task, _, outcome, _ in shared if task in ("restart", "reload")}
    assert {("restart", "runs"), ("restart", "skipped"), ("reload", "runs"), ("reload", "skipped")} <= handled
    assert 0 < asked * 3 < len(answered)  # the handlers' hosts at each flush point

"""A play with a ``meta: end_play`` (an audit-only switch after the facts it gathers:
``when: audit_only``) still shares the walk of the setters before a task by class
(engine.variables.walk_classes): whether an ender before the task ended the play for a host is what
the plan says of it, asked for each host and kept in its class key, instead of every host walking
every setter at each task that reads what they set. The plan is the one walking every host on its
own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import shared_outcomes
from engine.variables import walk_classes

PLAYBOOK = """
- name: hardening with an audit-only switch
  hosts: all
  gather_facts: false
  tasks:
    - {name: pick, ansible.builtin.set_fact: {x: "{{ a if flag | bool else b }}"}}
    - {name: state, ansible.builtin.set_fact: {state: "{{ 'strict' if tier | default('') == 'gold' else 'low' }}"}}
    - {name: audit, ansible.builtin.debug: {msg: audit}, when: audit_only | bool}
    - {name: stop when auditing, ansible.builtin.meta: end_play, when: audit_only | bool}
    - {name: on x, ansible.builtin.debug: {msg: a}, when: x | int > 1}
    - {name: on both, ansible.builtin.debug: {msg: b}, when: state == 'strict' and x | int > 0}
    - {name: on x again, ansible.builtin.debug: {msg: c}, when: x | int == 3}
    - {name: on the state, ansible.builtin.debug: {msg: d}, when: state != 'strict'}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} flag={'true' if n < 3 else 'false'} b={1 + n % 3}"
                         + (" tier=gold" if n % 4 == 1 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("a: 2\naudit_only: false\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_walks_shared_past_an_end_play(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    asked = hosts_asked(monkeypatch, shared_outcomes, "earlier_key", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"}
    assert 0 < len(asked) * 2 < 40 * 5  # each host's key at each task reading what setters set


def test_an_end_play_that_ran_tells_hosts_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the end_play runs (``audit_only`` true), the tasks after it run nowhere: the same plan
    whether walks are shared or not."""
    _fleet(tmp_path)
    (tmp_path / "group_vars" / "all.yml").write_text("a: 2\naudit_only: true\n")
    monkeypatch.chdir(tmp_path)
    shared = planned_rows(tmp_path)
    monkeypatch.setattr(walk_classes, "SHARING", False)
    assert planned_rows(tmp_path) == shared

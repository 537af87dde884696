"""Steps of the walk of the setters before a task that the plan decides per host still let hosts
share the walk by class (engine.variables.walk_classes): whether a ``meta: end_host`` (an
audit-only switch, ``when: audit_only``) ended the play for a host, and whether a task of a role the
play runs twice (a dependency of two roles) ran on it, are asked of each host and kept in its key,
instead of every host walking every setter at each task reading what they set. While the play is
planned, a setter's effects followed through such a step are shared by class too
(engine.variables.setter_classes), not followed on each host. The plan is the one walking and
following every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import classes_followed, fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import host_outcome
from engine.variables import host_runtime, setter_classes, walk_classes

PLAYBOOK = """
- name: hardening with an audit-only switch per host
  hosts: all
  gather_facts: false
  tasks:
    - {name: pick, ansible.builtin.set_fact: {x: "{{ a if flag | bool else b }}"}}
    - {name: stop when auditing, ansible.builtin.meta: end_host, when: audit_only | bool}
    - {name: state, ansible.builtin.set_fact: {state: "{{ 'strict' if tier | default('') == 'gold' else 'low' }}"}}
    - {name: on x, ansible.builtin.debug: {msg: a}, when: x | int > 1}
    - {name: on both, ansible.builtin.debug: {msg: b}, when: state == 'strict' and x | int > 0}
    - {name: on x again, ansible.builtin.debug: {msg: c}, when: x | int == 3}
    - {name: on the state, ansible.builtin.debug: {msg: d}, when: state != 'strict'}
"""

ROLES = """
- name: two roles sharing a dependency
  hosts: all
  gather_facts: false
  roles: [first, second]
  tasks:
    - {name: on the check, ansible.builtin.debug: {msg: a}, when: checked.msg == 'on'}
    - {name: on the level, ansible.builtin.debug: {msg: b}, when: level | int > 1}
"""


def _hosts(root: Path, playbook: str) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} flag={'true' if n < 3 else 'false'} b={1 + n % 3}"
                         + (" tier=gold" if n % 4 == 1 else "") + (" audit_only=true" if n % 5 == 2 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("a: 2\naudit_only: false\n")
    (root / "site.yml").write_text(playbook)


def _fleet(root: Path) -> None:
    _hosts(root, PLAYBOOK)


def _roles(root: Path) -> None:
    _hosts(root, ROLES)
    common = ("- {name: check, ansible.builtin.debug: {msg: \"{{ 'on' if flag | bool else 'off' }}\"},"
              " register: checked, when: b | int > 1}\n"
              "- {name: level, ansible.builtin.set_fact: {level: \"{{ b | int + 1 }}\"}}\n")
    for role, tasks in (("common", common),
                        ("first", "- {name: one, ansible.builtin.debug: {msg: one}}\n"),
                        ("second", "- {name: two, ansible.builtin.debug: {msg: two}}\n")):
        (root / "roles" / role / "tasks").mkdir(parents=True)
        (root / "roles" / role / "tasks" / "main.yml").write_text(tasks)
        if role != "common":
            (root / "roles" / role / "meta").mkdir()
            (root / "roles" / role / "meta" / "main.yml").write_text("dependencies: [common]\n")


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host walked on its own
_ROLES_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


@pytest.fixture()
def roles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    every_host_its_own = (host_outcome, "per_host_vars_files", lambda _play: True)
    return fleet_planned_alone(tmp_path, _roles, _ROLES_ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               (setter_classes, "SHARING", False), every_host_its_own, planned=planned_rows)


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The host of each walk of the setters before a task, from now on."""
    return hosts_asked(monkeypatch, host_runtime.Follower, "earlier_layers", 2)


def test_walks_shared_past_an_end_host(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    walks = _walks(monkeypatch)
    shared = planned_rows(root)
    assert shared == alone
    ended = {host for task, host, outcome, _ in shared if task == "on the state" and outcome == "skipped"}
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"} and ended
    assert 0 < len(walks) < 40  # not each host at each task reading what setters set


def test_walks_shared_past_a_role_run_twice(roles: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = roles
    walks = _walks(monkeypatch)
    followed = classes_followed(monkeypatch)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for task, _, outcome, _ in shared if task.startswith("on the")} >= {"runs", "skipped"}
    assert 0 < len(walks) < 40
    # the dependency's setters followed once per class of hosts while the play is planned and once it is
    assert 0 < len([host for task, host in followed if task == "check"]) < 20

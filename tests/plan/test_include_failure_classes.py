"""Per-host includes whose file does not load (engine.flow.host_includes): a role that is not
installed, a task file named from a group's value that does not exist. The include fails the hosts
it runs on, in the same words for the hosts of a class: they take the first host's failure instead
of each host's variables at the include being worked out again (a host whose own inventory line
sets a name the include's arguments read is still worked out on its own: the words may name its
line). The plan is the one loading each host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import change_classes, task_variables

PLAYBOOK = """
- name: includes that do not load
  hosts: all
  gather_facts: false
  tasks:
    - name: absent role
      ansible.builtin.include_role: {name: acme.absent}
      when: "'web' in group_names"
    - name: absent file
      ansible.builtin.include_tasks: "missing_{{ kind }}.yml"
      when: "'db' in group_names"
    - {name: after them, ansible.builtin.debug: {msg: r}}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} b={1 + n % 3}" + (" kind=odd" if n == 7 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "db.yml").write_text("kind: back\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(
        tmp_path, _fleet, _ALONE, monkeypatch, (change_classes, "SHARING", False), planned=planned_rows
    )


def test_an_include_that_does_not_load_fails_class_by_class(
    fleet: tuple[Path, list],  # type: ignore[type-arg]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, alone = fleet
    at_include = {
        include: hosts_asked(
            monkeypatch, task_variables, "variables_at", 2, lambda args, include=include: args[3].name == include
        )
        for include in ("absent role", "absent file")
    }
    shared = planned_rows(root)
    assert shared == alone
    for include, group in (("absent role", "web"), ("absent file", "db")):
        failed = {host for task, host, outcome, _ in shared if task == include and outcome == "fails"}
        assert failed == {f"{group}{n:02d}" for n in range(20)}
        assert len(set(at_include[include])) <= 3  # a class's first host, not each of the 20 hosts
    assert "db07" in at_include["absent file"]  # its own line sets kind: worked out on its own

"""The items of a looping include, as keys to order a host's runs by, are templated once per host
(engine.variables.include_item_order): each host's order is compared with the first hosts' items
at every task the include loads, which templated the items of fifty hosts again for every host and
task. The plan is the one templating them at every comparison; the items of a host whose values
change them (a set_fact before the include, per host) are still its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, planned_by_play

from engine.variables import include_item_order, loop_vars, report

PLAYBOOK = """
- name: ports
  hosts: all
  gather_facts: false
  tasks:
    - {name: extra port, ansible.builtin.set_fact: {extra: "{{ 9000 + weight | int }}"}, when: weight | int > 6}
    - name: each port
      ansible.builtin.include_tasks: port.yml
      loop: "{{ ports + ([extra | int] if extra is defined else []) }}"
      loop_control: {loop_var: port}
"""

PORT = """
- {name: open, ansible.builtin.debug: {msg: "{{ port }}"}, when: port != 22}
- {name: high, ansible.builtin.debug: {msg: "{{ port }}"}, when: port | int > 1000}
- {name: own, ansible.builtin.debug: {msg: "{{ port }}"}, when: port | int == 9000 + weight | int}
"""


def _fleet(root: Path) -> None:
    lines = ["[web]", *(f"w{n:02d} weight={n % 9}" for n in range(16)), "", "[db]",
             *(f"d{n:02d} weight={n % 5}" for n in range(8)), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "web.yml").write_text("ports: [22, 80, 443]\n")
    (root / "group_vars" / "db.yml").write_text("ports: [22, 5432]\n")
    (root / "port.yml").write_text(PORT)
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan templating the items at every comparison


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (include_item_order, "KEEP", False))


def _templated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The includes' items templated, one entry per templating."""
    counted: list[str] = []
    original = loop_vars.loop_scopes

    def counting(task, templar):  # type: ignore[no-untyped-def]
        if task.name == "each port":
            counted.append(task.name)
        return original(task, templar)

    monkeypatch.setattr(loop_vars, "loop_scopes", counting)
    return counted


def test_item_keys_once_per_host(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    templated = _templated(monkeypatch)
    shared = planned_by_play(root)
    assert shared == alone
    outcomes = {(task, host): outcome for _, _, rows in shared for task, host, outcome, _ in rows}
    assert outcomes[("own", "w07")] == "runs"  # its own extra port, set before the include
    assert outcomes[("own", "w01")] == "skipped"
    assert {outcome for outcome in outcomes.values()} >= {"runs", "skipped"}
    keys = templated[:]
    templated.clear()
    with monkeypatch.context() as alone_again:
        alone_again.setattr(include_item_order, "KEEP", False)
        planned_by_play(root)
    assert len(keys) * 3 < len(templated)  # had each comparison templated the items again



def test_item_order_once_per_host(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """The order a host runs the items in, compared with the first hosts' items, is worked out once
    per host and include while nothing it reads changes, not at every task and setter run the
    include loads."""
    root, alone = fleet
    worked: list[str] = []
    original = report.kept_item_order

    def counting(plan, play_plan, host, include, order):  # type: ignore[no-untyped-def]
        def work():  # type: ignore[no-untyped-def]
            worked.append(host.name)
            return order()
        return original(plan, play_plan, host, include, work)

    monkeypatch.setattr(report, "kept_item_order", counting)
    assert planned_by_play(root) == alone
    assert worked and len(worked) == len(set(worked))  # each host's order once (22 orders for 14 hosts before)

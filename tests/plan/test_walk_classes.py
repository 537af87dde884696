"""The walk of the setters before a task is shared between the hosts whose walks read the same
(engine.variables.walk_classes): the plan of a fleet is what walking every host on its own gives,
and the hosts are walked a few times, not once each. A setter's effects that read what a setter
before it set (a register whose ``when`` reads a set_fact of an inventory value) make that setter's
reads part of the key too."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import earlier_key, walk_classes

PLAYBOOK = """
- name: chains of setters
  hosts: all
  gather_facts: false
  tasks:
    - {name: state, ansible.builtin.set_fact: {state: "{{ 'strict' if tier | default('') == 'gold' else 'low' }}"}}
    - {name: probe, ansible.builtin.command: /bin/true, register: probe, when: state == 'strict'}
    - {name: after probe, ansible.builtin.debug: {msg: a}, when: probe is not skipped}
    - {name: rack size, ansible.builtin.set_fact: {size: "{{ rack | int * 2 }}"}, when: weight | int > 2}
    - {name: on the size, ansible.builtin.debug: {msg: b}, when: size | default(0) | int > 3}
    - {name: named, ansible.builtin.set_fact: {last: "{{ inventory_hostname[-1] }}"}}
    - {name: on the name, ansible.builtin.debug: {msg: c}, when: last == '3' and probe is skipped}
"""


def _fleet(root: Path) -> None:
    lines, n = [], 0
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for _ in range(10):
            extra = (f" weight={n % 5}" if n % 3 == 0 else "") + (" tier=gold" if n % 4 == 1 else "")
            lines.append(f"h{n:02d} rack={n % 3}{extra}")
            n += 1
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("weight: 1\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host walked on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_shared_walks_change_no_outcome(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    walked = hosts_asked(monkeypatch, earlier_key, "_walked", 3)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} >= {"runs", "skipped"}
    assert 0 < len(walked) < 20 * 3  # hosts x tasks reading what setters set, had each host been walked


def test_the_setters_before_a_setter_count(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """Keyed by the reads of the setters of the names read alone (not of those they read in turn),
    a host without a tier would be given a gold host's walk at 'after probe'."""
    root, alone = fleet
    original = walk_classes._steps

    def own_setters_only(follower, play_plan, task, names):  # type: ignore[no-untyped-def]
        found = original(follower, play_plan, task, names)
        return [step for step in found if step[1].name != "state"] if found is not None and names else found

    monkeypatch.setattr(walk_classes, "_steps", own_setters_only)
    assert planned_rows(root) != alone


def test_a_host_key_once_per_host_and_reading(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """What a walk reads of a host is worked out once per host, names read and inventory, not
    again at every task of the play that looks its walk up (asked of one host or of many at once)."""
    root, alone = fleet
    asked, made = [], []
    key, keys, now = walk_classes._host_key, walk_classes._host_keys, walk_classes._host_keys_now
    monkeypatch.setattr(walk_classes, "_host_key", lambda *args: asked.append(args[2].name) or key(*args))
    monkeypatch.setattr(walk_classes, "_host_keys", lambda *args: asked.extend(args[3]) or keys(*args))
    monkeypatch.setattr(walk_classes, "_host_keys_now", lambda *a: made.extend(h.name for h in a[2]) or now(*a))
    assert planned_rows(root) == alone
    assert 0 < len(made) < len(asked)

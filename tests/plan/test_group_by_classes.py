"""The hosts of a ``group_by`` task are templated once per class of hosts that give the same answers
(engine.variables.change_classes): the groups every host joins, so the plays on them and what their
tasks do, are what templating each host on its own gives. Each part of the class key is needed:
leaving one out gives another plan here."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import classes_followed, fleet_planned_alone, planned_by_play, without_key_part

PLAYBOOK = """
- name: classify
  hosts: all
  gather_facts: false
  tasks:
    - {name: a fact per host, ansible.builtin.set_fact: {tier_fact: "{{ 'hot' if rack | int % 3 == 0 else 'cold' }}"}}
    - {name: by a group variable, ansible.builtin.group_by: {key: "dc_{{ dc }}"}}
    - {name: by what an earlier task set, ansible.builtin.group_by: {key: "t_{{ tier_fact }}"}}
    - {name: by the host's own line, ansible.builtin.group_by: {key: "r_{{ rack }}", parents: [racks]}}
    - {name: by a template of a host value, ansible.builtin.group_by: {key: "z_{{ zone_label }}"}}
    - {name: by the host's name, ansible.builtin.group_by: {key: "n_{{ inventory_hostname[-1] }}"}}
    - name: by the host's groups, looped
      ansible.builtin.group_by: {key: "{{ item.key }}"}
      when: group_names | intersect(item.value) | length > 0
      loop: "{{ mappings | dict2items }}"
      vars:
        mappings: {front: [web], back: [db, cache]}
    - {name: only some, ansible.builtin.group_by: {key: heavy}, when: weight | int > 5}
- name: on the groups made
  hosts: "t_hot:&dc_east:n_1:n_3:racks:front:heavy"
  gather_facts: false
  tasks:
    - {name: read them, ansible.builtin.debug: {msg: "{{ group_names | join(',') }}"}, when: "'z_a-x' in group_names"}
- name: on a group by an earlier task
  hosts: t_cold
  gather_facts: false
  tasks:
    - {name: cold ones, ansible.builtin.debug: {msg: c}, when: "'back' in group_names"}
"""


def _fleet(root: Path) -> None:
    lines, n = [], 0
    for dc in ("east", "west"):
        for group in ("web", "db", "cache"):
            lines.append(f"[{dc}_{group}]")
            for _ in range(4):
                extra = f" weight={n % 9}" if n % 4 == 0 else ""
                lines.append(f"h{n:02d} rack={n % 5} zone={'ab'[n % 2]}{extra}")
                n += 1
            lines.append("")
        lines += [f"[{dc}:children]", *(f"{dc}_{group}" for group in ("web", "db", "cache")), ""]
    for group in ("web", "db", "cache"):
        lines += [f"[{group}:children]", f"east_{group}", f"west_{group}", ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("weight: 1\nzone_label: \"{{ zone }}-x\"\n")
    (root / "group_vars" / "east.yml").write_text("dc: east\n")
    (root / "group_vars" / "west.yml").write_text("dc: west\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host templated, once for the tests


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch)


def test_classes_change_no_group(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    templated = classes_followed(monkeypatch)
    shared = planned_by_play(root)
    assert shared == alone
    plays = {name: hosts for name, hosts, _ in shared}
    assert 0 < len(plays["on the groups made"]) < 24 and 0 < len(plays["on a group by an earlier task"]) < 24
    assert len(set(templated)) < 24 * 7 / 2  # hosts x group_by tasks, had each host been templated


@pytest.mark.parametrize("left_out", ["_inventory", "_earlier", "_name", "_groups"])
def test_every_part_of_the_key_counts(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch,  # type: ignore[type-arg]
                                      left_out: str) -> None:
    root, alone = fleet
    without_key_part(monkeypatch, left_out)
    assert planned_by_play(root) != alone


def test_a_condition_records_what_it_reads() -> None:
    """A condition is an expression: the names it reads are those of it wrapped in ``{{ }}``."""
    from engine.templating.read_names import names_recorded
    from engine.templating.templar import Templar

    templar = Templar({"group_names": ["web"], "item": {"value": ["web"]}}, bounded=True)
    with names_recorded() as read:
        assert templar.evaluate("group_names | intersect(item.value) | length > 0")
    assert read >= {"group_names", "item"}

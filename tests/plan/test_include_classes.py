"""The hosts of an include whose file only the run names (engine.flow.host_includes) are taken
class by class: a host whose variables answer what the first host's arguments read alike loads
what that host loaded. The plan is what loading each host's file on its own gives; each part of
the key that tells hosts apart here is needed (leaving it out gives another plan)."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import classes_followed, fleet_planned_alone, hosts_asked, planned_by_play, without_key_part

from engine.variables import change_classes

PLAYBOOK = """
- name: base
  hosts: all
  gather_facts: false
  tasks:
    - {name: a kind per host, ansible.builtin.set_fact: {kind: "{{ 'heavy' if weight | int > 5 else 'light' }}"}}
    - {name: by os family, ansible.builtin.include_tasks: "os_{{ os_family }}.yml"}
    - {name: by what an earlier task set, ansible.builtin.include_tasks: "kind_{{ kind }}.yml"}
    - {name: by the host's name, ansible.builtin.include_tasks: "name_{{ inventory_hostname[-1] }}.yml"}
    - {name: a file some hosts lack, ansible.builtin.include_tasks: "rack_{{ rack }}.yml"}
    - name: a fact only the run knows
      ansible.builtin.include_tasks: "f_{{ ansible_facts.system | default('x') }}.yml"
"""


def _fleet(root: Path) -> None:
    lines, n = [], 0
    for dc in ("east", "west"):
        lines.append(f"[{dc}]")
        for _ in range(10):
            extra = " os_family=suse" if n % 7 == 0 else ""
            lines.append(f"h{n:02d} rack={n % 3} weight={n % 9}{extra}")
            n += 1
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "east.yml").write_text("os_family: debian\n")
    (root / "group_vars" / "west.yml").write_text("os_family: redhat\n")
    for name in ("os_debian", "os_redhat", "os_suse", "kind_heavy", "kind_light", "rack_0", "rack_1", "f_x",
                 *(f"name_{i}" for i in range(10))):
        (root / f"{name}.yml").write_text(f"- {{name: in {name}, ansible.builtin.debug: {{msg: {name}}}}}\n"
                                          f"- {{name: tier of {name}, ansible.builtin.debug: {{msg: t}}, "
                                          f"when: weight | int > 2}}\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host's include loaded on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch)


def test_classes_load_what_each_host_loads(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    followed = classes_followed(monkeypatch)
    shared = planned_by_play(root)
    assert shared == alone
    tasks = {task for _, _, outcomes in shared for task, _, _, _ in outcomes}
    assert {"in os_suse", "in kind_heavy", "in name_7", "in rack_1"} <= tasks
    loaded = [host for task, host in followed if task == "by os family"]
    assert 0 < len(loaded) < 20  # one per class, not one per host


@pytest.mark.parametrize("left_out", ["_inventory", "_earlier", "_name"])
def test_every_part_of_the_key_counts(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch,  # type: ignore[type-arg]
                                      left_out: str) -> None:
    root, alone = fleet
    without_key_part(monkeypatch, left_out)
    assert planned_by_play(root) != alone


def test_twins_key_their_inventory_once(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """Hosts the inventory answers alike for the names read (the same groups, their own variables
    not read) are keyed by the inventory once per twin token; what the tasks before set, host by host."""
    root, alone = fleet
    asked: dict[str, list[str]] = {"_inventory": [], "_earlier": []}

    def counted(part):  # type: ignore[no-untyped-def]
        def found(classes, host):  # type: ignore[no-untyped-def]
            asked[part.__name__].append(host.name)
            return part(classes, host)

        found.__name__ = part.__name__
        return found

    earlier = counted(change_classes._earlier)  # noqa: SLF001 - (the key tells this part by itself)
    monkeypatch.setattr(change_classes, "_earlier", earlier)
    monkeypatch.setattr(change_classes, "KEY_PARTS", tuple(
        counted(part) if part.__name__ == "_inventory" else earlier if part.__name__ == "_earlier" else part
        for part in change_classes.KEY_PARTS))
    assert planned_by_play(root) == alone
    assert len(asked["_inventory"]) < len(asked["_earlier"])


def test_walk_classes_key_what_earlier_tasks_set(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """What the tasks before set on the include's hosts is worked out once per class of the walk
    before it (engine.variables.walk_classes.host_classes), not host by host; the plan is the same."""
    from engine.variables import earlier_key

    root, alone = fleet
    asked = hosts_asked(monkeypatch, earlier_key, "earlier_key", 2,
                        lambda args: args[3].name == "by what an earlier task set")
    assert planned_by_play(root) == alone
    assert 0 < len(asked) <= 9  # one per weight, what the set_fact before reads; not one per host (20)

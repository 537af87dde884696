"""Hosts the inventory answers alike for every name (the same groups, no variables of their own,
the same cached facts: engine.variables.inventory_twins.inventory_twin) share their inventory key at each
task instead of each working it out: the plan is the one that keys every host on its own, on
bench/fleet.py's fleet and each of its extra shapes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from fleet import generate  # noqa: E402
from plan_cases import calls_counted  # noqa: E402

from engine.flow import host_outcome  # noqa: E402
from engine.flow.host_plan import plan_hosts  # noqa: E402
from engine.flow.plan import RunOptions, make_plan  # noqa: E402
from engine.parsing.source import files_changed  # noqa: E402
from engine.variables import inventory_twins  # noqa: E402


def _outcomes(root: Path) -> tuple[dict[tuple[str, str, str], tuple[str, str]], int]:
    files_changed()
    with pytest.MonkeyPatch.context() as patch:
        keyed = calls_counted(patch, host_outcome._SharedOutcomes, "_entry_of")
        plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")]))
        found = {(play.name, f"{task.name}:{task.line}", host): (outcome.outcome, outcome.reason)
                 for play in plan_hosts(plan) for task in play.tasks for host, outcome in task.hosts.items()}
    return found, len(keyed)


@pytest.mark.parametrize("shape", [{}, {"looping_include": True}, {"group_by": True}, {"os_vars": True}])
def test_twins_share_their_key_and_the_plan_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        shape: dict[str, bool]) -> None:
    generate(tmp_path, 120, **shape)
    shared, keyed = _outcomes(tmp_path)
    monkeypatch.setattr(inventory_twins, "inventory_twin", lambda *args: None)
    alone, keyed_alone = _outcomes(tmp_path)
    assert shared == alone
    assert keyed < keyed_alone


def test_a_hosts_twin_parts_are_read_once_for_every_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a host's twin token takes from its inventory levels (its groups, the names of its own
    variables) is read once per host and inventory, not again for each play of the plan."""
    generate(tmp_path, 60)
    asked: list[str] = []
    original = inventory_twins.host_part

    def part(plan, play_plan, host, inventory):  # type: ignore[no-untyped-def]
        asked.append(host.name)
        return original(plan, play_plan, host, inventory)

    monkeypatch.setattr(inventory_twins, "host_part", part)
    _outcomes(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    assert len(plan.plays) > 1
    assert asked and len(asked) == len(set(asked))  # each host's once, whatever the plays

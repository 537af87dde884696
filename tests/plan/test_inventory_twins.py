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


_DIRECTORY_PLAY = """\
- hosts: all
  gather_facts: false
  tasks:
    - debug: msg=big
      when: size | int > 2
    - debug: msg={{ role_name_of_host | default('none') }}
      when: inventory_hostname != 'w1'
"""


@pytest.mark.parametrize("vars_beside", [False, True])
def test_parts_are_read_once_for_playbook_directories_without_vars_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vars_beside: bool) -> None:
    """Plays in two playbook directories with no host_vars or group_vars beside them take the same
    parts of their hosts' tokens (read once per host), and the plan is the one of hosts keyed one by
    one; a directory with group_vars is read on its own."""
    for directory in ("one", "two"):
        (tmp_path / directory).mkdir()
        (tmp_path / directory / "play.yml").write_text(_DIRECTORY_PLAY)
    if vars_beside:
        (tmp_path / "two" / "group_vars").mkdir()
        (tmp_path / "two" / "group_vars" / "db.yml").write_text("size: 1\n")
    (tmp_path / "site.yml").write_text("- import_playbook: one/play.yml\n- import_playbook: two/play.yml\n")
    (tmp_path / "inventory.ini").write_text("[web]\nw[1:30]\n[db]\nd[1:20] role_name_of_host=db\n"
                                            "[web:vars]\nsize=3\n[db:vars]\nsize=5\n")
    asked: list[str] = []
    original = inventory_twins.host_part

    def part(plan, play_plan, host, inventory):  # type: ignore[no-untyped-def]
        asked.append(host.name)
        return original(plan, play_plan, host, inventory)

    monkeypatch.setattr(inventory_twins, "host_part", part)
    shared, _ = _outcomes(tmp_path)
    assert len(asked) == (100 if vars_beside else 50)
    assert {outcome for outcome, _ in shared.values()} >= {"runs", "skipped"}
    monkeypatch.setattr(inventory_twins, "inventory_twin", lambda *args: None)
    alone, _ = _outcomes(tmp_path)
    assert shared == alone

"""A play on a group whose child groups' own children ansible walks in a set's order
(engine.inventory.host_order; recorded: tests/variables/scenarios/nested_group_order, where
ansible's runs under other hash seeds listed ``groups['db']`` and the batches in other orders):
the plan says its hosts' order is the run's and leaves the host a ``run_once`` task runs on to
the run; a play on groups whose order is fixed keeps both decided."""

from __future__ import annotations

from pathlib import Path

import pytest

SCENARIO = Path(__file__).resolve().parent.parent / "variables" / "scenarios" / "nested_group_order"


@pytest.fixture()
def plays(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import make_plan
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options

    monkeypatch.chdir(SCENARIO)
    options, _ = launch_options(build_parser().parse_args(["plan", "site.yml", "-i", "inventory.yml"]), SourceCache())
    return plan_hosts(make_plan(options, dynamic_inventory=False))


def test_run_once_host_is_the_runs(plays: list[object]) -> None:
    from engine.flow.outcomes import DEPENDS

    leader = next(task for task in plays[1].tasks if task.name == "Leader of the batch")  # type: ignore[attr-defined]
    assert {outcome.outcome for outcome in leader.hosts.values()} == {DEPENDS}
    assert all("group 'db'" in outcome.reason for outcome in leader.hosts.values())


def test_play_order_said_to_be_the_runs(plays: list[object]) -> None:
    from playbook_ls.cli.plan import as_json, as_text

    orders = [play.order for play in plays]  # type: ignore[attr-defined]
    assert orders[0] is not None and "group 'db'" in orders[0]
    assert orders[2] is None  # web:flat
    assert "order" in as_json(plays)["plays"][0] and "order" not in as_json(plays)["plays"][2]
    assert "in an order only the run knows" in as_text(plays).splitlines()[0]

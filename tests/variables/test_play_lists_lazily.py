"""``playbook-ls vars`` plans the run (to know the hosts the play lists have lost) only when a
template reads one of those lists: on a fleet, planning costs as much as ``plan``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from var_values import run_options  # noqa: E402

from engine.flow.plan import make_plan  # noqa: E402
from engine.variables.host_includes import load_host_includes  # noqa: E402
from engine.variables.report import find_task  # noqa: E402
from engine.variables.task_variables import variables_at

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "failed_hosts_play_lists"


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    import engine.flow.host_plan

    calls: list[int] = []
    real = engine.flow.host_plan.plan_hosts
    monkeypatch.setattr(engine.flow.host_plan, "plan_hosts", lambda plan: calls.append(1) or real(plan))
    monkeypatch.chdir(SCENARIO)
    return calls


def _probe(names: list[str]) -> dict[str, object]:
    plan = make_plan(run_options(SCENARIO), dynamic_inventory=False, select_tasks=False)
    load_host_includes(plan)
    play_plan = plan.plays[0]
    task = find_task(play_plan.play, str(SCENARIO / "site.yml"), 13)
    host = next(h for h in play_plan.hosts if h.name == "app1")
    return {name: r.value for name, r in variables_at(plan, play_plan, host, task, names).variables.items()}


def test_values_that_read_no_play_list_plan_nothing(planned: list[int]) -> None:
    assert _probe(["all_hosts"])["all_hosts"] == ["app1", "app2", "app3", "app4"]
    assert planned == []


def test_a_play_list_read_plans_the_run_once(planned: list[int]) -> None:
    values = _probe(["live", "batch"])
    assert planned == [1]
    assert values["live"] == values["batch"] == ["app1", "app3"]

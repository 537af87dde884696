"""What variables_at works out of a task's levels whatever the names asked (the raw values, the
loop's items, the levels with the items on top), kept with the levels and given at each call for
them (``kept``), gives the answers a reading of its own gives: name by name, item by item."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from var_values import run_options  # noqa: E402

from engine.flow.plan import make_plan, play_tasks  # noqa: E402
from engine.variables.host_includes import load_host_includes  # noqa: E402
from engine.variables.report import layers_at  # noqa: E402
from engine.variables.task_variables import Resolved, variables_at  # noqa: E402

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def _shown(resolved: Resolved) -> Any:
    return (resolved.value, resolved.unknown, resolved.template, [(d.level, d.label, d.value) for d in
                                                                  resolved.definitions],
            None if resolved.per_item is None else [_shown(each) for each in resolved.per_item])


@pytest.mark.parametrize("scenario", ["app_deploy_includes", "deploy6_dns_zones", "deploy_user_loops"])
def test_kept_readings_answer_as_their_own(scenario: str, monkeypatch: pytest.MonkeyPatch) -> None:
    root = SCENARIOS / scenario
    monkeypatch.chdir(root)
    plan = make_plan(run_options(root), dynamic_inventory=False, select_tasks=False)
    load_host_includes(plan)
    looped = 0
    for play_plan in plan.plays:
        for task in play_tasks(play_plan.play):
            for host in play_plan.hosts[:2]:
                levels = layers_at(plan, play_plan, host, task)
                names = sorted({name for layer in levels[0] for name in layer.values})[:40] + ["item", "nowhere"]
                own = variables_at(plan, play_plan, host, task, names, levels=levels)
                kept: dict[Any, Any] = {}
                first = variables_at(plan, play_plan, host, task, names[::2], levels=levels, kept=kept)
                second = variables_at(plan, play_plan, host, task, names[1::2], levels=levels, kept=kept)
                both = {**first.variables, **second.variables}
                assert {n: _shown(r) for n, r in both.items()} == {n: _shown(r) for n, r in own.variables.items()}
                per_item = both["item"].per_item
                if per_item is not None:  # each item as a reading of that item alone has it
                    looped += 1
                    for index, each in enumerate(per_item):
                        alone = variables_at(plan, play_plan, host, task, names, item=index).variables
                        assert _shown(each) == _shown(alone["item"])
                        assert {n: _shown(r) for n, r in alone.items() if own.variables[n].per_item} == \
                            {n: _shown(r.per_item[index]) for n, r in own.variables.items() if r.per_item}
    assert looped  # the scenario has looped tasks: their items are kept too

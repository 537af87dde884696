"""Inherited keyword values (when, become, environment, ...) equal ansible-core's, task by task.

Loads each scenario with ansible-core's own classes (in a subprocess, see ansible_keywords.py)
and compares every listed task's effective keywords with the engine's. Needs ansible-core.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ansible_keywords import KEYWORDS
from harness import Scenario, load_scenarios

from engine.loading.keywords import INHERITED, Merge
from engine.loading.model import Task
from engine.loading.resolve import Resolver

pytest.importorskip("ansible")
HERE = Path(__file__).resolve().parent
SCENARIOS = [s for s in load_scenarios() if "error" not in s.name and s.env == {}]


def ours(task: Task, keyword: str) -> object:
    value = task.effective(keyword)
    if INHERITED.get(keyword) is not Merge.REPLACE and isinstance(value, list):
        flat = [s.value for s in value]
        return flat or None
    return None if value is None else value.value  # type: ignore[union-attr]


def engine_values(scenario: Scenario) -> list[dict[str, object]]:
    cwd = os.getcwd()
    os.chdir(scenario.path)
    try:
        rows = []
        for playbook in scenario.playbooks:
            book = Resolver().load_playbook(playbook)
            for play in book.plays:
                for block in play.compile():
                    for task in _main(block):
                        rows.append({"name": task.display_name(), **{k: ours(task, k) for k in KEYWORDS}})
        return rows
    finally:
        os.chdir(cwd)


def _main(block):
    from engine.loading.model import Block

    for item in block.block:
        if isinstance(item, Block):
            yield from _main(item)
        elif not item.implicit:
            yield item


def ansible_values(scenario: Scenario) -> list[dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_INVENTORY_UNPARSED_WARNING="False", PYTHONHASHSEED="0")
    if (scenario.path / "ansible.cfg").is_file():
        env["ANSIBLE_CONFIG"] = str(scenario.path / "ansible.cfg")
    proc = subprocess.run([sys.executable, str(HERE / "ansible_keywords.py"), scenario.inventory, *scenario.playbooks],
                          cwd=scenario.path, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(f"{scenario.name}: ansible-core could not load it:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def _unique(values: object) -> object:
    return list(dict.fromkeys(values)) if isinstance(values, list) else values


@pytest.mark.ansible
def test_inherited_keywords_match_ansible_core() -> None:
    with ThreadPoolExecutor(2) as pool:
        theirs = dict(zip([s.name for s in SCENARIOS], pool.map(ansible_values, SCENARIOS), strict=True))
    problems = []
    for scenario in SCENARIOS:
        mine = engine_values(scenario)
        if [r["name"] for r in mine] != [r["name"] for r in theirs[scenario.name]]:
            problems.append(f"{scenario.name}: task lists differ: engine {[r['name'] for r in mine]}, "
                            f"ansible {[r['name'] for r in theirs[scenario.name]]}")
            continue
        for ours_row, their_row in zip(mine, theirs[scenario.name], strict=True):
            # ansible repeats a role's conditions (once from the role, once from its dependency
            # chain); they are ANDed, so compare conditions without the repeats.
            their_row["when"] = _unique(their_row["when"])
            for keyword in KEYWORDS:
                if ours_row[keyword] != their_row[keyword]:
                    problems.append(f"{scenario.name}: {ours_row['name']}: {keyword}: engine {ours_row[keyword]!r}, "
                                    f"ansible {their_row[keyword]!r}")
    assert not problems, "\n".join(problems)

"""Inherited keyword values (when, become, environment, ...) equal ansible-core's, task by task.

ansible-core's own values for every listed task (its classes, loaded in a subprocess by
ansible_keywords.py) are recorded in inherited_keywords.json by keywords_recording.py; the engine's
are compared with them offline, and the ansible-marked test re-checks a sample of the recording
against ansible-core (PLAYBOOK_LS_LIVE=all: every scenario).
"""

from __future__ import annotations

import os

import pytest
from ansible_keywords import KEYWORDS
from ansible_tools import directory_digest, live_sample
from harness import Scenario
from keywords_recording import ansible_values, keyword_scenarios, load_recording

from engine.loading.keywords import INHERITED, Merge
from engine.loading.model import Task
from engine.loading.resolve import Resolver

SCENARIOS = keyword_scenarios()
RECORDED = load_recording()
RECORD = "python tests/differential/keywords_recording.py"


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


def _unique(values: object) -> object:
    return list(dict.fromkeys(values)) if isinstance(values, list) else values


def differences(scenario: Scenario, theirs: list[dict[str, object]]) -> list[str]:
    mine = engine_values(scenario)
    if [r["name"] for r in mine] != [r["name"] for r in theirs]:
        return [f"{scenario.name}: task lists differ: engine {[r['name'] for r in mine]}, "
                f"ansible {[r['name'] for r in theirs]}"]
    problems = []
    for ours_row, their_row in zip(mine, theirs, strict=True):
        # ansible repeats a role's conditions (once from the role, once from its dependency
        # chain); they are ANDed, so compare conditions without the repeats.
        their_when = _unique(their_row["when"])
        for keyword in KEYWORDS:
            theirs_value = their_when if keyword == "when" else their_row[keyword]
            if ours_row[keyword] != theirs_value:
                problems.append(f"{scenario.name}: {ours_row['name']}: {keyword}: engine {ours_row[keyword]!r}, "
                                f"ansible {theirs_value!r}")
    return problems


def test_every_scenario_is_recorded_from_its_current_files() -> None:
    stale = [s.name for s in SCENARIOS
             if RECORDED.get(s.name, {}).get("digest") != directory_digest(s.path)]
    assert not stale, f"not recorded, or changed since: {', '.join(stale)} (re-record: {RECORD} NAME...)"
    assert set(RECORDED) == {s.name for s in SCENARIOS}, f"recordings of removed scenarios: re-record with {RECORD}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_inherited_keywords_match_ansible_core(scenario: Scenario) -> None:
    if scenario.name not in RECORDED:
        pytest.fail(f"{scenario.name} is not recorded: {RECORD} {scenario.name}")
    problems = differences(scenario, RECORDED[scenario.name]["rows"])
    assert not problems, "\n".join(problems)


@pytest.mark.ansible
def test_the_recording_is_what_ansible_core_computes() -> None:
    pytest.importorskip("ansible")
    sampled = set(live_sample([s.name for s in SCENARIOS]))
    stale = [s.name for s in SCENARIOS
             if s.name in sampled and ansible_values(s) != RECORDED.get(s.name, {}).get("rows")]
    assert not stale, f"ansible-core computes other values now: {', '.join(stale)} (re-record: {RECORD} NAME...)"

"""The option variables of a launch match what real ansible-playbook sets (recorded fixture)."""

from __future__ import annotations

import json

import pytest
from ansible_options import DIR, FIXTURE, SCENARIOS, UNORDERED, launch_for, normalised, record_all
from ansible_tools import find_tool

from engine.launch.prompting import option_vars

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_option_vars_match_ansible(name: str) -> None:
    ours = normalised(option_vars(launch_for(name), DIR), DIR)
    assert ours == RECORDED[name]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_option_vars_have_ansibles_types(name: str) -> None:
    ours = option_vars(launch_for(name), DIR)
    expected = RECORDED[name]
    for key, value in expected.items():
        # e.g. check mode is a bool, not 0/1; two tags or more are a list whose order is the run's (RunOrdered)
        assert type(ours[key]) is type(value) or key in UNORDERED and isinstance(ours[key], type(value)), key
    assert set(ours["ansible_version"]) == {"string", "full", "major", "minor", "revision"}


def test_limit_is_absent_without_a_limit() -> None:
    assert "ansible_limit" not in option_vars(launch_for("defaults"), DIR)
    assert "ansible_limit" not in RECORDED["defaults"]


def _ansible_playbook() -> str | None:
    return find_tool("ansible-playbook")


@pytest.mark.ansible
def test_fixture_matches_real_ansible_playbook() -> None:
    tool = _ansible_playbook()
    if tool is None:
        pytest.skip("ansible-playbook not found")
    assert record_all(tool) == RECORDED, "re-record with: python tests/launch/ansible_options.py"

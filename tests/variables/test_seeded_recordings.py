"""Recordings under several hash seeds (var_cases.merged): a value that differs between the runs is
marked the run's own, and the scoring takes only "unknown" there; a value given is a guess."""

from __future__ import annotations

from ansible_tools import RUN_DEPENDENT, agrees_with_recording, mark_differences, run_dependent
from var_cases import merged
from var_values import judged


def test_values_that_differ_between_seeds_are_marked() -> None:
    one = {"site.yml:3": {"h1": [{"a": 1, "joined": ["x", "y"]}], "h2": [[{"i": "x"}, None]]}}
    two = {"site.yml:3": {"h1": [{"a": 1, "joined": ["y", "x"]}], "h2": [[{"i": "y"}, {"i": "x"}]]}}
    got = merged([one, two, one])
    assert got["site.yml:3"]["h1"] == [{"a": 1, "joined": {RUN_DEPENDENT: [["x", "y"], ["y", "x"]]}}]
    # a looped probe: a name per item; an item one run skipped is marked whole
    assert got["site.yml:3"]["h2"] == [[{"i": {RUN_DEPENDENT: ["x", "y"]}}, {RUN_DEPENDENT: [None, {"i": "x"}]}]]
    assert merged([one, one]) == one


def test_marks_stop_at_the_probed_value() -> None:
    assert mark_differences([{"k": [1, 2]}, {"k": [2, 1]}], 1) == {"k": {RUN_DEPENDENT: [[1, 2], [2, 1]]}}
    assert run_dependent({RUN_DEPENDENT: [1, 2]}) == [1, 2]
    assert run_dependent({RUN_DEPENDENT: [1], "other": 2}) is None


def test_one_run_agrees_with_a_recording_where_it_is_steady() -> None:
    recorded = {"w": {"h": [{"a": 1, "b": {RUN_DEPENDENT: [["x", "y"], ["y", "x"]]}}]}}
    assert agrees_with_recording(recorded, {"w": {"h": [{"a": 1, "b": ["z"]}]}})
    assert not agrees_with_recording(recorded, {"w": {"h": [{"a": 2, "b": ["x", "y"]}]}})
    assert not agrees_with_recording({"a": 1}, {"a": True})


def test_a_value_only_the_run_knows_is_unknown_not_guessed() -> None:
    seen = {RUN_DEPENDENT: [["x", "y"], ["y", "x"]]}
    assert judged("v", seen, "unknown: a list whose order is the run's own", set()) is None
    assert str(judged("v", seen, ["x", "y"], set())).startswith("guessed: ")
    # scored as a single recording (the first seed's): the equal value passes, unknown does not
    assert judged("v", seen, ["x", "y"], set(), first_seed_only=True) is None
    assert judged("v", seen, "unknown: ...", set(), first_seed_only=True) is not None
    assert str(judged("v", 1, 1, {"v"})).startswith("guessed: ")
    assert judged("v", 1, 1.0, set()) == "ansible 1; playbook-ls 1.0"

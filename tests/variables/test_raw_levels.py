"""RawVariables looks a name up level by level, highest first; at a level where any name may be set
(an include_vars whose file only the run names), a name no level at or above it sets is the run's."""

import pytest

from engine.templating.errors import RunTimeOnly
from engine.variables.layer import Layer
from engine.variables.raw import RawVariables

WHY = "include_vars of a file only the run names"


def _levels() -> list[Layer]:
    return [
        Layer("role defaults", "role 'r' defaults", {"low": 1, "both": "low"}),
        Layer("include_vars", "task 'load'", {"at_wild": 2}, any_name=WHY),
        Layer("set_fact", "task 'set'", {"high": 3, "both": "high"}),
    ]


def test_a_name_set_above_the_open_level_is_its_value() -> None:
    raw = RawVariables(_levels(), {"extra": 0})
    assert (raw["high"], raw["both"], raw["at_wild"], raw["extra"]) == (3, "high", 2, 0)


@pytest.mark.parametrize("name", ["low", "nowhere"])
def test_a_name_only_below_the_open_level_or_nowhere_is_the_runs(name: str) -> None:
    raw = RawVariables(_levels(), {})
    with pytest.raises(RunTimeOnly, match=WHY):
        raw[name]
    assert name in raw


def test_without_an_open_level_a_name_set_nowhere_is_undefined() -> None:
    levels = [layer for layer in _levels() if layer.any_name is None]
    raw = RawVariables(levels, {})
    assert raw["low"] == 1 and "nowhere" not in raw
    with pytest.raises(KeyError):
        raw["nowhere"]


def test_a_reason_for_any_name_given_decides_over_the_levels() -> None:
    raw = RawVariables(_levels(), {}, any_name="merged levels")
    assert raw["low"] == 1  # the levels below the open one decide when they are merged into one
    with pytest.raises(RunTimeOnly, match="merged levels"):
        raw["nowhere"]


def test_the_definitions_of_the_names_asked_for_are_those_of_every_level_highest_first() -> None:
    from engine.variables.sources import definitions

    found = definitions(_levels(), ["both", "low", "absent"])
    assert {name: [d.level for d in found[name]] for name in found} == {
        "both": ["set_fact", "role defaults"],
        "low": ["role defaults"],
    }
    assert [d.value for d in found["both"]] == ["high", "low"]
    assert set(definitions(_levels())) == {"low", "both", "at_wild", "high"}

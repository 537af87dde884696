"""The ``bool`` filter and keyword booleans read values exactly as ansible-core 2.19 does, at
load time (static templating) and at run time alike."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from engine.booleans import NotABoolean, bool_filter, boolean
from engine.templating.load_time import render
from engine.templating.templar import Templar

INPUTS: list[Any] = [
    True, False, 1, 0, 2, -1, 1.0, 0.0, 2.5, None,
    "yes", "YES", "Yes", " yes", "yes ", "on", "true", "True", "1",
    "no", "off", "false", "0", "2", "", "y", "t", "n", "f", "maybe",
    b"yes", b"1", [], [1], {}, {"a": 1},
]

# what ansible-core 2.19's bool filter gives, written out so the table holds without ansible too
FILTER_TRUE = [True, 1, 1.0, "yes", "YES", "Yes", "on", "true", "True", "1"]  # a list: a set would merge 1 and True


def _ids(value: Any) -> str:
    return repr(value)


def _filter_expected(value: Any) -> bool:
    return any(type(value) is type(truth) and value == truth for truth in FILTER_TRUE)


@pytest.mark.parametrize("value", INPUTS, ids=_ids)
def test_the_static_and_run_time_filters_agree_with_the_table(value: Any) -> None:
    expected = _filter_expected(value)
    assert bool_filter(value) is expected
    assert render("{{ value | bool }}", {"value": value}) is expected
    assert Templar({"value": value}).template("{{ value | bool }}") is expected


def test_two_is_false_as_in_ansible() -> None:
    # the static filter used to say bool(2), True; ansible's filter reads 2 as the text "2"
    assert render("{{ 2 | bool }}", {}) is False
    assert render("{{ 'y' | bool }}", {}) is False


@pytest.mark.parametrize("value", INPUTS, ids=_ids)
def test_the_filter_matches_ansibles_own(value: Any) -> None:
    core = pytest.importorskip("ansible.plugins.filter.core")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = core.to_bool(value)
    assert bool_filter(value) is theirs
    assert render("{{ value | bool }}", {"value": value}) is theirs


@pytest.mark.parametrize("value", INPUTS, ids=_ids)
def test_keyword_booleans_match_ansibles_convert_bool(value: Any) -> None:
    convert_bool = pytest.importorskip("ansible.module_utils.parsing.convert_bool")
    assert boolean(value) is convert_bool.boolean(value, strict=False)
    try:
        theirs: Any = convert_bool.boolean(value, strict=True)
    except TypeError as exc:
        theirs = type(exc)
    try:
        ours: Any = boolean(value, strict=True)
    except NotABoolean:
        ours = TypeError
    assert ours == theirs


def test_a_strict_boolean_names_the_value() -> None:
    with pytest.raises(NotABoolean, match="The value 'maybe' is not a valid boolean"):
        boolean("maybe", strict=True)
    assert boolean(" Y ") is True
    assert boolean("t") is True

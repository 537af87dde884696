"""A templar and its variables, and a LazyVars and its reading, are freed when the last reference
goes, without the garbage collector: a plan makes tens of thousands of templars, and each one
left in a cycle kept what it rendered until the next collection (which then scanned it all)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from engine.templating.load_time import LazyVars
from engine.templating.pure_lookups import PureLookups
from engine.templating.templar import Templar


@pytest.fixture
def no_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def test_a_used_templar_is_freed_by_its_last_reference(no_collector: None) -> None:
    templar = Templar({"a": "{{ b }}-x", "b": "{{ lookup('vars', 'c') }}", "c": "y"}, PureLookups(), bounded=True)
    assert templar.template("{{ a }}") == "y-x"
    assert templar.evaluate("a == 'y-x'") is True
    gone = weakref.ref(templar)
    variables = weakref.ref(templar.variables)
    del templar
    assert gone() is None
    assert variables() is None


def test_variables_that_outlive_their_templar_still_render() -> None:
    templar = Templar({"a": "{{ b }}-x", "b": "{{ lookup('vars', 'c') }}", "c": "y"}, PureLookups(), bounded=True)
    variables = templar.variables
    del templar
    gc.collect()
    assert variables["a"] == "y-x"
    assert variables["c"] == "y"


def test_a_read_lazyvars_is_freed_by_its_last_reference(no_collector: None) -> None:
    values = LazyVars({"a": "{{ b }}-x", "b": "y"})
    assert values["a"] == "y-x"
    gone = weakref.ref(values)
    del values
    assert gone() is None


def test_a_copied_lazyvars_reads_its_own_values() -> None:
    import copy

    values = LazyVars({"a": "{{ b }}-x", "b": "y"})
    copied, deep = copy.copy(values), copy.deepcopy(values)
    del values
    gc.collect()
    assert copied["a"] == deep["a"] == "y-x"
    assert dict(copied) == {"a": "{{ b }}-x", "b": "y"}

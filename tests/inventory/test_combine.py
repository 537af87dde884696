"""``combine_vars``/``merge_hash`` as ansible's ``ansible/utils/vars.py`` behaves."""

from __future__ import annotations

import pytest

from engine.inventory.combine import CombineError, combine_vars, merge_hash


def test_replace_keeps_the_later_dictionary_whole() -> None:
    assert combine_vars({"d": {"a": 1}, "k": 1}, {"d": {"b": 2}}, merge=False) == {"d": {"b": 2}, "k": 1}


def test_merge_is_recursive_and_replaces_lists_by_default() -> None:
    merged = combine_vars({"d": {"a": 1, "l": [1], "n": {"x": 1}}}, {"d": {"b": 2, "l": [2], "n": {"y": 2}}},
                          merge=True)
    assert merged == {"d": {"a": 1, "b": 2, "l": [2], "n": {"x": 1, "y": 2}}}


@pytest.mark.parametrize(("list_merge", "expected"), [
    ("replace", [2, 3]), ("keep", [1, 2]), ("append", [1, 2, 2, 3]), ("prepend", [2, 3, 1, 2]),
    ("append_rp", [1, 2, 3]), ("prepend_rp", [2, 3, 1]),
])
def test_list_merge_modes(list_merge: str, expected: list[int]) -> None:
    assert merge_hash({"l": [1, 2]}, {"l": [2, 3]}, list_merge=list_merge) == {"l": expected}


def test_merge_is_not_associative_so_grouping_matters() -> None:
    first, second, third = {"k": {"x": 1}}, {"k": 5}, {"k": {"y": 2}}
    assert merge_hash(merge_hash(first, second), third) == {"k": {"y": 2}}
    assert merge_hash(first, merge_hash(second, third)) == {"k": {"x": 1, "y": 2}}


def test_non_dictionaries_are_refused_with_ansibles_message() -> None:
    with pytest.raises(CombineError, match="expected dicts but got a 'dict' and a 'list'"):
        combine_vars({}, [], merge=False)  # type: ignore[arg-type]
    with pytest.raises(CombineError, match="'list_merge' argument can only be"):
        merge_hash({}, {}, list_merge="sideways")

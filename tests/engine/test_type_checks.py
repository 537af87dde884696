"""ansible's check_type_list, shared by the linter's module arguments and the run's role argument specs."""

from __future__ import annotations

import pytest

from engine.type_checks import NotAList, check_type_list


@pytest.mark.parametrize(("value", "expected"), [
    (["a", 1], ["a", 1]), ("a,b", ["a", "b"]), ("", [""]), (3, ["3"]), (1.5, ["1.5"]), (True, ["True"]),
])
def test_converts_as_ansible(value: object, expected: list[object]) -> None:
    assert check_type_list(value) == expected


def test_refuses_a_dict_with_ansibles_message() -> None:
    with pytest.raises(NotAList, match=r"^<class 'dict'> cannot be converted to a list$"):
        check_type_list({"a": 1})

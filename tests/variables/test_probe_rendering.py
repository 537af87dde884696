"""The values harness renders a probe written as a template (``label: "{{ groups['db'] }}"``) as
`vars` shows a variable holding its value: a list whose order only the run knows is unknown
(engine.values.unknown_as_shown), not given in the inventory's order (a guess where ansible's
order changes from one run to the next)."""

from __future__ import annotations

from typing import Any

from var_values import _rendered

from engine.values import RunOrdered


class _Templar:
    def __init__(self, value: Any) -> None:
        self.value = value

    def template(self, _text: str) -> Any:
        return self.value


def test_a_run_ordered_list_is_unknown() -> None:
    assert str(_rendered(_Templar(RunOrdered(["b", "a"])), "{{ x }}")).startswith("unknown: ")
    assert _rendered(_Templar(RunOrdered(["a"])), "{{ x }}") == ["a"]  # one item: no order to lose
    assert _rendered(_Templar(["b", "a"]), "{{ x }}") == ["b", "a"]

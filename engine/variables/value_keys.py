"""A value as a hashable key, equal only for values every reading sees alike: what tells two hosts'
definitions of a name apart (engine.variables.earlier_key) and a looping include's items on a host
(engine.variables.report.include_items)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.variables.layer import RuntimeResult, RuntimeValue
from engine.variables.module_result import ModuleResult


def value_key(value: Any, depth: int = 0) -> Any:
    """``value`` as a hashable key, equal only for values every reading sees alike: types and the
    order of a mapping's keys kept, what only the run knows by its reason, any other object by
    itself."""
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return (kind.__name__, value)
    if depth > 50:
        return ("object", _Same(value))
    if isinstance(value, ModuleResult):
        return ("module result", value_key(value._known, depth + 1), tuple(sorted(value._absent)),  # noqa: SLF001
                value.unknown_whole, value.uniform)
    if isinstance(value, RuntimeValue):
        return ("runtime", kind.__name__, value.reason, value.uniform)
    if isinstance(value, Mapping) and kind.__module__ in ("builtins", "engine.span"):
        return (kind.__name__, tuple((value_key(k, depth + 1), value_key(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, list | tuple) and kind.__module__ in ("builtins", "engine.span"):
        return (kind.__name__, tuple(value_key(item, depth + 1) for item in value))
    if isinstance(value, RuntimeResult):
        return ("runtime result", _Same(value))
    return ("object", _Same(value))


class _Same:
    """Equal only to itself wrapping the same object (kept, so its id is not reused meanwhile)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

"""Where a variable's value is written, as ansible's Origin tag has it: what a broken conditional's
message names (``Conditional result (True) was derived from value of type 'str' at 'inventory.ini:3'``),
the same for a run (engine.variables.manager) and for a value shown before it (engine.variables.report)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from engine.span import Span
from engine.variables.sources import Layer, definitions

INCLUDED, SET = "include_vars", "set_fact / register"  # the run-time levels
ONE_NAME = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def written_origin(layers: list[Layer], magic: Mapping[str, Any], name: str, follow: bool,
                   recorded: Callable[[str, str], Any]) -> Span | str | None:
    """Where the value ``name`` has over ``layers`` is written (the value's span, else the file and
    line, else the file), following a value that is one other variable's template (``"{{ other }}"``
    keeps the other's origin) unless ``follow`` is false; None for a value no file holds (a fact, a
    registered result, a magic variable). ``recorded(level, name)``: the origin the run recorded for
    a value set_fact or include_vars set (None when not known)."""
    for _ in range(10):
        if name in magic:
            return None
        found = definitions(layers, [name]).get(name)
        if found and found[0].level == SET:  # its origin was settled when set_fact templated it
            return recorded(SET, name)
        if not found or found[0].runtime or (found[0].path is None and found[0].level != INCLUDED):
            return None
        winner = found[0]
        referred = ONE_NAME.fullmatch(winner.value) if follow and isinstance(winner.value, str) else None
        if referred is None and winner.level == INCLUDED:
            return recorded(INCLUDED, name)
        if referred is None:
            layer = next(layer for layer in reversed(layers) if layer.path == winner.path and name in layer.values
                         and layer.level == winner.level)
            span = getattr(layer.values, "value_spans", {}).get(name)
            path = os.path.abspath(winner.path)
            if span is not None:
                return Span(path, *span[1:])
            if (line := getattr(layer.values, "origins", {}).get(name)) is not None:
                return line  # an INI source's PATH:LINE
            return f"{path}:{winner.line + 1}" if winner.line is not None else path
        name = referred.group(1)
    return None

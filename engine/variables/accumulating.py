"""What the tasks of a file a looping include loads build on from run to run: run once per item,
a task whose values read what a task of that file set reads what the run of the item before
left. Where the include's items, or their order, are the run's (a set filter's list), those
values are the run's too (engine.variables.host_runtime follows the rest of each run)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.setters import set_names
from engine.variables.sources import SET_FACT, Layer, RuntimeValue
from engine.variables.task_results import Effects

if TYPE_CHECKING:
    from engine.loading.model import Task


def accumulates(order: Any, task: Task, include: Task) -> Callable[[str], bool] | None:
    """Which names ``task``, in the file the looping ``include`` loads, sets from a name a task of
    that file sets (its set_fact value, its vars, for what else it sets the whole task read): run
    once per item, it then builds on what the run of an earlier item left. None: none."""
    names: set[str] | None = set()
    for other in order.tasks:
        if include in order.includers.get(id(other), []):
            found = set_names(other)
            names = None if found is None or names is None else names | found
    if names is not None and not names:
        return None
    pattern = None if names is None else re.compile("|".join(rf"\b{re.escape(name)}\b" for name in sorted(names)))

    def reads(value: Any) -> bool:
        return pattern is None or pattern.search(repr(value)) is not None

    data = task.data if isinstance(task.data, Mapping) else {}
    args = task.args if isinstance(task.args, Mapping) else {}
    around = reads({key: value for key, value in data.items() if key not in ("name", "register", task.action)})
    whole = around or reads(args)
    if not whole:
        return None
    return lambda name: around or reads(args[name]) if task.action in SET_FACT and name in args else whole


def unknown_names(effects: Effects, which: Callable[[str], bool], reason: str) -> Effects:
    """``effects`` with the values of the names ``which`` tells unknown (``reason``)."""
    def layer_of(layer: Layer) -> Layer:
        if not any(which(name) for name in layer.values):
            return layer
        values = layer.values.copy() if hasattr(layer.values, "copy") else dict(layer.values)
        for name in layer.values:
            if which(name):
                values[name] = RuntimeValue(reason)
        return Layer(layer.level, layer.label, values, layer.path, layer.default_line, True)

    return Effects([layer_of(layer) for layer in effects.included], [layer_of(layer) for layer in effects.facts],
                   effects.delegated_to, effects.delegated_each, effects.changed)

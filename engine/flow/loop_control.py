"""``loop_control`` as ansible's ``LoopControl`` and ``TaskExecutor._run_loop`` read it.

``loop_var``, ``index_var``, ``pause``, ``extended`` and ``extended_allitems`` are templated
once, before the loop (ansible post-validates them with the task); ``label`` is templated per
item, after the item ran, and ``break_when`` is evaluated after each item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.booleans import boolean
from engine.loading.model import Task
from engine.templating.templar import Templar


@dataclass(frozen=True)
class LoopControl:
    loop_var: str = "item"
    index_var: str | None = None
    label: Any = None
    pause: float = 0.0
    extended: bool = False
    extended_allitems: bool = True
    break_when: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, task: Task, templar: Templar) -> LoopControl:
        """The task's loop_control; ValueError (or a TemplateFailure) for a value of the wrong type."""
        data = task.data.get("loop_control") if isinstance(task.data, Mapping) else None
        if not isinstance(data, Mapping):
            return cls()

        def value(name: str, default: Any) -> Any:
            raw = data.get(name)
            return default if raw is None else templar.template(raw)

        index_var = value("index_var", None)
        break_when = data.get("break_when") or []
        return cls(
            loop_var=str(value("loop_var", "item")),
            index_var=None if index_var in (None, "") else str(index_var),
            label=data.get("label"),
            pause=float(value("pause", 0)),
            extended=boolean(value("extended", False)),
            extended_allitems=boolean(value("extended_allitems", True)),
            break_when=break_when if isinstance(break_when, list) else [break_when],
        )

    def item_vars(self, items: list[Any], index: int) -> dict[str, Any]:
        """The variables one loop item runs with: the loop var, the index var, ``ansible_loop``."""
        scope: dict[str, Any] = {"ansible_loop_var": self.loop_var, self.loop_var: items[index]}
        if self.index_var:
            scope.update({"ansible_index_var": self.index_var, self.index_var: index})
        if self.extended:
            scope["ansible_loop"] = extended_loop(items, index, self.extended_allitems)
        return scope

    def result_keys(self, scope: Mapping[str, Any]) -> dict[str, Any]:
        """What ansible adds to each item's result (and so to the registered ``results``)."""
        keys: dict[str, Any] = {self.loop_var: scope[self.loop_var], "ansible_loop_var": self.loop_var}
        if self.index_var:
            keys.update({self.index_var: scope[self.index_var], "ansible_index_var": self.index_var})
        if self.extended:
            keys["ansible_loop"] = scope["ansible_loop"]
        return keys


def extended_loop(items: list[Any], index: int, with_allitems: bool) -> dict[str, Any]:
    """``ansible_loop`` for item ``index``, with the keys in ansible's order (they show in results)."""
    length = len(items)
    loop: dict[str, Any] = {
        "index": index + 1,
        "index0": index,
        "first": index == 0,
        "last": index + 1 == length,
        "length": length,
        "revindex": length - index,
        "revindex0": length - index - 1,
    }
    if with_allitems:
        loop["allitems"] = items
    if index + 1 < length:
        loop["nextitem"] = items[index + 1]
    if index > 0:
        loop["previtem"] = items[index - 1]
    return loop

"""The variables a loop binds per item (``item`` or ``loop_control.loop_var``, ``index_var``,
``ansible_loop`` when ``extended``, ``ansible_loop_var``, ``ansible_index_var``), as
``TaskExecutor._run_loop`` binds them, for a task's own loop and for the looped ``include_tasks``
or ``include_role`` whose tasks see the include's item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.loop_control import LoopControl
from engine.flow.loops import loop_items, loop_of
from engine.values import RUN_ORDER_UNKNOWN, RunOrdered

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar


def includer_loops(task: Task) -> bool:
    """Whether ``task`` loops (an include with a loop runs what it loads once per item)."""
    return loop_of(task) is not None


def loop_scopes(task: Task, templar: Templar) -> list[dict[str, Any]] | str | None:
    """Each item's variables of ``task``'s loop (None: it does not loop), or why only the run
    knows its items."""
    found = loop_of(task)
    if found is None:
        return None
    kind, raw = found
    try:
        items = loop_items(kind, raw, templar)
        control = LoopControl.of(task, templar)
    except Exception as exc:  # noqa: BLE001 - whatever stops the items from being known before the run
        return f"set per item by the loop of task '{task.display_name()}', whose items only the run knows ({exc})"
    if isinstance(items, RunOrdered) and len(items) > 1:  # which item comes first is the run's
        return f"set per item by the loop of task '{task.display_name()}', whose items come in an order only the " \
               f"run knows ({RUN_ORDER_UNKNOWN})"
    return [control.item_vars(items, index) for index in range(len(items))]


def loop_length(task: Task, templar: Templar) -> int | None:
    """How many items ``task``'s loop has, also where their order is the run's (a set's
    ``difference``); None when only the run knows."""
    found = loop_of(task)
    if found is None:
        return None
    try:
        items = loop_items(*found, templar)
    except Exception:  # noqa: BLE001 - items only the run knows
        return None
    return len(items) if isinstance(items, list | tuple) else None


def loop_names(task: Task) -> list[str]:
    """The names ``task``'s loop binds (its loop_var and index_var as written)."""
    if loop_of(task) is None:
        return []
    data = task.data.get("loop_control") if isinstance(task.data, Mapping) else None
    control = data if isinstance(data, Mapping) else {}
    names = [str(control.get("loop_var") or "item"), "ansible_loop_var"]
    if control.get("index_var"):
        names += [str(control["index_var"]), "ansible_index_var"]
    if control.get("extended"):
        names.append("ansible_loop")
    return names


def copy_items(task: Task, loops: list[Task]) -> list[int | None]:
    """For each looped include around ``task``: the item whose copy of the included file ``task``
    is in, when the loader loaded the file once per item of a loop written out (None: one copy
    for every item)."""
    found: list[int | None] = []
    for include in loops:
        frames: list[int] = []  # the include's per-item frames, in item order
        for block in include.children:
            for loaded in block.tasks():
                frames += [id(frame) for frame in loaded.chain if frame.kind == "loop_item"
                           and frame.span == include.span and id(frame) not in frames]
        mine = next((id(frame) for frame in task.chain if frame.kind == "loop_item" and frame.span == include.span),
                    None)
        found.append(frames.index(mine) if mine in frames else None)
    return found


def last_item_only(task: Task, loops: list[Task]) -> bool:
    """Whether ``task`` runs at the last item only of the looping includes ``loops`` around it: a
    handler a looping ``include_role`` brings (each item adds a copy of the role's handlers and a
    notification reaches the last one added)."""
    from engine.loading import keywords as kw

    return task.handler and bool(loops) and loops[-1].action in kw.INCLUDE_ROLE and not loops[-1].handler

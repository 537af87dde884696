"""The variables a loop binds per item (``item`` or ``loop_control.loop_var``, ``index_var``,
``ansible_loop`` when ``extended``, ``ansible_loop_var``, ``ansible_index_var``), as
``TaskExecutor._run_loop`` binds them, for a task's own loop and for the looped ``include_tasks``
or ``include_role`` whose tasks see the include's item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.loop_control import LoopControl
from engine.flow.loops import LoopNotAList, loop_items, loop_of
from engine.values import RUN_ORDER_UNKNOWN, RunOrdered

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar


def includer_loops(task: Task) -> bool:
    """Whether ``task`` loops (an include with a loop runs what it loads once per item)."""
    return loop_of(task) is not None


class LoopFails(str):
    """The message ansible fails a task with whose ``loop`` is known not to be a list."""


def loop_scopes(task: Task, templar: Templar) -> list[dict[str, Any]] | str | None:
    """Each item's variables of ``task``'s loop (None: it does not loop), or why only the run
    knows its items (:class:`LoopFails`: the task fails on it)."""
    found = loop_of(task)
    if found is None:
        return None
    kind, raw = found
    try:
        items = loop_items(kind, raw, templar)
        control = LoopControl.of(task, templar)
    except LoopNotAList as exc:
        return LoopFails(str(exc))
    except Exception as exc:  # noqa: BLE001 - whatever stops the items from being known before the run
        return f"set per item by the loop of task '{task.display_name()}', whose items only the run knows ({exc})"
    if isinstance(items, RunOrdered) and len(items) > 1:  # which item comes first is the run's
        return f"set per item by the loop of task '{task.display_name()}', whose items come in an order only the " \
               f"run knows ({RUN_ORDER_UNKNOWN})"
    return [control.item_vars(items, index) for index in range(len(items))]


def run_ordered_items(task: Task, templar: Templar) -> tuple[LoopControl, list[Any], str] | None:
    """``task``'s loop control, items and why their order is the run's, when the items are a
    run-ordered list of two or more (None otherwise): followed in several orders
    (engine.variables.order_free_loops), what does not depend on the order is known."""
    found = loop_of(task)
    if found is None:
        return None
    try:
        items = loop_items(*found, templar)
        control = LoopControl.of(task, templar)
    except Exception:  # noqa: BLE001 - items only the run knows
        return None
    if not isinstance(items, RunOrdered) or len(items) < 2:
        return None
    return control, list(items), getattr(items, "why", None) or RUN_ORDER_UNKNOWN


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
    is in, when the loader loaded the file once per item of a loop written out, or for one item
    whose own file it is (None: one copy for every item)."""
    found: list[int | None] = []
    for include in loops:
        own = next((frame.item_index for frame in task.chain if frame.kind == "loop_item" and
                    frame.span == include.span and frame.item_index is not None), None)
        if own is not None:  # loaded for that item alone (engine.variables.item_files)
            found.append(own)
            continue
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


def item_runs(templar_at: Any, task: Task, loops: list[Task], order: list[int], outer: tuple[int, ...],
              reader_loops: list[Task], upto_reader: bool) -> list[tuple[int, ...]]:
    """The runs of ``task`` under the looped includes ``loops`` (outermost first) that a reader
    at the ``outer`` items of its own ``reader_loops`` sees: all of them, or where the reader is
    in the same includes, those before its own run (and that run, with ``upto_reader``: the task
    comes before the reader). ``order``: the outermost include's items in the host's run order;
    ``templar_at(include, 0, run)``: the templar at an include under the ``run`` items."""
    shared = 0
    while shared < min(len(loops), len(reader_loops), len(outer)) and loops[shared] is reader_loops[shared] \
            and outer[shared] >= 0:
        shared += 1
    kept = order
    if shared and outer[0] in order:  # the reader's run of the outermost item and those before
        kept = order[: order.index(outer[0]) + (1 if upto_reader or shared > 1 else 0)]
    own = copy_items(task, loops)
    runs = [(index,) for index in kept if own[0] is None or index == own[0]]
    if last_item_only(task, loops):
        runs = [(order[-1],)] if order and order[-1] in kept else []
    if len(loops) == 1:
        return runs
    runs = inner_item_runs(templar_at, loops, runs, own)
    if shared < 2:
        return runs
    rank = {item: place for place, item in enumerate(order)}

    def key(run: tuple[int, ...]) -> tuple[int, ...]:
        return (rank.get(run[0], -1), *run[1:shared])

    mine = key(outer)
    return [run for run in runs if key(run) < mine or key(run) == mine and upto_reader]


def inner_item_runs(templar_at: Any, loops: list[Task], runs: list[tuple[int, ...]],
                    own: list[int | None]) -> list[tuple[int, ...]]:
    """``runs`` (items of the outermost of ``loops``, the looped includes around a task) with the
    items of each inner one as templated at its outer items (``templar_at(include, 0, run)``), in
    run order; -1 for an item whose value only the run knows. ``own``: :func:`copy_items` of the task."""
    for position in range(1, len(loops)):
        deeper: list[tuple[int, ...]] = []
        for run in runs:
            templar = templar_at(loops[position], 0, run) if -1 not in run else None
            scopes = loop_scopes(loops[position], templar) if templar is not None else None
            if not isinstance(scopes, list):
                count = loop_length(loops[position], templar) if templar is not None else None
                deeper += [(*run, -1)] * (count or 1)
                continue
            deeper += [(*run, index) for index in range(len(scopes)) if own[position] in (None, index)]
        runs = deeper
    return runs


def run_place(play_order: Any, task: Task, loops: list[Task], order: list[int], run: tuple[int, ...],
              fallback: int) -> int:
    """Where the ``run`` of ``task`` (its items of the looping includes ``loops`` around it,
    outermost first; ``order``: the outermost one's items in the host's run order) comes in the
    host's run, as a number comparable with the runs of every other task under the outermost
    include, whichever copy of a file holds it: the outer item's place, then where in that item's
    file the task is (or the inner include it is under), then the inner item's. ``fallback``
    where an item's place only the run knows (a task placed twice: its first place)."""
    if not run or any(index < 0 for index in run) or run[0] not in order:
        return fallback
    size = len(play_order.tasks) + 1
    under = loops[1] if len(loops) > 1 and len(run) > 1 else task
    positions = play_order.positions.get(id(under)) or [0]
    return (order.index(run[0]) * size + positions[0]) * size + (run[1] + 1 if under is not task else 0)

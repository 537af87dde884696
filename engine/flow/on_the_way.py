"""What lies on the way to a task in a run: the includes that load it and the ``when``
conditions it must pass, with where each comes from. The per-host model (engine.flow.host_plan)
follows them; the hover and ``why`` show them in the same words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.loading.paths import keyword_span, where

if TYPE_CHECKING:
    from engine.loading.model import Frame, Play, Task


def includers_of(play: Play, task: Task) -> list[Task]:
    """The include tasks that load ``task``, outermost first (none for a task loaded statically)."""

    if not task.dynamic:
        return []
    found, outer = loaded_by(play).get(id(task), (None, []))
    return outer if found is task else []


def loaded_by(play: Play) -> dict[int, tuple[Task, list[Task]]]:
    """Each task of ``play`` (by id) with the include tasks that load it, built once per play:
    every hover on a loaded task would otherwise walk the whole play."""
    from engine.variables.sources import tasks_with_includers

    found = play.derived.get("includers")
    if found is None:
        found = play.derived["includers"] = {}
        for task, outer in tasks_with_includers(play):
            found.setdefault(id(task), (task, outer))
    return found  # type: ignore[no-any-return]


def conditions_on_the_way(task: Task, includers: Sequence[Task]) -> list[tuple[Any, str]]:
    """The ``when`` conditions a task must pass, outermost first, each with where it comes from.
    Hover and ``why`` say the same from here. An include's own condition, and those of the
    levels above it that the tasks it loads do not inherit, are checked once, when the include
    runs (ansible evaluates them on the include task); the loaded tasks never re-check them."""
    own = {id(frame) for frame in task.chain}
    found: list[tuple[Any, str]] = []
    for include in includers:
        for frame in include.chain:
            if id(frame) in own:
                continue
            above = "" if frame is include.frame else f"{frame.label} ({where(keyword_span(frame, 'when'))}), on "
            found += [(cond, f"{above}the {include.action.rsplit('.', 1)[-1]} at {where(include.span)}: checked "
                             "once, when it runs; the tasks it loads do not re-check it") for cond in frame.when]
    found += [(cond, origin_of(frame, task, "when")) for frame in task.chain for cond in frame.when]
    return found


def origin_of(frame: Frame, task: Task, keyword: str) -> str:
    if frame is task.frame:
        return "this task"
    return f"{frame.label} ({where(keyword_span(frame, keyword))})"

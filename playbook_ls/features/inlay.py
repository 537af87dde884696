"""Inlay hints: the tags a task inherits from the levels above it (pure function).

Shown for tasks (not handlers, which tags never select) at the end of the task's name line
(its first line when it has no name), as the union over every context that reaches the
task, so a role task shows the tags of each ``roles:`` entry and import that uses it.
Nothing is shown when nothing is inherited.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from engine.loading.model import Task
from playbook_ls.features.yamltext import split_lines
from playbook_ls.rules.base import keyword_span, where

if TYPE_CHECKING:
    from playbook_ls.features.workspace import WorkspaceIndex

PREFIX = " ⟵ inherited: "


class Hint(NamedTuple):
    """A hint at a 0-based line and code-point column."""

    line: int
    col: int
    label: str
    tooltip: str


def inherited_tag_hints(index: WorkspaceIndex, path: str, first_line: int, last_line: int) -> list[Hint]:
    """Hints for the tasks of ``path`` whose anchor line is within ``first_line..last_line``."""
    lines = split_lines(index.text(path))
    by_task: dict[tuple[int, int, int, int], list[Task]] = {}
    for reach in index.reaches(path):
        task = reach.task
        # tasks the engine makes up (argument validation) have no keys of their own in the file
        if task is None or task.implicit or task.span is None or not getattr(task.data, "key_spans", None):
            continue
        if task.handler:
            continue  # tags never select handlers: showing them would suggest otherwise
        by_task.setdefault(tuple(task.span[1:]), []).append(task)  # type: ignore[arg-type]
    hints = []
    for tasks in by_task.values():
        task = tasks[0]
        name_span = task.data.key_spans.get("name")
        line = name_span.line if name_span is not None else task.span.line  # type: ignore[union-attr]
        if not first_line <= line <= last_line or line >= len(lines):
            continue
        if name_span is not None and "name" not in lines[line]:
            continue  # the buffer changed since the last resolve: the line holds something else now
        origins: dict[str, list[str]] = {}
        for each in tasks:
            for frame in each.chain[:-1]:
                for tag in frame.tags:
                    span = keyword_span(frame, "tags")
                    place = f"{frame.label} ({where(span)})" if span is not None else frame.label
                    origins.setdefault(str(tag), [])
                    if place not in origins[str(tag)]:
                        origins[str(tag)].append(place)
        if not origins:
            continue
        tooltip = "\n".join(f"{tag} ← {', '.join(places)}" for tag, places in origins.items())
        hints.append(Hint(line, len(lines[line]), PREFIX + ", ".join(origins), tooltip))
    return sorted(hints)

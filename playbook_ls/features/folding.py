"""Folding ranges: plays, blocks, tasks and every other multi-line collection (pure function).

Read from the file's own parse, like the outline. A client that receives ranges from a
server stops folding by indentation, so nested mappings (``vars:``, module arguments) fold
too, not only the task structure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.span import YMap, YSeq
from playbook_ls.features import yamlnav as yn
from playbook_ls.features.yamltext import split_lines

if TYPE_CHECKING:
    from playbook_ls.features.workspace import WorkspaceIndex


def folding_ranges(index: WorkspaceIndex, path: str) -> list[tuple[int, int]] | None:
    """``(start_line, end_line)`` pairs, 0-based, sorted; None when the file does not parse
    (the client then keeps folding by indentation)."""
    loaded = index.load(path)
    if loaded.error is not None:
        return None
    lines = split_lines(index.text(path))
    ranges: dict[int, int] = {}
    _collect(loaded.data, lines, ranges)
    return sorted((start, end) for start, end in ranges.items() if end > start)


def _collect(node: Any, lines: list[str], ranges: dict[int, int]) -> None:
    pending = [node]  # a stack, not recursion: a buffer may nest a thousand levels
    seen = {id(node)}  # and an alias inside itself (&a [*a]) is walked once
    while pending:
        for _key, value, key_span, value_span in yn.children(pending.pop()):
            if value_span is None or not isinstance(value, YMap | YSeq) or id(value) in seen:
                continue
            seen.add(id(value))
            end = yn.extent(value, value_span, lines).end_line
            # a mapping entry folds from its key (``tasks:``), a list item from its first line
            start = key_span.line if key_span is not None else value_span.line
            if end > start:
                ranges[start] = max(ranges.get(start, start), end)
            pending.append(value)

"""What is at a position of a parsed YAML file, and how far a node really reaches.

Navigation works on the parsed YAML of the file being edited (``SourceCache.load``, which
sees unsaved buffers), not on the resolved model: the model may be stale mid-edit, and
files that no playbook reaches have no model at all. The model is consulted afterwards,
to follow what was found here.

Spans are compared by position only: the same file may be named by different strings
(symlinks, relative roots) in the model and in a fresh parse.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.span import Span, YMap, YSeq
from playbook_ls.features.cursor import (
    FROM_KEYS,
    NOTIFY,
    ROLE,
    ROLE_FILE,
    TAG,
    TASK_FILE,
    Context,
    item_context,
    name_kind,
    nested_context,
    play_keys,
)

Step = tuple[Any, Any]  # (container, key or index) on the way from the root to a scalar


class Hit(NamedTuple):
    """The scalar at a position: the containers above it, its value and span."""

    trail: tuple[Step, ...]
    value: Any
    span: Span
    is_key: bool


class Target(NamedTuple):
    """A navigable name at a position. ``owner`` is the mapping that holds it (the task for
    tags, notify and task files; the argument mapping for role files; the entry or argument
    mapping for a role, None for a bare ``roles:`` string); ``sub`` is the role subdirectory
    a role file is looked up in."""

    kind: str
    text: str
    span: Span
    owner: Any = None
    sub: str = ""


def pos(span: Span) -> tuple[int, int, int, int]:
    return span.line, span.col, span.end_line, span.end_col


def contains(span: Span, line: int, col: int) -> bool:
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


def encloses(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def children(node: Any) -> list[tuple[Any, Any, Span | None, Span | None]]:
    """(key or index, value, key span, value span) of a mapping's entries or a sequence's items."""
    if isinstance(node, YMap):
        return [(key, value, node.key_spans.get(key), node.value_spans.get(key)) for key, value in node.items()]
    if isinstance(node, YSeq):
        return [(index, value, None, node.item_spans[index] if index < len(node.item_spans) else None)
                for index, value in enumerate(node)]
    return []


def locate(node: Any, line: int, col: int, trail: tuple[Step, ...] = ()) -> Hit | None:
    """The scalar (key or value) whose span contains the position, with the path to it.

    Depth first in document order, with a stack rather than recursion (a buffer may nest a
    thousand levels), and each collection entered once (an alias inside itself, ``&a [*a]``)."""
    stack = [(iter(children(node)), node, trail)]
    seen = {id(node)}
    while stack:
        items, current, path = stack[-1]
        for key, value, key_span, value_span in items:
            step = path + ((current, key),)
            if key_span is not None and contains(key_span, line, col):
                return Hit(step, key, key_span, True)
            if value_span is None or not contains(value_span, line, col):
                continue
            if not isinstance(value, YMap | YSeq):
                return Hit(step, value, value_span, False)
            # a block collection's span runs on to the next token, so a neighbour may also
            # "contain" the position: when this one holds nothing there, the search goes on
            if id(value) not in seen:
                seen.add(id(value))
                stack.append((iter(children(value)), value, step))
                break
        else:
            stack.pop()
    return None


def node_at_span(node: Any, target: Span) -> Any:
    """The value (container or scalar) written exactly at ``target``; None if there is none."""
    if isinstance(node, YMap | YSeq) and node.span is not None and pos(node.span) == pos(target):
        return node
    pending, seen = [node], {id(node)}
    while pending:
        current = pending.pop(0)
        for _key, value, _key_span, value_span in children(current):
            if value_span is None:
                continue
            if pos(value_span) == pos(target):
                return value
            if isinstance(value, YMap | YSeq) and encloses(value_span, target) and id(value) not in seen:
                seen.add(id(value))
                pending.append(value)
    return None


def unquoted(span: Span, lines: list[str]) -> Span:
    """A one-line quoted scalar's span without its quotes, so editors mark just the name."""
    if span.line == span.end_line and 0 <= span.line < len(lines):
        raw = lines[span.line][span.col:span.end_col]
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            return span._replace(col=span.col + 1, end_col=span.end_col - 1)
    return span


def scalar_parts(value: Any, span: Span, lines: list[str]) -> list[tuple[str, Span]]:
    """A ``tags: a, b`` string split as ansible splits it, each part with its own span.
    Where the text cannot be matched up (escapes, multi-line scalars) the whole span is used."""
    text = str(value)
    whole = [(text.strip(), span)]
    if span.line != span.end_line or not 0 <= span.line < len(lines) or "," not in text:
        return whole
    raw = lines[span.line][span.col:span.end_col]
    parts: list[tuple[str, Span]] = []
    start = 0
    for part in text.split(","):
        item = part.strip()
        if not item:
            continue
        found = raw.find(item, start)
        if found < 0:
            return whole
        column = span.col + found
        parts.append((item, Span(span.file, span.line, column, span.line, column + len(item))))
        start = found + len(item)
    return parts or whole


def extent(node: Any, span: Span, lines: list[str]) -> Span:
    """``span`` ending where the node's text ends. A block collection's span runs on over
    blank lines and comments to the next token; those belong to what follows."""
    floor = _content_end(node, span, lines)
    line, col = span.end_line, span.end_col
    while line > max(floor, span.line):
        text = lines[line][:col] if line < len(lines) else ""
        if text.strip() and not text.lstrip().startswith("#"):
            break
        line -= 1
        col = len(lines[line]) if line < len(lines) else 0
    text = lines[line][:col] if 0 <= line < len(lines) else ""
    col = len(text.rstrip()) if line > span.line else max(len(text.rstrip()), span.col)
    return Span(span.file, span.line, span.col, line, col)


def _content_end(node: Any, span: Span, lines: list[str]) -> int:
    """The last line that holds the node's own content (its last value, all the way down; a
    loop, not recursion: a buffer may nest a thousand levels)."""
    seen: set[tuple[int, Span]] = set()  # an alias inside itself (&a [*a]) must not loop
    while (id(node), span) not in seen:
        seen.add((id(node), span))
        inner = [(value, value_span) for _k, value, _ks, value_span in children(node)
                 if value_span is not None and encloses(span, value_span)]
        if not inner:
            break
        node, span = max(inner, key=lambda item: (item[1].end_line, item[1].end_col))
    if span.end_col == 0 and span.end_line > span.line:
        return span.end_line - 1  # a block scalar ends at the start of the next line
    return span.end_line


# -- classification -----------------------------------------------------------------------

def classify(data: Any, lines: list[str], line: int, col: int, top: str | None = None) -> Target | None:
    """The navigable name at a position: a tag, a role name, an import/include target, a role
    file, a notified handler name or a module. None for anything else. ``top`` is what the
    document's top-level items are (play, task, handler); guessed from ``data`` when not given."""
    hit = locate(data, line, col)
    if hit is None or hit.value is None or isinstance(hit.value, bool):
        return None
    trail = hit.trail
    parent, key = trail[-1]
    item = isinstance(parent, YSeq)
    if item:
        if len(trail) < 2 or not isinstance(trail[-2][0], YMap):
            return None
        key = trail[-2][1]
    if not isinstance(key, str):
        return None
    depth = len(trail) - (2 if item else 1)
    ctx = context(trail, depth, top or top_kind_from_data(data))
    kind = name_kind(ctx, key, is_key=hit.is_key, item=item)
    text = str(hit.value)
    owner = trail[depth][0]
    if kind == TAG:
        for tag, span in scalar_parts(hit.value, hit.span, lines):
            if contains(span, line, col) or span == hit.span:
                return Target(TAG, tag, span, owner)
        return None
    if kind == NOTIFY:
        return Target(NOTIFY, text.strip(), hit.span, owner)
    if kind == ROLE:
        return Target(ROLE, text, hit.span, None if item else owner)
    if kind == ROLE_FILE:
        return Target(ROLE_FILE, text, hit.span, owner, FROM_KEYS[key])
    if kind == TASK_FILE and ctx.kind == "args":
        return Target(TASK_FILE, text, hit.span, trail[depth - 1][0])  # the task, not its arguments
    return Target(kind, text, hit.span, owner) if kind is not None else None


def context(trail: tuple[Step, ...], depth: int, top: str) -> Context:
    """The context of the mapping ``trail[depth][0]``, by the rules every reader shares."""
    mapping = trail[depth][0]
    if depth == 0:
        return Context("top", mapping)

    def action_text(key: str) -> str:
        return str(mapping[key])

    container, key = trail[depth - 1]
    if isinstance(container, YSeq):
        if depth == 1:
            return item_context(mapping, None, top, lambda: Context("other", {}), action_text)
        owner_key = trail[depth - 2][1]
        return item_context(mapping, owner_key if isinstance(owner_key, str) else "", top,
                            lambda: context(trail, depth - 2, top), action_text)
    return nested_context(mapping, str(key), lambda: context(trail, depth - 1, top))


def top_kind_from_data(data: Any) -> str:
    """'play' when a top-level item has a key only plays have, else 'task'."""
    if isinstance(data, YSeq) and any(isinstance(item, YMap) and play_keys(item) for item in data):
        return "play"
    return "task"

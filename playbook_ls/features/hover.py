"""Hover text for a task or a play: effective tags and ``when`` with where each comes from,
inherited keywords, and whether the default run and each launch profile run it. One section
per context that reaches the line. Pure functions over the workspace model; Markdown out.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from engine.flow.on_the_way import conditions_on_the_way, includers_of, origin_of
from engine.flow.tags import Selection, should_run
from engine.loading.keywords import INHERITED, Merge
from engine.loading.model import STATIC_IMPORTS, UNTAGGED, Frame, Task
from engine.span import Span
from playbook_ls.rules.base import display_path, never_exposure

if TYPE_CHECKING:
    from playbook_ls.features.workspace import Book, Reach, WorkspaceIndex

MAX_CONTEXTS = 6
INDEXING = "indexing the workspace"  # in every hover that says the answer must wait for the index
# Inherited keywords worth showing when a level above the task sets them.
SHOWN_KEYWORDS = tuple(k for k, merge in INHERITED.items() if merge == Merge.REPLACE and k not in ("collections",))


def indexing_markdown(stage: tuple[str, int, int] | None) -> str:
    """What a hover says while the workspace is being indexed (``stage``: what the index does,
    how many of how many; None: it has not started), instead of an empty answer that would
    read as "nothing here"."""
    if stage is None:
        return f"*playbook-ls has not started {INDEXING} yet: hover again in a moment.*"
    doing, done, total = stage
    what = f"{doing}, {done:,} of {total:,}" if total else doing
    return f"*playbook-ls is {INDEXING} ({what}): the answer comes when this file is indexed; hover again in a moment.*"


def hover_markdown(index: WorkspaceIndex, path: str, line: int) -> str | None:
    reaches = index.at(path, line)
    if not reaches or reaches[0].task is None:
        block = block_markdown(index, path, line)
        if block is not None:
            return block
    if not reaches:
        return unreached_markdown(index, path, line)
    if reaches[0].task is None:
        return _play_markdown(index, reaches)
    sections = []
    seen: set[str] = set()
    for reach in reaches:
        section = task_section(index, reach)
        if section not in seen:
            seen.add(section)
            sections.append(section)
    task = reaches[0].task
    assert task is not None
    head = f"**{task.display_name()}** · `{task.action}`"
    if len(sections) > 1:
        head += f"\n\nReached from {len(sections)} contexts; tags and conditions differ between them."
    shown = sections[:MAX_CONTEXTS]
    if len(sections) > MAX_CONTEXTS:
        shown.append(f"… and {len(sections) - MAX_CONTEXTS} more contexts")
    return "\n\n---\n\n".join([head, *shown])


def context_label(reach: Reach) -> str:
    """'site.yml › play "web" › roles: entry "db"' — how the task is reached."""
    book = reach.book
    start = f"role {os.path.basename(reach.task.role.path)} (used by no playbook)" if book.synthetic and \
        reach.task and reach.task.role and reach.task.role.path else f"`{display_path(book.path)}`"
    chain = reach.task.chain[:-1] if reach.task else []
    levels = [f.label for f in chain if f.kind != "block" or f.keywords]
    return " › ".join([start, *levels])


def task_section(index: WorkspaceIndex, reach: Reach) -> str:
    task = reach.task
    assert task is not None
    lines = [f"**via** {context_label(reach)}"]
    lines.append(_tags_line(task))
    when = conditions_on_the_way(task, includers_of(reach.play, task))
    if when:
        lines.append("**when** (all must hold, outermost first):")
        lines += [f"- `{cond}` — {origin}" for cond, origin in when]
    inherited = [(key, frame) for key in SHOWN_KEYWORDS
                 for frame in [next((f for f in reversed(task.chain) if key in f.keywords), None)]
                 if frame is not None and frame is not task.frame]
    if inherited:
        lines.append("**inherited:** " + " · ".join(
            f"`{key}: {frame.keywords[key]}` from {origin_of(frame, task, key)}" for key, frame in inherited))
    lines.append(run_summary(index, reach.book, task))
    return "\n\n".join(lines)


def _tags_line(task: Task) -> str:
    own = list(task.frame.tags)
    inherited = [(tag, frame) for frame in task.chain[:-1] for tag in frame.tags]
    if not own and not inherited:
        return "**tags:** none (selected by `--tags untagged`, `all`)"
    parts = [f"`{tag}` (this task)" for tag in own]
    parts += [f"`{tag}` ← {origin_of(frame, task, 'tags')}" for tag, frame in inherited]
    return "**tags:** " + " · ".join(parts)


def run_summary(index: WorkspaceIndex, book: Book, task: Task) -> str:
    """Whether the default run and each launch profile for this playbook run the task."""
    if task.handler:
        return "**runs:** when notified (handlers are not selected by tags)"
    tags = task.tag_set() or UNTAGGED
    config = index.configs.for_path(book.path)
    default = Selection.from_options(config.run_tags, config.skip_tags)
    parts = [f"default run: {_verdict(tags, default)}"]
    exposure = never_exposure(task)
    for profile in index.profiles_for(book):
        selection = Selection.from_options(profile.job_tags, profile.skip_tags)
        verdict = _verdict(tags, selection)
        if exposure and should_run(tags, selection) and not should_run(exposure.own, selection):
            verdict += " ⚠ through an inherited tag, although it is tagged `never`"
        parts.append(f"profile `{profile.name}`: {verdict}")
    return "**runs:** " + " · ".join(parts)


def _verdict(tags: set[object] | frozenset[object], selection: Selection) -> str:
    if should_run(tags, selection):
        if "always" in tags and "always" not in selection.skip_tags:
            return "runs (`always`)"
        chosen = sorted(str(t) for t in tags if t in selection.only_tags)
        return f"runs (selected by `{'`, `'.join(chosen)}`)" if chosen else "runs"
    if selection.skip_tags & tags or ("all" in selection.skip_tags):
        skipped = sorted(str(t) for t in tags if t in selection.skip_tags) or ["all"]
        return f"skipped (`--skip-tags {','.join(skipped)}`)"
    if "never" in tags:
        return "skipped (`never`)"
    return "skipped (no selected tag)"


def _play_markdown(index: WorkspaceIndex, reaches: list[Reach]) -> str:
    play = reaches[0].play
    tasks = sum(1 for r in index.reaches(play.span.file) if r.task is not None and r.play is play) if play.span else 0
    tags = ", ".join(f"`{t}`" for t in play.frame.tags) or "none"
    books = sorted({display_path(r.book.path) for r in reaches})
    lines = [f"**play** {play.name or ', '.join(play.hosts)} · hosts `{', '.join(play.hosts)}`",
             f"**tags:** {tags} (every task of the play inherits them)",
             f"**playbooks:** {', '.join(books)}"]
    if tasks:
        lines.append(f"{tasks} tasks written in this file")
    return "\n\n".join(lines)


def unreached_markdown(index: WorkspaceIndex, path: str, line: int) -> str | None:
    """A task in a file no playbook reaches: what it says itself, and that nothing reaches it."""
    data = index.load(path).data
    if not isinstance(data, list) or index.reaches(path):
        return None
    item = _item_at(data, line)
    if not isinstance(item, dict):
        return None
    from engine.loading.frames import load_tags

    try:
        tags = [str(t) for t in load_tags(item.get("tags"))]
    except TypeError:
        tags = []
    name = item.get("name") or next((str(k) for k in item if k not in ("tags", "when", "name")), "task")
    when = item.get("when")
    lines = [f"**{name}**",
             "Not reached from any playbook in the workspace: only its own tags and conditions are known.",
             "**tags:** " + (", ".join(f"`{t}`" for t in tags) if tags else "none")]
    if when:
        conditions = when if isinstance(when, list) else [when]
        lines.append("**when:** " + " and ".join(f"`{c}`" for c in conditions))
    return "\n\n".join(lines)


def _item_at(sequence: list, line: int) -> object:
    """The innermost list item (a task, or a task inside a block) whose lines contain ``line``."""
    spans = getattr(sequence, "item_spans", [])
    for item, span in zip(sequence, spans, strict=False):
        if span is not None and span.line <= line < max(span.end_line, span.line + 1):
            if isinstance(item, dict):
                for section in ("block", "rescue", "always"):
                    inner = item.get(section)
                    if isinstance(inner, list):
                        found = _item_at(inner, line)
                        if found is not None:
                            return found
            return item
    return None


def block_markdown(index: WorkspaceIndex, path: str, line: int) -> str | None:
    """On a block's own lines (its header, keywords), or on a static import (import_tasks,
    import_role): the tags and conditions it passes on to its tasks, one section per context."""
    real = index.real(path)
    found: dict[int, tuple[Frame, Reach]] = {}  # innermost block or import at the line, per context
    counts: dict[int, int] = {}  # tasks under each
    imported = [reach for _frame, reaches in index.imports_in(path) for reach in reaches]
    for reach in [*index.reaches(path), *imported]:
        chain = reach.task.chain if reach.task else []
        levels = [f for f in chain if _passes_on(f) and f.span is not None and index.real(f.span.file) == real
                  and _within(f.span, line)]
        if levels:
            frame = min(levels, key=lambda f: f.span.end_line - f.span.line)  # type: ignore[union-attr]
            found.setdefault(id(frame), (frame, reach))
            counts[id(frame)] = counts.get(id(frame), 0) + 1
    if not found:
        return None
    # each context's innermost level at the line; the same level in every context
    size = min(frame.span.end_line - frame.span.line for frame, _ in found.values())  # type: ignore[union-attr]
    found = {key: item for key, item in found.items()
             if item[0].span.end_line - item[0].span.line == size}  # type: ignore[union-attr]
    sections = [_block_section(frame, reach) for frame, reach in found.values()]
    first = next(iter(found.values()))[0]
    count = counts[id(first)]
    head = f"**{first.label}** · {count} task{'' if count == 1 else 's'}"
    return "\n\n---\n\n".join([head, *dict.fromkeys(sections)])


def _passes_on(frame: Frame) -> bool:
    """A level written in a file that hands tags and conditions to tasks below it."""
    return (frame.kind == "block" and frame.label != "implicit block") or frame.kind in STATIC_IMPORTS


def _within(span: Span, line: int) -> bool:
    return span.line <= line < max(span.end_line, span.line + 1)


def _block_section(block: Frame, reach: Reach) -> str:
    task = reach.task
    assert task is not None
    above = task.chain[:task.chain.index(block) + 1]

    def origin(frame: Frame, keyword: str) -> str:
        return f"this {'block' if block.kind == 'block' else 'import'}" if frame is block \
            else origin_of(frame, task, keyword)

    tags = [f"`{tag}` ← {origin(frame, 'tags')}" for frame in above for tag in frame.tags]
    lines = [f"**via** {context_label(reach).rsplit(' › ', 1)[0]}",
             "**tags passed to its tasks:** " + (" · ".join(tags) if tags else "none")]
    conditions = [f"- `{cond}` — {origin(frame, 'when')}" for frame in above for cond in frame.when]
    if conditions:
        lines += ["**when** (re-evaluated for each of its tasks):", *conditions]
    return "\n\n".join(lines)

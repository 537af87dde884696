"""Tag selection exactly as ansible-core's ``Taggable.evaluate_tags``, and the listings.

``--tags`` is applied first, then ``--skip-tags``. Empty ``--tags`` means ``all``.
``--list-tasks`` / ``--list-tags`` output is reproduced byte for byte from
``PlaybookCLI.run``: play header, then the selected tasks of each play's main block lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.keywords import META
from engine.model import Block, Play, Playbook, Task

UNTAGGED = frozenset({"untagged"})


@dataclass(frozen=True, slots=True)
class Selection:
    only_tags: frozenset[str]
    skip_tags: frozenset[str]

    @classmethod
    def from_options(cls, tags: Iterable[str] = (), skip_tags: Iterable[str] = ()) -> Selection:
        """Build from repeated / comma-separated ``--tags`` and ``--skip-tags`` values."""
        only = frozenset(_split(tags)) or frozenset({"all"})
        return cls(only, frozenset(_split(skip_tags)))


def _split(values: Iterable[str]) -> Iterator[str]:
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if item:
                yield item


def should_run(tags: set[object] | frozenset[object], selection: Selection) -> bool:
    """``Taggable.evaluate_tags`` on a task's effective tags (an empty set means untagged)."""
    tags = tags or UNTAGGED
    only_tags, skip_tags = selection.only_tags, selection.skip_tags
    run = True
    if only_tags:
        if "always" in tags:
            run = True
        elif "all" in only_tags and "never" not in tags:
            run = True
        elif not tags.isdisjoint(only_tags):
            run = True
        elif "tagged" in only_tags and tags != UNTAGGED and "never" not in tags:
            run = True
        else:
            run = False
    if run and skip_tags:
        if "all" in skip_tags:
            if "always" not in tags or "always" in skip_tags:
                run = False
        elif not tags.isdisjoint(skip_tags):
            run = False
        elif "tagged" in skip_tags and tags != UNTAGGED:
            run = False
    return run


def _listed(task: Task) -> bool:
    return not (task.implicit and task.action in META)


def selected_tasks(play: Play, selection: Selection) -> list[Task]:
    """The tasks ``--list-tasks`` shows: main block lists only, after tag filtering."""

    def walk(block: Block) -> Iterator[Task]:
        for item in block.block:
            if isinstance(item, Block):
                yield from walk(item)
            elif _listed(item) and should_run(item.tag_set(), selection):
                yield item

    return [task for block in play.compile() for task in walk(block)]


def _sorted_tags(tags: Iterable[object]) -> list[object]:
    try:
        return sorted(tags)  # type: ignore[type-var]
    except TypeError:  # ansible would fail on mixed int/str tags; keep going with a stable order
        return sorted(tags, key=str)


def _play_header(index: int, play: Play) -> str:
    return f"\n  play #{index + 1} ({','.join(play.hosts)}): {play.name}\tTAGS: [{','.join(map(str, play.tags))}]"


def render_listing(playbooks: Iterable[Playbook], selection: Selection, list_tasks: bool, list_tags: bool) -> str:
    """The exact stdout of ``ansible-playbook --list-tasks`` and/or ``--list-tags``."""
    out: list[str] = []
    for book in playbooks:
        out.append(f"\nplaybook: {book.path}\n")
        for index, play in enumerate(book.plays):
            out.append(_play_header(index, play) + "\n")
            play_tags = set(play.tags)
            text = "    tasks:\n" if list_tasks else ""
            all_tags: set[object] = set()
            for task in selected_tasks(play, selection):
                tags = task.tag_set()
                all_tags.update(tags)
                if list_tasks:
                    shown = ", ".join(map(str, _sorted_tags(play_tags | tags)))
                    text += f"      {task.display_name()}\tTAGS: [{shown}]\n"
            if list_tags:
                text += f"      TASK TAGS: [{', '.join(map(str, _sorted_tags(play_tags | all_tags)))}]\n"
            out.append(text)
    return "".join(out)

"""Tag selection exactly as ansible-core's ``Taggable.evaluate_tags``, and the listings.

``--tags`` is applied first, then ``--skip-tags``. Empty ``--tags`` means ``all``.
``--list-tasks`` / ``--list-tags`` output is reproduced byte for byte from
``PlaybookCLI.run``: play header, then the selected tasks of each play's main block lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.loading.keywords import META
from engine.loading.model import UNTAGGED, Block, Frame, Play, Playbook, Problem, Task
from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Selection(NamedTuple):
    only_tags: frozenset[str]
    skip_tags: frozenset[str]

    @classmethod
    def from_options(cls, tags: Iterable[str] = (), skip_tags: Iterable[str] = (),
                     listing_tags: bool = False) -> Selection:
        """Build from repeated / comma-separated ``--tags`` and ``--skip-tags`` values.

        As in ansible's CLI: items are stripped but empty ones are kept (``--tags ''`` selects
        the empty tag), no ``--tags`` means ``all``, and ``--list-tags`` without any tag option
        lists ``never`` tasks too.
        """
        tags, skip_tags = list(tags), list(skip_tags)
        if listing_tags and not (tags or skip_tags):
            tags = ["never", "all"]
        only = frozenset(_split(tags)) or frozenset({"all"})
        return cls(only, frozenset(_split(skip_tags)))


def _split(values: Iterable[str]) -> Iterator[str]:
    for value in values:
        for item in value.split(","):
            yield item.strip()


def should_run(tags: set[object] | frozenset[object], selection: Selection) -> bool:
    """``Taggable.evaluate_tags`` on the tags :class:`TagEvaluator` computed for a task."""
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


def _main_list(block: Block) -> Iterator[Task]:
    """``--list-tasks`` walks only a block's main list (not rescue/always), nested blocks included."""
    for item in block.block:
        if isinstance(item, Block):
            yield from _main_list(item)
        elif _listed(item):
            yield item


class TagEvaluator:
    """The tags ansible evaluates for each task of one play, in the order it filters them.

    ansible templates tags in place while filtering: a task's evaluation templates the tags
    of the task, its parents, their roles and the play, and later tasks see those templated
    values. Tags only reachable through a dependency's parent role stay as written until
    that role's own tasks template them. Reproducing this state reproduces ansible's
    selections and printed tags exactly.
    """

    def __init__(self, static: bool = False) -> None:
        """``static``: no level's tags are templated (:meth:`for_play`), so a task's tags are
        its levels' tags as written, whatever was evaluated before it."""
        self._static = static
        self._templated: set[int] = set()
        # each frame's tags as ansible reads them now, by id (frames outlive the evaluator):
        # a play's every task is evaluated with its whole chain, a tenth of a listing
        self._now: dict[int, list[Any]] = {}

    def _current(self, frame: Frame) -> list[Any]:
        now = self._now.get(id(frame))
        if now is None:
            now = self._now[id(frame)] = frame.tags if id(frame) in self._templated else frame.raw_tags
        return now

    @classmethod
    def for_play(cls, play: Play) -> TagEvaluator:
        return cls(static=not play.templated_tags)

    def evaluate(self, task: Task) -> set[Any] | frozenset[Any]:
        """The tag set ``evaluate_tags`` compares; raises :class:`TagTemplateError`."""
        if self._static:
            return task.tag_set() or UNTAGGED
        templated, chain = self._templated, task.chain
        lists = self._chain_tags(chain)
        if not any(lists):
            return UNTAGGED
        untemplated = [frame for frame in chain if id(frame) not in templated]
        if untemplated:
            hidden = {id(frame) for frame in task.dependency_parent_entries()}
            for frame in untemplated:
                if id(frame) not in hidden:
                    if frame.tag_error is not None:
                        raise TagTemplateError(frame.tag_error)
                    templated.add(id(frame))
                    self._now[id(frame)] = frame.tags
            lists = self._chain_tags(chain)
        return _union(lists)

    def _chain_tags(self, chain: list[Frame]) -> list[list[Any]]:
        """Each level's current tags; inlined lookups, as every task of a listing asks for its
        whole chain (tens of thousands of levels on a large playbook)."""
        now = self._now
        lists = [now.get(id(frame)) for frame in chain]
        if None in lists:
            current = self._current
            lists = [current(frame) if tags is None else tags for frame, tags in zip(chain, lists, strict=True)]
        return lists  # type: ignore[return-value]

    def frame_tags(self, frame: Frame) -> list[Any]:
        """One level's tags as ansible reads them now (templated once a task below was evaluated)."""
        return self._current(frame)

    def current_tags(self, task: Task) -> set[Any] | frozenset[Any]:
        """``task.tags`` as ansible reads them now: templated where templating has happened."""
        if self._static:
            return task.tag_set()
        return _union(self._chain_tags(task.chain))


def _union(lists: list[list[Any]]) -> set[Any]:
    result: set[Any] = set()
    for tags in lists:
        if tags:
            result.update(tags)
    return result


class TagTemplateError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def _evaluated(evaluator: TagEvaluator, block: Block) -> dict[int, set[Any] | frozenset[str]]:
    """Evaluate every task of a top-level block (main, rescue, always) like ``filter_tagged_tasks``."""
    return {id(task): evaluator.evaluate(task) for task in block.tasks()}


def selected_tasks(play: Play, selection: Selection) -> list[Task]:
    """The tasks ``--list-tasks`` shows: main block lists only, after tag filtering.

    Tasks whose tags cannot be templated are left out (the listing reports the error).
    """
    evaluator, selected = TagEvaluator.for_play(play), []
    for block in play.compile():
        try:
            tags = _evaluated(evaluator, block)
        except TagTemplateError:
            return selected
        selected += [task for task in _main_list(block) if should_run(tags[id(task)], selection)]
    return selected


class ListingAborted(Exception):
    """ansible-playbook stops part-way through the listing; ``output`` is what it printed."""

    def __init__(self, output: str, problem: Problem) -> None:
        super().__init__(str(problem))
        self.output = output
        self.problem = problem


def _joined(tags: Iterable[object], separator: str, where: Play | Task, output: list[str]) -> str:
    """ansible joins tags as strings; a YAML integer tag makes it crash (exit 250)."""
    values = list(tags)
    bad = next((tag for tag in values if not isinstance(tag, str)), None)
    if bad is not None:
        span = where.span
        problem = Problem("integer-tag", f"tag {bad!r} is not a string: ansible-playbook crashes listing it",
                          span, f"Quote the tag: '{bad}'.", exit_code=250)
        raise ListingAborted("".join(output), problem)
    return separator.join(values)  # type: ignore[arg-type]


def _sorted(tags: set[object]) -> list[object]:
    try:
        return sorted(tags)  # type: ignore[type-var]
    except TypeError:
        return list(tags)  # mixed types: _joined reports the crash ansible would have


def render_listing(playbooks: Iterable[Playbook], selection: Selection, list_tasks: bool, list_tags: bool) -> str:
    """The exact stdout of ``ansible-playbook --list-tasks`` and/or ``--list-tags``.

    Raises :class:`ListingAborted` where ansible-playbook would stop part-way (a tag that
    cannot be templated, an integer tag), carrying what ansible had printed by then.
    """
    out: list[str] = []
    for book in playbooks:
        out.append(f"\nplaybook: {book.path}\n")
        for index, play in enumerate(book.plays):
            # ansible joins set(play.tags): each tag once (in an order of its own when there are several)
            header = _joined(dict.fromkeys(play.tags), ",", play, out)
            out.append(f"\n  play #{index + 1} ({','.join(play.hosts)}): {play.name}\tTAGS: [{header}]\n")
            play_tags = set(play.tags)
            text = "    tasks:\n" if list_tasks else ""
            all_tags: set[object] = set()
            evaluator = TagEvaluator.for_play(play)
            for block in play.compile():
                try:
                    evaluated = _evaluated(evaluator, block)
                except TagTemplateError as exc:
                    raise ListingAborted("".join(out), exc.problem) from None
                for task in _main_list(block):
                    if not should_run(evaluated[id(task)], selection):
                        continue
                    # printed after the whole block was filtered, so with the tags as they are now
                    tags = evaluator.current_tags(task)
                    all_tags.update(tags)
                    if list_tasks:
                        shown = _joined(_sorted(play_tags | tags), ", ", task, out)
                        text += f"      {task.display_name()}\tTAGS: [{shown}]\n"
            if list_tags:
                text += f"      TASK TAGS: [{_joined(_sorted(play_tags | all_tags), ', ', play, out)}]\n"
            out.append(text)
    return "".join(out)

"""Whether a task of a block with a ``rescue`` runs on a host, for what earlier tasks set there.

A failure in a ``block`` section skips the rest of that section and runs the block's ``rescue``
(``PlayIterator``); a reader after the block (in its ``always``, or past it) sees what the
``block`` tasks before the failure set and what the ``rescue`` set, a host with no failure what
the whole ``block`` set and nothing of the ``rescue``. Which of the two it is, is known before
the run only when every task that could fail is known to fail or not: an ``assert`` and its
conditions (one reading a name defined nowhere fails, as in the run), a ``fail``, a task its
``when`` skips, one whose errors are ignored, one whose ``failed_when`` is known, and the actions
that do not fail on their own (``debug``, ``set_fact``, ``meta``, includes). A module may fail for
a reason of its own (engine.variables.task_kinds.fails_on_its_own): whether the rescue runs, and
whether the ``block`` tasks after it ran, is then the run's to say, for ``vars`` and ``plan`` alike
(the plan's rescue tasks depend). A ``failed_when`` or templated ``ignore_errors`` left to the run
leaves what depends on it unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.flow.block_failures import BLOCK, RESCUE, block_paths
from engine.loading import keywords as kw
from engine.variables.failing import argument_failure, condition_fails, failed_when, holds
from engine.variables.sources import INCLUDE_VARS, SET_FACT
from engine.variables.task_kinds import ASSERT, DEBUG, FAIL, fails_on_its_own

if TYPE_CHECKING:
    from engine.loading.model import Play, Task
    from engine.templating.templar import Templar

NEVER_FAILS = DEBUG | SET_FACT | kw.META | kw.INCLUDE_TASKS | kw.IMPORT_TASKS | kw.INCLUDE_ROLE | kw.IMPORT_ROLE

Decided = bool | str
"""True, False, or why only the run knows."""


class PlayBlocks:
    """A play's blocks with a ``rescue``: where each task is in them, and each such block's
    ``block`` section flattened in run order (the tasks includes load in it included; a block
    inside with its own ``rescue`` takes over its own failures)."""

    def __init__(self, play: Play) -> None:
        blocks = play.compile()
        self.paths, self.rescuing = block_paths(blocks)
        self.sections: dict[int, list[Task]] = {}
        self.places: dict[int, dict[int, int]] = {}
        """Each block with a ``rescue``: the place in run order of every task of its ``block``
        section, those of the blocks inside it included (by id)."""
        self.rescue_starts: dict[int, Task] = {}
        """Each block with a ``rescue``: the first task of that section."""
        self._walk(blocks)

    def _walk(self, items: list[Any]) -> None:
        for item in items:
            if hasattr(item, "rescue"):
                if id(item) in self.rescuing:
                    self.sections[id(item)] = list(_failing_tasks(item.block))
                    self.places[id(item)] = {id(task): at for at, task in enumerate(_every_task(item.block))}
                    first = next(iter(_failing_tasks(item.rescue)), None)
                    if first is not None:
                        self.rescue_starts[id(item)] = first
                for section in ("block", "rescue", "always"):
                    self._walk(getattr(item, section))
            else:
                self._walk(getattr(item, "children", ()))


def _failing_tasks(items: list[Any]) -> Any:
    """The tasks of a ``block`` section whose failure reaches the block (in run order)."""
    for item in items:
        if hasattr(item, "rescue"):
            if not item.rescue:
                yield from _failing_tasks(item.block)
            yield from _failing_tasks(item.rescue)
            yield from _failing_tasks(item.always)
        else:
            yield item
            yield from _failing_tasks([block for block in getattr(item, "children", ())])


def _every_task(items: list[Any]) -> Any:
    """Every task of a section, in run order, the blocks inside it included."""
    for item in items:
        if hasattr(item, "rescue"):
            for section in (item.block, item.rescue, item.always):
                yield from _every_task(section)
        else:
            yield item
            yield from _every_task([block for block in getattr(item, "children", ())])


def play_blocks(play: Play) -> PlayBlocks:
    """The play's blocks, kept with the play (an edit replaces the play and them with it)."""
    found = play.derived.get("rescue blocks")
    if found is None:
        found = play.derived["rescue blocks"] = PlayBlocks(play)
    return found  # type: ignore[no-any-return]


def fails(task: Task, templar: Templar, gate: list[Any], arguments: bool = True) -> Decided:
    """Whether ``task`` fails on the host whose ``templar`` it is (``gate``: the conditions it
    checks, those of the includes that load it first, its own last). A looped task runs every item
    its own ``when`` lets run and fails when one of them fails (``TaskExecutor._run_loop``).
    ``arguments``: whether its arguments are read too (not for a task of a ``rescue`` section,
    read here on hosts where that rescue may not run: its ``ansible_failed_*`` are then undefined)."""
    label = f"task '{task.display_name()}'"
    data = task.data if isinstance(task.data, Mapping) else {}
    if data.get("ignore_errors") is True:
        return False
    own = len(task.effective_when()) if _looped(data) else 0
    loaded = _holding(gate[:len(gate) - own], templar, label)
    if loaded is not True:
        return True if loaded is None else loaded
    if data.get("ignore_errors") not in (None, False):
        return f"{label} fails or not as the run decides"
    if not _looped(data):
        return _fails_once(task, templar, data, label, arguments)
    from engine.variables.loop_vars import LoopFails, loop_scopes

    scopes = loop_scopes(task, templar)
    if isinstance(scopes, LoopFails):
        return True
    if not isinstance(scopes, list):
        return f"{label} is looped over items only the run knows"
    unsure: Decided = False
    for scope in scopes:
        here = templar.child(dict(scope))
        holding = _holding(gate[len(gate) - own:], here, label)
        decided = _fails_once(task, here, data, label, arguments) if holding is True else \
            True if holding is None else holding
        if decided is True:
            return True  # the other items run too, and the task fails
        unsure = unsure or decided
    return unsure


def _holding(conditions: list[Any], templar: Templar, label: str) -> bool | str | None:
    """True when every condition holds, False when one does not (skipped), None when evaluating
    one fails the task (:func:`condition_fails`), else why only the run knows."""
    for condition in conditions:
        try:
            if not templar.evaluate(condition):
                return False  # skipped
        except Exception as exc:  # noqa: BLE001 - a condition only the run decides
            if condition_fails(exc):
                return None
            return f"{label} runs only if {condition!r} holds, which only the run knows ({exc})"
    return True


def _fails_once(task: Task, templar: Templar, data: Mapping[str, Any], label: str, arguments: bool = True) -> Decided:
    """Whether one run of ``task`` (one item of a loop) that its conditions let run fails: its
    arguments are templated first (a failure there is the task's, whatever its failed_when says)."""
    if arguments and argument_failure(task, templar) is not None:
        return True
    if "failed_when" in data:
        return failed_when(task, templar, label)
    if task.action in NEVER_FAILS or task.action in INCLUDE_VARS and "loop" not in data:
        return False
    if task.action in FAIL:
        return True
    if task.action in ASSERT:
        args = task.args if isinstance(task.args, Mapping) else {}
        that = args.get("that")
        for condition in that if isinstance(that, list) else [that]:
            holding = holds(templar, condition, f"{label}'s assertion")
            if holding is not True:
                return True if holding in (False, None) else holding
        return False
    if fails_on_its_own(task):
        return f"{label} fails or not as the run decides (a module's own failure)"
    return False


def fails_by_condition(templar: Templar, gate: list[Any]) -> bool:
    """Whether the first of the conditions ``gate`` that does not hold fails its task instead
    (:func:`condition_fails`)."""
    for condition in gate:
        try:
            if not templar.evaluate(condition):
                return False
        except Exception as exc:  # noqa: BLE001 - as fails() reads it
            return condition_fails(exc)
    return False


def _looped(data: Mapping[str, Any]) -> bool:
    return "loop" in data or any(str(key).startswith("with_") for key in data)


def in_rescuing_block(blocks: PlayBlocks, reader: Task | None) -> bool:
    """Whether ``reader`` runs inside a block with a ``rescue`` (in any of its sections): only then
    does :func:`runs_there` answer it otherwise than a reader past the play's blocks (None)."""
    if reader is None or not blocks.rescuing:
        return False
    return any(block in blocks.rescuing for block, _ in blocks.paths.get(id(reader)) or ())


def reader_place(blocks: PlayBlocks, reader: Task | None) -> tuple[Any, ...]:
    """The sections of the play's blocks ``reader`` runs in (none for a reader past them): all
    :func:`runs_there` reads of the reader."""
    return blocks.paths.get(id(reader)) or () if reader is not None else ()


def runs_there(blocks: PlayBlocks, task: Task, reader: Task | None,
               fails_on_host: Callable[[Task], Decided], item_by_item: Callable[[Task], bool] | None = None,
               deciding: Callable[[int], bool] | None = None) -> Decided:
    """Whether ``task`` ran on the host by the time ``reader`` runs there (None: a reader past
    the play's blocks), as far as the blocks with a ``rescue`` around it decide. ``item_by_item``:
    whether an earlier task is of the same file a looping include loads: its failure stops
    ``task``'s runs item by item (engine.variables.include_stops), not all of them. ``deciding``:
    which of the blocks around it decide here (None: all; those inside a file a looping include
    loads decide each item's run on its own)."""
    path = blocks.paths.get(id(task))
    if not path:
        return True
    reader_path = reader_place(blocks, reader)
    for block, section in path:
        if block not in blocks.rescuing or (block, section) in reader_path or deciding and not deciding(block):
            continue  # the reader runs in this section too: the host got there with it
        tasks = blocks.sections.get(block, [])
        if section == BLOCK:  # ran only if nothing before it in the section failed
            # (a task of a block inside with its own rescue is not among those failing this one)
            places = blocks.places.get(block, {})
            mine = places.get(id(task), len(places))
            before = [found for found in tasks if places.get(id(found), len(places)) < mine]
            decided = _first_failure([found for found in before if item_by_item is None or not item_by_item(found)],
                                     fails_on_host, [found for found in before if item_by_item and item_by_item(found)])
            if decided is not False:
                return False if decided is True else decided
        elif section == RESCUE:  # ran only if something in the block section failed
            decided = _first_failure(tasks, fails_on_host)
            if decided is not True:
                return decided
    return True


class _AsksHost(Exception):  # noqa: N818 - not an error: a host's failure was asked
    """Raised where :func:`runs_anywhere` is asked a host's failure."""


def _asks_host(task: Task) -> Decided:
    raise _AsksHost


def runs_anywhere(blocks: PlayBlocks, task: Task, reader: Task | None,
                  item_by_item: Callable[[Task], bool] | None = None,
                  deciding: Callable[[int], bool] | None = None) -> Decided | None:
    """What :func:`runs_there` answers on every host where it asks no host whether a task fails
    (the blocks around ``task`` that decide have nothing before it that may fail, or the reader runs
    in their sections): the same answer, found once; None where it asks."""
    try:
        return runs_there(blocks, task, reader, _asks_host, item_by_item, deciding)
    except _AsksHost:
        return None


def _first_failure(tasks: list[Task], fails_on_host: Callable[[Task], Decided],
                   unsure_only: Sequence[Task] = ()) -> Decided:
    """True when one of ``tasks`` fails (the ones before it do not or may), False when none
    does, else why only the run knows (also when one of ``unsure_only`` may fail, whose certain
    failure decides elsewhere)."""
    unsure: str | None = next((why for task in unsure_only for why in [fails_on_host(task)] if isinstance(why, str)),
                              None)
    for task in tasks:
        decided = fails_on_host(task)
        if decided is True:
            return True
        if isinstance(decided, str) and unsure is None:
            unsure = decided
    return unsure if unsure is not None else False


def failing_task(blocks: PlayBlocks, block: int, fails_on_host: Callable[[Task], Decided]) -> Task | str | None:
    """The task of ``block``'s ``block`` section that sends the host to its rescue: None when none
    fails, why only the run knows when one may (or one before the failing one may)."""
    for task in blocks.sections.get(block, []):
        decided = fails_on_host(task)
        if decided is True:
            return task
        if isinstance(decided, str):
            return decided
    return None

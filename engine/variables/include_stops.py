"""Where a host stops running the file a looping include loads: the first run of one of its tasks
certain to fail the host (an ``assert``, a ``fail``, a ``failed_when``), in run order — item by
item, each item's tasks in file order (ansible-core 2.19 linear strategy: the include's items are
included one after the other, and a failure skips the rest of the host's block section, later
items included). The file's tasks before it at that item and at every earlier item ran; none after
it did. A rescue around the include takes the failure over just the same: what the runs before the
stop set is kept, the rescue reads the failing task's result at its item. A stop inside a block of
the file with a rescue of its own is that block's, not the file's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.flow.block_failures import ALWAYS
from engine.variables.block_runs import play_blocks
from engine.variables.task_kinds import ASSERT, FAIL

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.variables.block_runs import Decided


@dataclass(frozen=True)
class Stop:
    """The run (the items of the looping includes) where a task of the file fails the host."""

    run: tuple[int, ...]
    task: Task
    tasks: tuple[int, ...]
    """The ids of the file's tasks, in file order."""
    at: int
    """The place of the failing task among them."""
    always: frozenset[int] = frozenset()
    """The file's tasks that run at that run all the same: the ``always`` sections of the blocks
    of the file around the failing task."""

    def keeps(self, task: Task, run: tuple[int, ...], runs: list[tuple[int, ...]]) -> bool | None:
        """Whether ``task``'s ``run`` happened (None: the task is not in the file)."""
        if id(task) not in self.tasks:
            return None
        for each in runs:
            if each == run:
                return each != self.run or self.tasks.index(id(task)) < self.at or id(task) in self.always
            if each == self.run:
                return False
        return True


def may_stop(task: Task, caught_inside: Callable[[Task], bool]) -> bool:
    """Whether ``task`` can fail the host on its own (an ``assert``, ``fail`` or ``failed_when``
    whose errors are not ignored, not taken over by a rescue inside the file)."""
    data = task.data if isinstance(task.data, Mapping) else {}
    return (task.action in ASSERT | FAIL or "failed_when" in data) and not data.get("ignore_errors") \
        and not caught_inside(task)


def first_stop(same: list[Task], runs: list[tuple[int, ...]], fails_at: Callable[[Task, tuple[int, ...]], Decided],
               caught_inside: Callable[[Task], bool],
               paths: Mapping[int, tuple[tuple[int, str], ...]] | None = None) -> Stop | str | None:
    """The first run where one of ``same`` (the file's tasks, in order) fails the host, over its
    ``runs`` in run order; None when none does; why only the run knows when one may first.
    ``fails_at``: whether a task fails the host at a run (engine.variables.block_runs.fails with
    the host's templar there). ``paths``: each task's blocks and sections
    (engine.flow.block_failures.block_paths)."""
    failing = [(at, each) for at, each in enumerate(same) if may_stop(each, caught_inside)]
    ids = tuple(id(each) for each in same)
    for run in runs if failing else []:
        for at, each in failing:
            decided = fails_at(each, run)
            if isinstance(decided, str):
                return decided
            if decided is True:
                around = {block for block, section in (paths or {}).get(id(each), ()) if section != ALWAYS}
                always = frozenset(id(other) for other in same[at + 1:] if any(
                    block in around and section == ALWAYS for block, section in (paths or {}).get(id(other), ())))
                return Stop(run, each, ids, at, always)
    return None


def caught_within(play: Any, include: Task) -> Callable[[Task], bool]:
    """Whether a task's failure is taken over by a block with a rescue that is not around ``include``
    (one inside the file it loads)."""
    blocks = play_blocks(play)
    around = {block for block, _ in blocks.paths.get(id(include), ())}

    def caught(task: Task) -> bool:
        return any(block in blocks.rescuing and block not in around for block, _ in blocks.paths.get(id(task), ()))

    return caught

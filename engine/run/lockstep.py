"""Which task the linear strategy runs next, and on which hosts (``_get_next_task_lockstep``).

ansible keeps every task of the play in one list, in the order the play is written (each
block's tasks, then its rescue, then its always section; included tasks are inserted where the
include ran, handlers where ``flush_handlers`` runs them), with a cursor that only moves forward.
The next task is the first one from the cursor that some host has next; it runs on every host
that has it next, and the others wait. So a host in a rescue section runs it while the other
hosts wait before their next task, instead of the first host running ahead to the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.loading.model import Block, Task


class Lockstep:
    def __init__(self, blocks: Iterable[Block]) -> None:
        self.tasks: list[Task] = [task for block in blocks for task in block.tasks()]
        self.cursor = 0

    def next(self, pending: Mapping[str, Task | None], order: list[str]) -> tuple[Task, list[str]] | None:
        """The task to run and its hosts (in ``order``), or None when no host has a task left."""
        wanted = {id(task) for task in pending.values() if task is not None}
        if not wanted:
            return None
        for _ in range(2):  # from the cursor to the end, then once more from the start
            while self.cursor < len(self.tasks):
                task = self.tasks[self.cursor]
                self.cursor += 1
                if id(task) in wanted:
                    return task, [name for name in order if pending.get(name) is task]
            self.cursor = 0
        # a task the list does not hold (ansible would stop on an assertion): the first host's
        first = next(name for name in order if pending.get(name) is not None)
        task = pending[first]
        assert task is not None
        return task, [name for name in order if pending.get(name) is task]

    def insert(self, included: Iterable[Block], once: bool = True) -> None:
        """Tasks an include just loaded, where the cursor is: they run next. ``once``: the blocks
        are the hosts' (the same include's tasks once); else the play's includes, in order (a
        file a host included twice is there twice)."""
        seen: set[int] = set()
        tasks = [task for block in included for task in block.tasks()
                 if not (once and (id(task) in seen or seen.add(id(task))))]
        self.tasks[self.cursor:self.cursor] = tasks

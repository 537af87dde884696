"""``--start-at-task``, as ansible-playbook's PlayIterator does it.

When a play's iterator is made (once per batch), each host's state is walked forward without
running anything ("peek") until a task whose name matches: its own name or the name its banner
shows (``Task.get_name``: ``role : name``, or the action of an unnamed task), equal or as an
``fnmatch`` pattern. The walk goes through each block's tasks, then its always section (never its
rescue: nothing fails), into nested blocks and the statically imported tasks and roles; an include
is one task (what it would include is never seen: "can only follow static includes"), and the
implicit ``flush_handlers`` tasks are passed over (no handler is notified yet). The host then
starts at the matched task, after gathering facts as the play would; when the matched task is the
play's first, the state the host keeps is the one before the setup block was passed, so the
"Gathering Facts" task runs as an ordinary task, whether or not the play gathers facts. A play in
which nothing matches runs nothing at all, not even the gathering. The first match ends the
search: later batches of the play and later plays run from their start. Nothing matched by the
end: ansible-playbook prints an error after the recap (and exits as the run went).

A pattern that matches the "Gathering Facts" task itself makes hosts gather twice, or not, by
their own gathering state: such a run is declined before it starts.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterator

from engine.loading import keywords as kw
from engine.loading.model import Block, Task
from engine.run.gathering import GATHER_TASK_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine.flow.plan import Plan


def no_match_error(pattern: str) -> str:
    return f'[ERROR]: No matching task "{pattern}" found. Note: --start-at-task can only follow static includes.'


def problems(pattern: str | None) -> list[str]:
    """Why the engine declines a run with this ``--start-at-task`` (none: it runs it as ansible does)."""
    if pattern is None or not matches(GATHER_TASK_NAME, GATHER_TASK_NAME, pattern):
        return []
    return [f"--start-at-task {pattern!r} matches the implicit \"{GATHER_TASK_NAME}\" task, which ansible-playbook "
            "then runs once or twice by each host's gathering state; playbook-ls's engine does not follow that"]


def matches(name: str | None, shown: str, pattern: str) -> bool:
    """The iterator's test: the task's name or its banner name, equal to or matching ``pattern``."""
    return name == pattern or bool(name and fnmatch.fnmatch(name, pattern)) or shown == pattern \
        or fnmatch.fnmatch(shown, pattern)


def shown_name(task: Task) -> str:
    """``Task.get_name()`` (``IncludeRole.get_name()`` for include_role), untemplated."""
    if task.action in kw.INCLUDE_ROLE:
        return str(task.name) if task.name else f"{task.action} : {task.args.get('name')}"
    if task.name:
        return f"{task.role.name} : {task.name}" if task.role is not None else str(task.name)
    return f"{task.role.name} : {task.action}" if task.role is not None else task.action


def peeked(items: list[Block | Task], selectable: Callable[[Task], bool]) -> Iterator[Task]:
    """The tasks the iterator returns while nothing runs: each block's tasks, then its always section."""
    for item in items:
        if isinstance(item, Block):
            yield from peeked(item.block, selectable)
            yield from peeked(item.always, selectable)
        elif selectable(item) and not _implicit_flush(item):
            yield item


def start(blocks: list[Block], selectable: Callable[[Task], bool], pattern: str) -> tuple[list[Task], bool] | None:
    """Where a batch starts: the tasks passed over before the match, and whether the match is the
    play's first task (its hosts then run the "Gathering Facts" task); None when nothing matches."""
    passed: list[Task] = []
    for task in peeked(list(blocks), selectable):
        if matches(str(task.name) if task.name else None, shown_name(task), pattern):
            return passed, not passed
        passed.append(task)
    return None


def _implicit_flush(task: Task) -> bool:
    return task.implicit and task.action in kw.META and task.args.get("_raw_params") == "flush_handlers"


def plan_start(plan: Plan, pattern: str) -> list[str]:
    """``--start-at-task`` in a plan of what will run (``run --dry``): the plays before the one
    whose first batch matches run nothing, and in that play the tasks passed over before the match
    leave the selection, each with why (``PlayPlan.left_out``); in a play of several batches only
    the first batch passes over them (``PlayPlan.left_out_hosts``), the later ones run from their
    first task. The note to show: no match at all (ansible-playbook's error)."""
    from engine.flow.batches import play_batches
    from engine.run.handlers import play_blocks

    for play_plan in plan.plays:
        selected = play_plan.selected_ids()
        found = start(play_blocks(play_plan.play, False), lambda task, chosen=selected: id(task) in chosen, pattern)
        why = f"not run: before the task --start-at-task {pattern!r} names" if found is not None else \
            f"not run: no task of the play (or one before it) matches --start-at-task {pattern!r}"
        batches = play_batches(play_plan.play, [h.name for h in play_plan.hosts])
        if found is not None and len(batches) > 1:
            first = frozenset(batches[0])
            play_plan.left_out_hosts.update(dict.fromkeys(map(id, found[0]), (first, f"{why} (its first batch)")))
            return []
        passed = play_plan.tasks if found is None else found[0]
        play_plan.left_out.update(dict.fromkeys(map(id, passed), why))
        left_out = set(map(id, passed))
        play_plan.tasks = [task for task in play_plan.tasks if id(task) not in left_out]
        if found is not None:
            return []
    return [no_match_error(pattern).removeprefix("[ERROR]: ")]

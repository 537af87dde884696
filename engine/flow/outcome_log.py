"""A task's outcomes on its hosts taken from another plan of the same playbook, when they cannot
differ: ``playbook-ls diff`` with an inventory plans two revisions that mostly read the same
values, host by host (engine.flow.host_outcome's ``task_outcomes`` asks here first).

:class:`OutcomeLog` keeps, for each task one plan answered, what it was asked (the hosts, their
batches, the conditions on the way) and every variable name the answer read on any host (its
conditions, loop and assertions, also through the templates of the values read: the names the
outcome of each host was computed from, ``_HostTask.touched``). :class:`OutcomeReplay` answers
the other plan's task with the logged answer of the task paired with it when it was asked the
same and none of those names is one the caller refuses (:meth:`OutcomeReplay.refused`): the
names the two revisions set differently, and those whose values follow the run rather than the
files (what earlier tasks set, the play's host lists, facts, other hosts' variables).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.templating.read_names import READS_ALL

if TYPE_CHECKING:
    from engine.flow.plan import Plan
    from engine.loading.model import Task

Asked = tuple[Any, ...]
Outcome = Any  # engine.flow.host_outcome's HostOutcome, which asks here (no import back)


def asked(hosts: list[str], batches: list[list[str]], conditions: list[tuple[Any, str]]) -> Asked:
    """What ``task_outcomes`` is asked besides the task: a condition by its type too (``True``
    and ``"True"`` are not read alike)."""
    return (tuple(hosts), tuple(map(tuple, batches)),
            tuple((type(condition).__name__, str(condition), origin) for condition, origin in conditions))


class OutcomeLog:
    """What one plan's tasks answered, by task and question."""

    def __init__(self) -> None:
        self.answers: dict[int, list[tuple[Asked, frozenset[str], dict[str, Outcome]]]] = {}

    def record(self, task: Task, question: Asked, read: frozenset[str], outcomes: dict[str, Outcome]) -> None:
        self.answers.setdefault(id(task), []).append((question, read, dict(outcomes)))


class OutcomeReplay:
    """The answers of ``log`` (another plan's) for this plan's tasks: ``pairs`` maps a task of
    this plan (by id) to the task of the logged plan at its place; ``usable(plan, read, task)``
    says whether none of the names ``read`` (:data:`READS_ALL` among them when a name read was
    computed) may have other values at this plan's task (by id) than at the logged one."""

    def __init__(self, log: OutcomeLog, pairs: Mapping[int, int],
                 usable: Callable[[Plan, frozenset[str], int], bool]) -> None:
        self.log, self.pairs, self.usable = log, pairs, usable

    def answer(self, plan: Plan, task: Task, question: Asked) -> dict[str, Outcome] | None:
        other = self.pairs.get(id(task))
        if other is None:
            return None
        for logged, read, outcomes in self.log.answers.get(other, ()):
            if logged == question and self.usable(plan, read, id(task)):
                return dict(outcomes)
        return None


def names_set_in(tasks: list[Task]) -> frozenset[str]:
    """Every name ``tasks`` may set (engine.variables.host_runtime's ``set_names``), :data:`READS_ALL`
    among them when one's are not told."""
    from engine.variables.setters import set_names

    found: set[str] = set()
    for task in tasks:
        names = set_names(task)
        if names is None:
            return frozenset((READS_ALL,))
        found |= names
    return frozenset(found)

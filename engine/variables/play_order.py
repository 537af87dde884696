"""A play's tasks in run order, as a run reaches them (the statically known tasks of includes
after the include, handlers after each flush that runs them), with each one's includers: what
the variables of a task are computed along (engine.variables.report, host_runtime)."""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from engine.flow.loops import loop_of
from engine.loading import keywords as kw
from engine.variables.play_context import role_lineage
from engine.variables.sources import play_roles, tasks_with_includers

if TYPE_CHECKING:
    from engine.loading.model import Play, RoleInstance, Task


def tasks_in_order(play: Play) -> Iterator[Task]:
    """The play's tasks as a run reaches them, with the statically known tasks of includes after
    the include, then its handlers (implicit ones left out)."""
    return (task for task, _ in tasks_with_includers(play, handlers=True) if not task.implicit)


def find_task(play: Play, path: str, line: int, realpaths: dict[str, str] | None = None) -> Task | None:
    """The task of ``play`` written at 0-based ``line`` of ``path`` (any line of the task).
    ``realpaths`` keeps the real path of each file across calls (one per play of a playbook)."""
    runs = task_runs(play, path, line, realpaths)
    return runs[0][0] if runs else None


def task_runs(play: Play, path: str, line: int, realpaths: dict[str, str] | None = None) -> list[tuple[Task, int]]:
    """Every run of the task of ``play`` written at 0-based ``line`` of ``path`` (any line of
    it; the innermost task there), in run order, as (task, occurrence): a task file imported
    twice gives two tasks, a handler flushed twice one task twice (occurrences 0 and 1). A role
    ansible skips as a duplicate of an earlier one runs nothing."""
    known = {} if realpaths is None else realpaths

    def realpath(file: str) -> str:  # a system call per path component: once per file
        found = known.get(file)
        if found is None:
            found = known[file] = os.path.realpath(file)
        return found

    real = realpath(path)
    order = play_order(play)
    at = [task for task in order.tasks if task.span is not None and task.span.line <= line <= task.span.end_line
          and realpath(task.span.file) == real]
    if not at:
        return []
    innermost = max(task.span.line for task in at)  # type: ignore[union-attr]
    runs: list[tuple[Task, int]] = []
    seen: dict[int, int] = {}
    for task in at:
        if task.span.line != innermost:  # type: ignore[union-attr]
            continue
        occurrence = seen.get(id(task), 0)
        seen[id(task)] = occurrence + 1
        if task.role is not None and task.role.duplicate_of is not None and not task.dynamic:
            continue
        runs.append((task, occurrence))
    return runs


_UNKNOWN = object()
"""What :meth:`PlayOrder.per_task` finds where nothing is kept yet (None may be kept)."""


class PlayOrder:
    """A play's tasks in run order, each one's position and includers, and what each sets at run
    time, computed once per play (a hover on the 10,000th task of a play must not walk the 9,999
    before it again)."""

    def __init__(self, play: Play) -> None:
        self.play = play
        self.tasks: list[Task] = []
        self.positions: dict[int, list[int]] = {}
        """Where each task runs in ``tasks``: a handler flushed twice runs twice."""
        self.includers: dict[int, list[Task]] = {}
        self.loaded_on: dict[int, frozenset[str]] = {}
        """The hosts that load each task a per-host include brought in (the others never run it)."""
        self.loaded_kinds: dict[str, int] = {}
        """For a host that loaded tasks by a per-host include, which of them: one number per set of
        tasks (hosts with the same number run the same loaded tasks), 0 for none."""
        self.run_named: dict[int, dict[str, str]] = {}
        """The tasks of a file a per-host include may load where only the run names its file
        (engine.variables.host_includes): on each host that may load it, why its effects are the run's."""
        self.candidates: dict[int, dict[str, list[tuple[Task, list[Task]]]]] = {}
        """Those files' tasks (with their includers) per include and target, loaded once."""
        self._loaded_sets: dict[str, frozenset[int]] = {}
        self._kinds: dict[frozenset[int], int] = {frozenset(): 0}

        for task, outer in tasks_with_includers(play, handlers=True):
            if not task.implicit:
                self.positions.setdefault(id(task), []).append(len(self.tasks))
                self.tasks.append(task)
            self.includers[id(task)] = outer
        self.roles = play_roles(play)
        self._repeats: tuple[int, set[int]] | None = None
        self._per_task: dict[tuple[Hashable, int], Any] = {}

    def named_by_run(self, task: Task, host: str) -> str | None:
        """Why what ``task`` sets on ``host`` is the run's: a task of a file a per-host include may
        load there where only the run names its file (engine.variables.run_named_loads); or None."""
        return self.run_named.get(id(task), {}).get(host)

    def per_task(self, what: Hashable, task: Task, compute: Callable[[], Any]) -> Any:
        """``compute()``, what ``what`` is of ``task`` in this order (a function of the task, its
        includers and the play's blocks), kept until an include adds tasks: asked for at every
        setter of every walk on every host. Not to be changed by the caller."""
        key = (what, id(task))
        found = self._per_task.get(key, _UNKNOWN)  # (one lookup where it is kept: nearly always)
        if found is _UNKNOWN:
            found = self._per_task[key] = compute()
        return found

    def looping(self, task: Task) -> list[Task]:
        """The looping includes around ``task``, outermost first."""
        return self.per_task("looping", task, lambda: [include for include in self.includers.get(id(task), [])  # type: ignore[no-any-return]
                                                       if loop_of(include) is not None])

    def note_loaded(self, hosts: frozenset[str], tasks: frozenset[int]) -> None:
        """``hosts`` loaded ``tasks`` (by id) too: their :attr:`loaded_kinds`."""
        for host in hosts:
            mine = self._loaded_sets.get(host, frozenset()) | tasks
            self._loaded_sets[host] = mine
            self.loaded_kinds[host] = self._kinds.setdefault(mine, len(self._kinds))

    def repeats_role(self, task: Task) -> bool:
        """Whether ``task`` is of a role (not allowing duplicates) that the play may reach twice
        with an equal use (``Role._get_hash_dict``): two uses of it with one identity (a dependency
        of a role included again, with other ``*_from`` files), or a task of it met twice. Where
        such a task runs is then the plan's (``Role.has_run``, engine.flow.role_runs)."""
        role = task.role
        if role is None or role.allow_duplicates:
            return False
        if self._repeats is None or self._repeats[0] != len(self.tasks):  # the roles' ids, once per order
            uses: dict[tuple[object, ...], set[int]] = {}
            for one in {id(one.role): one.role for one in self.tasks if one.role is not None}.values():
                uses.setdefault(one.identity(), set()).add(id(one))
            self._repeats = (len(self.tasks), {found for ids in uses.values() if len(ids) > 1 for found in ids})
        return id(role) in self._repeats[1] or len(self.positions.get(id(task), ())) > 1

    def first_item_only(self, task: Task, include: Task) -> bool:
        """Whether ``task``, of a dependency of the role the looping ``include`` (an
        ``include_role``) brings in, runs at the include's first item only: the dependency has run
        on the host after it (``Role.has_run``, its allow_duplicates false), as a task of it without
        a ``when`` anywhere on its way certainly ran there. (The included role itself allows
        duplicates, as include_role has it by default.)"""
        role = task.role
        if role is None or role.via != "dependency" or role.allow_duplicates or include.action not in kw.INCLUDE_ROLE:
            return False
        return any(other.role is role and not other.handler and not other.effective_when() and
                   not any(outer.effective_when() for outer in self.includers.get(id(other), []))
                   for other in self.tasks)

    def _before(self, task: Task | None, occurrence: int) -> list[Task]:
        return self.tasks[: self.count_before(task, occurrence)]

    def count_before(self, task: Task | None, occurrence: int) -> int:
        """How many tasks run before the ``occurrence``-th run of ``task`` (those :meth:`_before` lists)."""
        positions = self.positions.get(id(task)) if task is not None else None
        return positions[min(occurrence, len(positions) - 1)] if positions else 0

    def included_before(self, task: Task | None, occurrence: int = 0
                        ) -> tuple[list[RoleInstance], frozenset[int], dict[int, Task]]:
        """The roles ``include_role`` tasks brought in by this run of ``task`` (its own role too,
        when it was included): ansible adds each to the play's roles when it is included (their
        names, and their defaults and vars where they are public). The second: those an include
        with a ``when`` brings in (by id), which only the run knows; the third: the include_role
        task that brought each in (by the role's id), when it loops (each item includes it again).
        Kept per task and run until an include adds tasks (each new scope of a task asked it again,
        a pass over the tasks before it). Not to be changed by the caller."""
        if task is None:
            return self._included_before(None, occurrence)
        return self.per_task(("included before", occurrence), task,  # type: ignore[no-any-return]
                             lambda: self._included_before(task, occurrence))

    def _included_before(self, task: Task | None, occurrence: int
                         ) -> tuple[list[RoleInstance], frozenset[int], dict[int, Task]]:
        found: dict[int, RoleInstance] = {}
        conditional: set[int] = set()
        looped: dict[int, Task] = {}
        for earlier in [*self._before(task, occurrence), *([task] if task is not None else [])]:
            if earlier.role is not None and role_lineage(earlier.role)[0].via == "include_role":
                found.setdefault(id(earlier.role), earlier.role)
                outers = self.includers.get(id(earlier), [])
                if any(outer.effective_when() for outer in outers):
                    conditional.add(id(earlier.role))
                include = next((outer for outer in reversed(outers) if outer.action in kw.INCLUDE_ROLE), None)
                if include is not None and loop_of(include) is not None:
                    looped[id(earlier.role)] = include
        return list(found.values()), frozenset(conditional), looped


LOADS = [0]
"""How many times an include has loaded tasks into a play's order: what is kept over the orders of
several plays (their ``end_play`` tasks) is kept by it."""


def add_loaded_tasks(play: Play, include: Task, loaded: list[tuple[Task, list[Task]]],
                     hosts: Iterable[str] | None = None) -> None:
    """Put the tasks a run-time include loads (each with its includers) right after the include
    in the play's order, so what they see is what the include sees, with what the tasks they
    follow set at run time; ``hosts``: the hosts that load them (None: any)."""
    LOADS[0] += 1
    order = play_order(play)
    if hosts is not None:
        members = frozenset(hosts)
        order.loaded_on.update((id(task), order.loaded_on.get(id(task), frozenset()) | members) for task, _ in loaded)
        order.note_loaded(members, frozenset(id(task) for task, _ in loaded))
    known = {id(task) for task, _ in loaded} & set(order.positions)
    fresh = [(task, outer) for task, outer in loaded if id(task) not in known]
    positions = order.positions.get(id(include))
    if not fresh or not positions:
        if loaded and positions:  # loaded again (by the plan, as the variables did): what was followed
            play.derived.pop("scopes", None)  # before reads what the plan has found since
            play.derived.pop("host effects", None)
        return
    at = positions[0] + 1
    order.tasks[at:at] = [task for task, _ in fresh if not task.implicit]
    order.includers.update({id(task): outer for task, outer in fresh})
    order._per_task.clear()  # noqa: SLF001 - what it keeps per task
    order.positions = {}
    for index, task in enumerate(order.tasks):
        order.positions.setdefault(id(task), []).append(index)
    play.derived.pop("scopes", None)  # the scopes of the tasks after it read fewer run-time values
    play.derived.pop("host effects", None)


def play_order(play: Play) -> PlayOrder:
    """The play's order, kept with the play (an edit that changes the play resolves it again, as
    a new object, and the old one goes with its order)."""
    order = play.derived.get("order")
    if order is None:
        order = play.derived["order"] = PlayOrder(play)
    return order  # type: ignore[no-any-return]

"""The walk of the tasks before a task (engine.variables.earlier_key), shared between the hosts
whose walks read the same: a fleet's hosts each walk every setter before each task that reads what
the setters set, hosts x setters steps even when a few classes of hosts give every setter the same
answers.

What a setter sets on a host is shared by class already (engine.variables.setter_classes): the
first host of a class is followed with the names its templates read recorded, and every host whose
inventory gives those names the same values (with the same definitions of them from the setters
before, the same name and groups when read, the same facts) is given the same effects. So a walk
is a function of the values the host's inventory gives the names any setter on the way read, of
which plays the host is in, and of its facts: two hosts agreeing on all of them are given the same
effects at every setter, one by one, so the same walk. The first host of such a class is walked as
before; the others are given its walk.

Only where nothing else of a host decides the walk: no setter a host-by-host step leaves out or
adds (a handler, a later run of a task, delegating its facts; which host of its batch runs a
``run_once`` setter, whose effects every host of the batch is given; whether an
``end_play`` or ``end_batch`` ended the play for the host, whether each ``meta: end_host`` on the
way ended it, whether each task of a role the play may run twice ran on the host as the plan says,
and which tasks per-host includes loaded on it, are asked of each host and kept in its key), no ``rescue``
in the plays, no inventory changed on the way (``add_host``, ``group_by``), no per-host vars_files,
no merged hashes, every setter shared by class (none reading variables by a computed name), and not
inside another host's ``hostvars`` reading (where failures before decide too). A setter a looping
include loads is followed on each host (its runs read the include's items), but its runs on a host
are what the include's items there, their order and the names the runs read give: the items and
their order are asked of each host and kept in its key, the names read
(engine.variables.item_setter_reads) are keyed as a shared setter's (engine.variables.walk_steps._runs_told).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.variables.block_runs import play_blocks
from engine.variables.earlier_walk import _keep, _kept
from engine.variables.failed_hosts import planned_alone
from engine.variables.host_facts import plays_before
from engine.variables.host_runtime import followed_memo
from engine.variables.item_setter_reads import item_runs_key, looping_steps
from engine.variables.play_order import LOADS
from engine.variables.report import inventory_of
from engine.variables.setters import ends_host_task, host_names
from engine.variables.walk_keys import _host_keys_now, _Numbers
from engine.variables.walk_steps import classed_steps, setter_place, shareable_steps, steps_names

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

SHARING = True
"""Whether hosts share walks by class (tests compare the plan with and without)."""

_KEY_TABLES = itertools.count()
"""A serial number for each table of hosts' keys (:func:`host_classes`): what the classes found from
one are kept under (an ``id`` may be a later table's)."""


def class_walk(follower: Any, play_plan: PlayPlan, host: Host, task: Task, names: frozenset[str] | None,
               what: str, walk: Callable[[], Any]) -> Any:
    """``walk()`` (``what`` the walk of the setters before ``task`` gives ``host`` for ``names``),
    or what it gave the first host of ``host``'s class."""
    from engine.variables import failed_hosts

    if not SHARING or failed_hosts._others_reading or getattr(follower.plan, "removals_pending", None) is not None \
            or getattr(follower.plan, "share_setters", None) is None:  # noqa: SLF001
        return walk()
    key = _table_key(follower, play_plan, task, names, what)
    table = _kept(follower, play_plan, key)
    read = _read(follower, play_plan, task, names) if table is not None else None
    if read is not None:
        found = table.get((read, _host_key(follower, play_plan, host, task, names, read)))  # type: ignore[union-attr]
        if found is not None:
            return found[0]
    planned = getattr(play_plan, "planned_runs", None)
    found = walk()
    read = _read(follower, play_plan, task, names)
    if read is not None and getattr(play_plan, "planned_runs", None) is planned:
        if table is None:
            table = {}
            _keep(follower, play_plan, key, planned, table)
        table.setdefault((read, _host_key(follower, play_plan, host, task, names, read)), (found,))
    return found


def host_classes(plan: Plan, play_plan: PlayPlan, task: Task,
                 names: frozenset[str]) -> tuple[Any, Callable[[Host], tuple[Any, ...]]] | None:
    """Where hosts share the walk of the setters before ``task`` for ``names`` by class
    (:func:`class_walk`, as engine.variables.earlier_key walks them): what the classes are told
    apart by (the names the setters' classes read so far) and, for a host, its class. Two hosts
    of one class are given one walk, so one key of what the tasks before set. The names read may
    grow while the classes' first hosts are walked (a host whose template reads more): the caller
    asks again after walking them, and takes the classes only when they are told apart by the same
    names. None where a host's walk is its own."""
    from engine.variables import failed_hosts
    from engine.variables.host_runtime import Follower
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at

    if not SHARING or failed_hosts._others_reading or getattr(plan, "removals_pending", None) is not None \
            or getattr(plan, "share_setters", None) is None or getattr(plan, "class_walk", None) is not class_walk:  # noqa: SLF001
        return None
    follower = Follower(plan, play_order, templar_at, include_item_order)
    read = _read(follower, play_plan, task, names)
    if read is None:
        return None
    steps = _TaskSteps(follower, play_plan, task, names)  # once for the task's hosts, not per host
    steps.keep_answers(follower, play_plan)

    def key_of(host: Host) -> tuple[Any, ...]:
        return _host_key(follower, play_plan, host, task, names, read, steps)

    def keys_of(hosts: list[Host], names: list[str]) -> list[tuple[Any, ...]]:
        return _host_keys(follower, play_plan, hosts, names, task, read, steps)

    if steps.answers is None or steps.inventory is None:  # the task's own answers: its classes are its own
        return ("walk", read, "task", id(task), len(follower.order_of(play_plan.play).tasks)), key_of
    # a host's key is what the inventory and these kept answers give it: the same at every task asking
    # them (a play's tasks mostly read a few sets of names after the same setters), found once per host
    memo = steps.memo
    assert memo is not None
    found = ("walk class keys", read, id(steps.inventory), id(plan), id(steps.answers))
    kept = memo.get(found)
    if kept is None or kept[0] is not steps.answers or kept[1] is not steps.inventory or kept[2] is not plan:
        kept = memo[found] = (steps.answers, steps.inventory, plan, ({}, _Numbers()), next(_KEY_TABLES))
    return ("walk", read, "keys", kept[4]), _KeptKeys(*kept[3], key_of, keys_of)


class _KeptKeys:
    """Each host's key of the walk (:func:`_host_key`), found once per host and kept as the number of
    its class among the hosts' keys so far (equal keys, one number: a key is a deep tuple, hashed
    once here rather than at each task telling classes apart): for one host, or for the play's
    hosts at once (:meth:`many`, which asks only the hosts not found yet, together)."""

    __slots__ = ("find", "find_many", "keys", "numbers")

    def __init__(self, keys: dict[str, int], numbers: _Numbers,
                 find: Callable[[Host], tuple[Any, ...]],
                 find_many: Callable[[list[Host], list[str]], list[tuple[Any, ...]]]) -> None:
        self.keys, self.numbers, self.find, self.find_many = keys, numbers, find, find_many

    def __call__(self, host: Host) -> int:
        found = self.keys.get(host.name)
        if found is None:
            found = self.keys[host.name] = self.numbers[self.find(host)]
        return found

    def many(self, hosts: list[Host], names: list[str]) -> list[int]:
        """The keys' numbers of ``hosts`` (whose names are ``names``), in their order."""
        found = list(map(self.keys.get, names))
        if None in found:
            missing = [at for at, key in enumerate(found) if key is None]
            asked = [names[at] for at in missing]
            # (each key hashed once: a new key is numbered as it comes, :class:`_Numbers`)
            numbers = map(self.numbers.__getitem__, self.find_many([hosts[at] for at in missing], asked))
            self.keys.update(zip(asked, numbers, strict=True))
            found = list(map(self.keys.__getitem__, names))
        return found  # type: ignore[return-value]


def _table_key(follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None,
               what: str) -> tuple[Any, ...]:
    order = follower.order_of(play_plan.play)
    return ("walk classes", what, id(task), names, len(order.tasks), id(play_plan.hosts), len(play_plan.hosts),
            id(getattr(play_plan, "planned_runs", None)), id(follower.plan.inventory), id(follower.plan))


def _read(follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None) -> frozenset[str] | None:
    """Every name read by the classes (engine.variables.change_classes) of the setters that may set
    ``names`` before ``task``, and of those that may set a name these read, and so on; None when one
    of them is not shared by class (its effects read more of a host) or a host-by-host step may
    leave it out (:func:`_steps`). Kept until classes are made, read more names or stop being usable
    (engine.variables.class_changes.READS: not when a class is added, which changes none of that)."""
    from engine.variables.change_classes import READS

    memo = followed_memo(play_plan)
    # (the same for the tasks with the same setters before them: what the tasks between two setters read;
    # and for the names no setter so far may set left out, which pick no step: steps_names)
    names = steps_names(follower, play_plan, names)
    key = ("walk classes read", setter_place(follower, play_plan, task), names,
           len(follower.order_of(play_plan.play).tasks))
    kept = memo.get(key)
    if kept is None or kept[0] != READS[0] or kept[1] is not follower.plan:
        kept = memo[key] = (READS[0], follower.plan, _read_now(follower, play_plan, task, names))
    return kept[2]  # type: ignore[no-any-return]


def _read_now(follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None) -> frozenset[str] | None:
    from engine.variables.class_changes import followed_without_classes
    from engine.variables.item_setter_reads import item_reads

    plan = follower.plan
    wanted = names
    while True:
        steps = _steps(follower, play_plan, task, wanted)
        if steps is None:
            return None
        read: set[str] = set()
        for earlier, done, classes_key in classed_steps(follower, play_plan, steps):
            memo = followed_memo(earlier)
            if memo.get(("uniform", id(done))) is True:
                continue  # the same effects on every host: it reads nothing of one
            if follower.order_of(earlier.play).looping(done):
                # each host's own runs at the include's items: what they read so far (none walked: as below)
                noted = item_reads(plan, memo, done)
                if followed_without_classes(memo, done) or noted is not None and not noted.usable:
                    return None
                read |= noted.names if noted is not None else frozenset()
                continue
            kept = memo.get(classes_key)
            if kept is None and (not followed_without_classes(memo, done) or
                                 follower.order_of(earlier.play).loaded_on.get(id(done)) is not None):
                # a setter no host walked yet (one a per-host include loads, or one the hosts walked so far
                # never reached: not in its play, left out by an include or a block): it reads nothing of
                # them so far. A host reaching it is told apart from those that do not by its key (its
                # plays, what it loaded, _decided_many), and follows it by class (a step here is shared by
                # class: _steps), so its classes read it once one host walked it; the caller asks again
                # after walking the classes' first hosts (engine.flow.host_classes.by_class). Not one
                # followed on a host without classes (for a plan not sharing them: what it gave the host
                # is kept for the plans after, which then ask no classes of it)
                continue
            if kept is None or kept[0] is not plan or not kept[1].usable:
                return None
            read |= kept[1].names
        if wanted is None or read <= wanted:
            return frozenset(read)
        # what the setters of these names set reads these too; those no setter may set pick no step
        # (steps_names): none of them new, the steps are these again
        grown = steps_names(follower, play_plan, frozenset(wanted | read))
        if grown == wanted:
            return frozenset(read)
        wanted = grown


def _steps(follower: Any, play_plan: PlayPlan, task: Task,
           names: frozenset[str] | None) -> list[tuple[PlayPlan, Task]] | None:
    """The setters before ``task`` that may set ``names`` (each with its play), when nothing but
    the classes of their effects tells one host's walk from another's; else None. Once per place
    among the setters (:func:`setter_place`) and names, while the play's inventory stays the same."""
    order = follower.order_of(play_plan.play)
    memo = followed_memo(play_plan)
    place = setter_place(follower, play_plan, task)
    names = steps_names(follower, play_plan, names)  # (the names no setter so far may set pick no step)
    key = ("walk class steps", place, names, len(order.tasks), id(follower.plan),
           bool(getattr(play_plan, "changed_in_play", None)), id(getattr(play_plan, "inventory", None)))
    if key not in memo:
        positions = order.positions.get(id(task))
        memo[key] = shareable_steps(follower, play_plan, positions[0] if positions else None, names)
    return memo[key]  # type: ignore[no-any-return]


def _host_key(follower: Any, play_plan: PlayPlan, host: Host, task: Task, names: frozenset[str] | None,
              read: frozenset[str], steps: _TaskSteps | None = None) -> tuple[Any, ...]:
    """What the walk reads of ``host``: the values its inventory gives ``read`` (each by its level),
    its name and groups when read, its facts, and which plays so far it is in (the same at every
    task of the play that reads that inventory: kept per host and names read, as numbers:
    :func:`_host_keys_now`); and what the plan says of the host at the steps it decides
    (:func:`_answers_of`). ``steps``: the task's (:class:`_TaskSteps`), when it is asked for each of
    its hosts."""
    plan = follower.plan
    if steps is None:
        steps = _TaskSteps(follower, play_plan, task, names)
    # (the play's tasks change no inventory: the same for each host, found once for the task)
    inventory = steps.inventory if steps.inventory is not None else inventory_of(plan, play_plan, task, host.name)
    parts = steps.parts_for(steps.memo if steps.memo is not None else followed_memo(play_plan), read, inventory, plan)
    part = parts.get(host.name)
    if part is None:
        part = parts[host.name] = _host_keys_now(plan, play_plan, [host], task, read)[0]
    return (part, _answers(follower, play_plan, host, task, steps) if steps.asks else _NO_ANSWERS)


_NO_ANSWERS = (None, None)
"""A host's answers (:func:`_answers`) where the walk has no step the plan decides host by host."""


def _host_keys(follower: Any, play_plan: PlayPlan, hosts: list[Host], names: list[str], task: Task,
               read: frozenset[str], steps: _TaskSteps) -> list[tuple[Any, ...]]:
    """:func:`_host_key` of each of ``hosts`` (whose names are ``names``), found together: the parts
    the inventory gives found for the hosts not kept yet at once, and no answers asked where the walk
    has no step the plan decides host by host."""
    if steps.inventory is None or steps.memo is None:
        return [_host_key(follower, play_plan, host, task, None, read, steps) for host in hosts]
    parts = steps.parts_for(steps.memo, read, steps.inventory, follower.plan)
    found = list(map(parts.get, names))
    if None in found:
        missing = [at for at, part in enumerate(found) if part is None]
        made = _host_keys_now(follower.plan, play_plan, [hosts[at] for at in missing], task, read)
        parts.update(zip([names[at] for at in missing], made, strict=True))
        found = list(map(parts.__getitem__, names))
    if not steps.asks:
        return list(zip(found, itertools.repeat(_NO_ANSWERS)))
    return list(zip(found, _answers_of(follower, play_plan, hosts, names, task, steps), strict=True))


def _answers(follower: Any, play_plan: PlayPlan, host: Host, task: Task, steps: _TaskSteps) -> tuple[Any, Any]:
    """:func:`_answers_of` of one host."""
    return _answers_of(follower, play_plan, [host], [host.name], task, steps)[0]


def _answers_of(follower: Any, play_plan: PlayPlan, hosts: list[Host], names: list[str], task: Task,
                steps: _TaskSteps) -> list[tuple[Any, Any]]:
    """What the plan says of each of ``hosts`` (whose names are ``names``) at the ends of plays so far
    (:func:`_ended`) and at the steps it decides (:func:`_decided_many`), kept in the steps' table of
    answers when there is one (the hosts not kept yet asked together)."""
    table = steps.answers
    got = list(map(table.get, names)) if table is not None else [None] * len(names)
    if None in got:
        missing = [at for at, answers in enumerate(got) if answers is None]
        asked, asked_names = [hosts[at] for at in missing], [names[at] for at in missing]
        ended = [_ended(follower, host, steps.enders) for host in asked] if steps.enders else [None] * len(asked)
        answered = dict(zip(asked_names, zip(ended, _decided_many(follower, play_plan, asked, asked_names, task, steps),
                                             strict=True), strict=True))
        if table is not None:
            table.update(answered)
        got = list(map(table.__getitem__ if table is not None else answered.__getitem__, names))
    return got  # type: ignore[return-value]


class _TaskSteps:
    """The steps of the walk before a task the plan decides host by host (:func:`_decided_many`) and the
    plays with an ``end_play`` or ``end_batch`` so far (:func:`_ended`), each with the names of its
    play's hosts: what is the same for every host of the task, found once for all of them."""

    __slots__ = ("answers", "asks", "blocked", "enders", "ends", "inventory", "loops", "memo", "once", "orders",
                 "parts", "reader_path")

    def __init__(self, follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None) -> None:
        from engine.flow.run_settings import runs_once

        memo = followed_memo(play_plan)
        key = ("walk decided steps", id(task), names, len(follower.order_of(play_plan.play).tasks), id(follower.plan))
        if key not in memo:
            steps = _steps(follower, play_plan, task, names) or ()
            loaded = {id(earlier): earlier for earlier, done in steps
                      if follower.order_of(earlier.play).loaded_on.get(id(done)) is not None}
            memo[key] = ([(earlier, done) for earlier, done in steps
                          if ends_host_task(done) or planned_alone(earlier, done)],
                         [follower.order_of(earlier.play) for earlier in loaded.values()],
                         [(earlier, done) for earlier, done in steps if play_blocks(earlier.play).rescuing
                          and id(done) in play_blocks(earlier.play).paths],
                         [(earlier, done) for earlier, done in steps if runs_once(done)],
                         looping_steps(follower, steps))
        ends, orders, blocked, once, loops = memo[key]
        self.ends = [(earlier, done, host_names(earlier), ends_host_task(done)) for earlier, done in ends]
        self.orders = orders
        self.blocked = [(earlier, done, host_names(earlier)) for earlier, done in blocked]
        self.once = [(earlier, done, host_names(earlier)) for earlier, done in once]
        self.loops = [(earlier, include, setters, host_names(earlier)) for earlier, include, setters in loops]
        self.enders = _enders_before(follower, play_plan, task)
        # whether any host's answers may be other than none (:func:`_ended`, :func:`_decided_many`)
        self.asks = bool(self.ends or self.orders or self.blocked or self.once or self.loops or self.enders)
        # whether a setter in a block with a rescue of the task's own play ran by the task is asked
        # of the task only through the sections of those blocks it is in (engine.variables.block_runs.runs_there)
        self.reader_path = tuple(play_blocks(play_plan.play).paths.get(id(task)) or ()) \
            if any(earlier is play_plan for earlier, *_ in self.blocked) else None
        self.answers: dict[str, tuple[Any, Any]] | None = None
        self.parts: tuple[frozenset[str], Any, dict[str, tuple[Any, ...]]] | None = None
        self.memo: dict[Any, Any] | None = None
        self.inventory: Any = None

    def keep_answers(self, follower: Any, play_plan: PlayPlan) -> None:
        """Keep each host's answers at these steps (:func:`_ended`, :func:`_decided_many`) for the next
        task at the same steps: they change with the plays' plans, not from task to task while the
        setters on the way stay the same (tasks reading what one run of setters set ask them of
        every host; whether a setter in a block with a rescue of the reader's own play ran by the
        reader is the same for readers in the same sections of those blocks). Not which tasks
        per-host includes loaded (they load as the play is planned), a looping include's items (kept
        per host with what they are templated from: engine.variables.include_item_order), a
        ``run_once`` setter of the play being planned, nor inside a walk (where answers as written
        mark what was followed meanwhile). With them, the play's store and the inventory its hosts
        read, when its tasks change none: found once for the task's hosts."""
        from engine.variables import host_runtime

        self.memo = followed_memo(play_plan)
        if not getattr(play_plan, "changed_in_play", None):
            self.inventory = inventory_of(follower.plan, play_plan)
        if self.orders or self.loops or host_runtime._following or \
                any(getattr(earlier, "planned_runs", None) is None for earlier, *_ in self.once):  # noqa: SLF001
            return
        asked = [(earlier, hosts, done) for earlier, done, hosts, _ in self.ends] + \
            [(earlier, hosts, done) for earlier, done, hosts in (*self.blocked, *self.once)] + \
            [(earlier, hosts, done) for earlier, every, hosts in self.enders for done in every]
        key = ("walk answers", id(follower.plan), tuple(len(part) for part in (self.ends, self.blocked, self.once)),
               tuple(len(every) for _, every, _ in self.enders),
               tuple((id(earlier), id(done)) for earlier, _, done in asked), self.reader_path)
        # what the answers were found with: the plan, and each play's plan so far, hosts and task asked about
        state = (follower.plan, *((earlier, getattr(earlier, "planned_runs", None), hosts, done)
                                  for earlier, hosts, done in asked))
        kept = self.memo.get(key)
        if kept is None or not _same(kept[0], state):
            kept = self.memo[key] = (state, {})
        self.answers = kept[1]

    def parts_for(self, memo: dict[Any, Any], read: frozenset[str], inventory: Any,
                  plan: Plan) -> dict[str, tuple[Any, ...]]:
        """Each host's part of its key the inventory gives (:func:`_host_keys_now`) for ``read``, kept
        in the play's store ``memo`` per names, inventory and plan: one table, fetched once for the
        task's hosts while they read one inventory, not a key of the store per host."""
        if self.parts is None or self.parts[0] is not read or self.parts[1] is not inventory:
            key = ("walk host keys", read, id(inventory), id(plan))
            kept = memo.get(key)
            if kept is None or kept[0] is not inventory or kept[1] is not plan:
                kept = memo[key] = (inventory, plan, {})
            self.parts = (read, inventory, kept[2])
        return self.parts[2]  # type: ignore[no-any-return]


def _same(kept: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    """Whether ``kept`` and ``now`` hold the same objects, item by item (tuples of them too)."""
    return len(kept) == len(now) and all(
        (len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))) if isinstance(a, tuple) else a is b
        for a, b in zip(kept, now, strict=True))


def _enders_before(follower: Any, play_plan: PlayPlan, task: Task) -> list[tuple[PlayPlan, list[Task], frozenset[str]]]:
    """The ``end_play`` and ``end_batch`` tasks of each play so far (before ``task`` in its own), with
    the names of the play's hosts (:func:`_ended`)."""
    from engine.variables.setters import host_names

    found = []
    for earlier, every in _ender_plays(follower, play_plan):
        order = follower.order_of(earlier.play)
        before = order.positions.get(id(task), [len(order.tasks)])[0] if earlier is play_plan else len(order.tasks)
        enders = [done for at, done in every if at < before]
        if enders:
            found.append((earlier, enders, host_names(earlier)))
    return found


def _decided_many(follower: Any, play_plan: PlayPlan, hosts: list[Host], names: list[str], task: Task,
                  steps: _TaskSteps) -> list[tuple[Any, ...] | None]:
    """What the plan says of each of ``hosts`` (whose names are ``names``) at each step of the walk it
    decides: whether a ``meta: end_host`` ended the play for it, whether a task of a role the play may
    run twice ran there (True, False or why only the run knows, as the walk asks them; asked again at
    each task, a play being planned answering as written until it is), and, in each play with a step
    a per-host include loaded, which tasks such includes loaded on the host (hosts that loaded the
    same run the same steps), and for each looping include whose setters are on the way, the items
    and their order on the host (engine.variables.item_setter_reads.item_runs_key); None where the
    walk has no such step. Asked step by step: each step's answers for the hosts, each host's the
    tuple of its answers at the steps."""
    if not steps.ends and not steps.orders and not steps.blocked and not steps.once and not steps.loops:
        return [None] * len(hosts)
    ends = [[(follower._ends_host(earlier, host, done) if ends  # noqa: SLF001
              else follower._planned_ran(earlier, host, done, 0, True))  # noqa: SLF001
             if host.name in every else None for host in hosts] for earlier, done, every, ends in steps.ends]
    orders = [list(map(order.loaded_kinds.get, names, itertools.repeat(0))) for order in steps.orders]
    # whether each setter in a block with a rescue ran by the reader (the play's own) or by the play's end
    # (the reader's own play's kept by the sections the reader is in, where its answers are kept)
    path = steps.reader_path if steps.answers is not None else None
    blocked = [_ran_column(follower, play_plan, earlier, done, every, task, hosts, names, path)
               for earlier, done, every in steps.blocked]
    # which host runs each run_once setter for the host's batch (the walk takes that host's effects)
    once = [[_once_runs(follower, earlier, host, done) if host.name in every else None for host in hosts]
            for earlier, done, every in steps.once]
    # what decides each host's runs of the setters of each looping include on the way (item_runs_key)
    loops = [[item_runs_key(follower, earlier, host, include, setters) if host.name in every else None
              for host in hosts] for earlier, include, setters, every in steps.loops]
    return list(zip(*(zip(*columns, strict=True) if columns else itertools.repeat((), len(hosts))
                      for columns in (ends, orders, blocked, once, loops)), strict=False))  # (a kind without steps: ())


def _ran_column(follower: Any, play_plan: PlayPlan, earlier: PlayPlan, done: Task, every: frozenset[str], task: Task,
                hosts: list[Host], names: list[str], path: tuple[Any, ...] | None = None) -> list[bool | str | None]:
    """Whether ``done``, in a block with a rescue of ``earlier``, ran on each of ``hosts`` (None: not in
    that play): by the reader ``task`` in the reader's own play, else by the play's end; found once per
    host and task while that play's planned runs stay the same (asked for every task after the play
    that reads what its setters set, on each host). In the reader's own play, kept by ``path``, the
    sections of the blocks with a rescue the reader is in (as :meth:`_TaskSteps.keep_answers` keeps the
    answers: the same for the readers in the same sections), when given."""
    planned, pending = getattr(earlier, "planned_runs", None), getattr(follower.plan, "removals_pending", None)
    if earlier is play_plan and path is not None and pending is None:
        key: tuple[Any, ...] = ("ran by the reader", id(done), path)
    elif earlier is play_plan or planned is None or pending is not None:
        reader = task if earlier is play_plan else None
        alike = follower._ran_alike(earlier, done, reader)  # noqa: SLF001 - (the same on each host: asked once)
        return [(follower._ran(earlier, host, done, reader) if alike is None else alike)  # noqa: SLF001
                if host.name in every else None for host in hosts]
    else:
        key = ("ran by the end", id(done))
    memo = followed_memo(earlier)
    kept = memo.get(key)
    if kept is None or kept[0] is not planned or kept[1] is not follower.plan or kept[2] is not every:
        kept = memo[key] = (planned, follower.plan, every, {})
    column: dict[str, bool | str] = kept[3]
    reader = task if earlier is play_plan else None
    found = list(map(column.get, names))
    if None in found:
        alike = follower._ran_alike(earlier, done, reader)  # noqa: SLF001 - (the same on each host: asked once)
        if alike is not None:  # (the hosts not kept yet given it at once)
            column.update(dict.fromkeys([name for got, name in zip(found, names, strict=True)
                                         if got is None and name in every], alike))
            return list(map(column.get, names))
        for at, (host, name) in enumerate(zip(hosts, names, strict=True)):
            if found[at] is None and name in every:
                found[at] = column[name] = follower._ran(earlier, host, done, reader)  # noqa: SLF001
    return found


def _once_runs(follower: Any, play_plan: PlayPlan, host: Host, task: Task) -> tuple[Any, ...]:
    """The host a ``run_once`` setter runs on for ``host``'s batch, why only the run knows it if so, and
    the other hosts that may run it instead (engine.variables.once_runner), as the walk asks them:
    hosts alike in them are given the same effects."""
    from engine.variables.once_runner import once_candidates

    if not play_plan.hosts:
        return (None,)
    runner, unsure = follower._once_runner(play_plan, host, task)  # noqa: SLF001
    others = once_candidates(follower.plan, play_plan, runner, host,
                             lambda batch: follower._once_runner(play_plan, host, task, 0, batch)[0])  # noqa: SLF001
    return (runner.name, unsure,
            None if others is None else (None if others[0] is None else tuple(o.name for o in others[0]), others[1]))


def _ended(follower: Any, host: Host,
           enders: list[tuple[PlayPlan, list[Task], frozenset[str]]]) -> tuple[Any, ...] | None:
    """Whether an ``end_play`` or ``end_batch`` of the plays so far (before the task in its own:
    ``enders``, :func:`_enders_before`) ended the play for ``host``, and whether one in a batch before
    the host's did, as the walk asks them (engine.variables.earlier_walk): what the plan says of the
    ender, so asked again at each task; None where no play so far has one."""
    found = [(id(earlier), follower.stopped_before(earlier, host),
              *(follower._ends_host(earlier, host, done) for done in every))  # noqa: SLF001
             for earlier, every, hosts in enders if host.name in hosts]
    return tuple(found) if found else None


def _ender_plays(follower: Any, play_plan: PlayPlan) -> list[tuple[PlayPlan, list[tuple[int, Task]]]]:
    """The plays so far (``play_plan`` too) with an ``end_play`` or ``end_batch``, each with those
    tasks and their places: once per play while no include loads tasks (asked for each host at each
    task, it was a walk of every play)."""
    from engine.variables.setters import batch_enders

    memo = followed_memo(play_plan)
    kept = memo.get("ender plays")
    if kept is None or kept[0] is not follower.plan or kept[1] != LOADS[0]:
        plays = plays_before(follower.plan, play_plan, including=True)
        found = [(earlier, every) for earlier in plays if (every := batch_enders(follower.order_of(earlier.play)))]
        kept = memo["ender plays"] = (follower.plan, LOADS[0], found)
    return kept[2]  # type: ignore[no-any-return]

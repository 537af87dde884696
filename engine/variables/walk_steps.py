"""The steps of the walk of the tasks before a task that hosts may share by class
(engine.variables.walk_classes): the setters on the way that may set the names read, each with its
play, found once per place among the play's setters (the tasks between two setters have the same
steps, for any names), those of the plays before the reader's indexed once per play by the names
each may set; and among them those whose effects the classes of their hosts may tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.run_settings import runs_once
from engine.variables.host_runtime import followed_memo
from engine.variables.setters import names_set, occurrence, setters_before

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.loading.model import Task


def classed_steps(follower: Any, play_plan: PlayPlan,
                   steps: list[tuple[PlayPlan, Task]]) -> list[tuple[PlayPlan, Task, tuple[Any, ...]]]:
    """Those of ``steps`` whose effects the classes of their hosts may tell (each with where its
    classes are kept): not one setting nothing, one the run's tags leave out, nor a ``run_once`` one
    (the effects of the host that runs it for the batch, which is in each host's key: walk_classes._decided_many).
    Kept with the steps, for the plan and its inventory."""
    from engine.variables.change_classes import setter_classes_key
    from engine.variables.setters import sets_something

    plan = follower.plan
    memo = followed_memo(play_plan)
    key = ("walk classed steps", id(steps))
    kept = memo.get(key)
    if kept is None or kept[0] is not steps or kept[1] is not plan or kept[2] is not plan.inventory:
        # each setter told once for the play's readers (a walk's steps are those of the plays before, then its own)
        told = memo.get(("walk classed setters", id(plan), id(plan.inventory)))
        if told is None or told[0] is not plan or told[1] is not plan.inventory:
            told = memo[("walk classed setters", id(plan), id(plan.inventory))] = (plan, plan.inventory, {})
        classed = told[2]
        found = []
        for earlier, done in steps:
            step = classed.get((id(earlier), id(done)))
            if step is None:  # (the play and task kept with their answer: their ids stay theirs)
                step = classed[(id(earlier), id(done))] = (earlier, done, setter_classes_key(plan, done), bool(
                    sets_something(done) and follower._selected(earlier, done) and not runs_once(done)))  # noqa: SLF001
            if step[3]:
                found.append(step[:3])
        kept = memo[key] = (steps, plan, plan.inventory, found)
    return kept[3]  # type: ignore[no-any-return]


def setter_place(follower: Any, play_plan: PlayPlan, task: Task) -> int | None:
    """How many setters (of any name) the play has before ``task``'s first run, None when it has no
    place in the play's order: tasks with the same place have the same setters before them, so
    the same steps for any names."""
    order = follower.order_of(play_plan.play)
    positions = order.positions.get(id(task))
    return setters_before(order, positions[0]) if positions else None


def shareable_steps(follower: Any, play_plan: PlayPlan, before: int | None,
                     names: frozenset[str] | None) -> list[tuple[PlayPlan, Task]] | None:
    """engine.variables.walk_classes._steps of the reader at place ``before`` of its play (None: no place in it)."""
    if before is None or not _shareable_play(follower, play_plan, names):
        return None
    earlier = _earlier_steps(follower, play_plan, names)
    found = _play_steps(follower.order_of(play_plan.play), before, names)
    return None if earlier is None or found is None else [*earlier, *((play_plan, done) for done in found)]


def _shareable_play(follower: Any, play_plan: PlayPlan, names: frozenset[str] | None) -> bool:
    """Whether the setters of ``play_plan`` may be shared by class at all: not where its tasks change
    the inventory, its hosts read another, its vars_files name a file per host, nor (for every
    name) where it has a rescue."""
    from engine.flow.host_reading import per_host_vars_files
    from engine.variables.block_runs import play_blocks

    plan = follower.plan
    inventory = getattr(play_plan, "inventory", None)
    # (in a play with a rescue, whether each setter in its blocks ran is each host's answer, in its key;
    # what the rescues set, read where every name is asked for, is not)
    return not (plan.inventory.data.merge_hashes or getattr(play_plan, "changed_in_play", None) or
                (inventory is not None and inventory is not plan.inventory) or per_host_vars_files(play_plan) or
                play_blocks(play_plan.play).rescuing and names is None)


def steps_names(follower: Any, play_plan: PlayPlan, names: frozenset[str] | None) -> frozenset[str] | None:
    """Those of ``names`` a setter of the plays so far (``play_plan`` too) may set: the others pick no
    step (:func:`shareable_steps` of ``names`` and of these are the same steps, for any place in the
    play). Those names found once per play's tasks, as the steps are kept
    (engine.variables.walk_classes._steps)."""
    if names is None:
        return None
    order = follower.order_of(play_plan.play)
    key = ("walk class names set", id(follower.plan), bool(getattr(play_plan, "changed_in_play", None)),
           id(getattr(play_plan, "inventory", None)))
    memo = followed_memo(play_plan)
    kept = memo.get(key)
    if kept is None or kept[0] is not order.tasks or kept[1] != len(order.tasks) or kept[2] is not follower.plan:
        earlier = _earlier_index(follower, play_plan)
        kept = memo[key] = (order.tasks, len(order.tasks), follower.plan,
                            names_set(order) | frozenset(earlier.by_name))
    return names & kept[3]  # type: ignore[no-any-return]


def _earlier_steps(follower: Any, play_plan: PlayPlan,
                   names: frozenset[str] | None) -> list[tuple[PlayPlan, Task]] | None:
    """The steps of the plays before ``play_plan`` (:func:`shareable_steps`), the same for every
    reader in it (:func:`_earlier_index`); then once per names."""
    return _earlier_index(follower, play_plan).steps(names)


def _earlier_index(follower: Any, play_plan: PlayPlan) -> _Earlier:
    """The setters of the plays before ``play_plan`` indexed once per play by the names each may set
    (:class:`_Earlier`), while those plays' inventories and tasks stay the same."""
    from engine.variables.host_facts import plays_before

    plays = plays_before(follower.plan, play_plan)
    state = tuple((id(earlier), bool(getattr(earlier, "changed_in_play", None)),
                   id(getattr(earlier, "inventory", None)), id(follower.order_of(earlier.play).tasks),
                   len(follower.order_of(earlier.play).tasks)) for earlier in plays)
    memo = followed_memo(play_plan)
    key = ("walk class earlier setters", id(follower.plan))
    kept = memo.get(key)
    if kept is None or kept[0] != state:
        # the play before's index, when kept for the same plays but it: extended by that play alone
        before = followed_memo(plays[-1]).get(key) if plays else None
        base = before[1] if before is not None and before[0] == state[:-1] else None
        kept = memo[key] = (state, _Earlier(follower, plays, base))
    return kept[1]  # type: ignore[no-any-return]


class _Earlier:
    """The setters of the plays before a reader's, in run order, each with whether it makes each
    host's walk its own (:func:`_own_walk`), indexed by the names each may set."""

    def __init__(self, follower: Any, plays: list[PlayPlan], base: _Earlier | None = None) -> None:
        """``base``: the index of the plays but the last (that of the play before the reader's), extended
        by the last play's setters instead of indexing every play again."""
        from engine.variables.block_runs import play_blocks

        self.kept: dict[frozenset[str] | None, list[tuple[PlayPlan, Task]] | None] = {}
        added = plays if base is None else plays[-1:]
        self.shareable = (base is None or base.shareable) and \
            all(_shareable_play(follower, earlier, frozenset()) for earlier in added)
        self.rescuing = base is not None and base.rescuing or any(play_blocks(earlier.play).rescuing
                                                                  for earlier in added)
        # (the base's lists are shared until a play added sets a name: then copied, the base's left as they are)
        self.entries: list[tuple[PlayPlan, Task, bool]] = [] if base is None or not self.shareable else [*base.entries]
        self.by_name: dict[str, list[int]] = {} if base is None or not self.shareable else dict(base.by_name)
        self.always: list[int] = [] if base is None or not self.shareable else [*base.always]
        if not self.shareable:
            return
        for earlier in added:
            copied: set[str] = set()
            for done, found, own in _play_setters(follower, earlier):
                for name in found if found is not None else ():
                    if name not in copied:
                        self.by_name[name] = [*self.by_name.get(name, ())]
                        copied.add(name)
                    self.by_name[name].append(len(self.entries))
                if found is None:
                    self.always.append(len(self.entries))
                self.entries.append((earlier, done, own))

    def steps(self, names: frozenset[str] | None) -> list[tuple[PlayPlan, Task]] | None:
        """The setters that may set ``names`` (None: every name), None when one of them makes each
        host's walk its own, a play before is not shared by class, or (for every name) has a rescue."""
        if names in self.kept:
            return self.kept[names]
        found: list[tuple[PlayPlan, Task]] | None = None
        if self.shareable and not (names is None and self.rescuing):
            chosen = range(len(self.entries)) if names is None else \
                sorted({*self.always, *(at for name in names for at in self.by_name.get(name, ()))})
            if not any(self.entries[at][2] for at in chosen):
                found = [self.entries[at][:2] for at in chosen]  # type: ignore[misc]
        self.kept[names] = found
        return found


def _play_setters(follower: Any, play_plan: PlayPlan) -> list[tuple[Task, frozenset[str] | None, bool]]:
    """Each setter of the play (in run order) with the names it may set (None: any) and whether it
    makes each host's walk its own (:func:`_own_walk`): once per play while no include adds tasks to
    it (each play after it indexes them)."""
    from engine.variables.setters import may_set, setters

    order = follower.order_of(play_plan.play)
    memo = followed_memo(play_plan)
    kept = memo.get("walk class setters")
    if kept is None or kept[0] is not order.tasks or kept[1] != len(order.tasks):
        kept = memo["walk class setters"] = (order.tasks, len(order.tasks), [
            (done, may_set(done), _own_walk(order, done, at)) for at, done in setters(order, len(order.tasks))])
    return kept[2]  # type: ignore[no-any-return]


def _own_walk(order: Any, done: Task, at: int) -> bool:
    """Whether the setter ``done`` (at place ``at`` of the play's ``order``) makes each host's walk
    its own: a handler, one delegating its facts, a later run of a task, one a ``run_once`` include
    loads, or one in a looping include whose runs a host decides otherwise than by the include's
    items and their order (:func:`_runs_told`) (kept with the order)."""
    from engine.loading import keywords as kw

    def own() -> bool:
        data = done.data if isinstance(done.data, Mapping) else {}
        includers = order.includers.get(id(done), [])
        # (an end_host, and a task of a role run twice, the plan decides: each host's answer is in its key)
        # (a run_once setter's effects are those of the host of the batch that runs it: in each host's key)
        return bool(data.get("delegate_facts") or occurrence(order, done, at) or
                    any(include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS and runs_once(include)
                        for include in includers) or order.looping(done) and not _runs_told(order, done))

    return order.per_task(("own walk", at), done, own)  # type: ignore[no-any-return]


def _runs_told(order: Any, done: Task) -> bool:
    """Whether the runs of ``done``, a setter a looping include loads, are on a host what the
    include's items there and their order give, with where a task of its file stops the host at an
    item (each host's, in its walk's class key: engine.variables.walk_classes._decided_many), and
    what each run reads (engine.variables.item_setter_reads): under one looping include (an inner
    one's items are templated at each outer item), and not in a block with a rescue inside the file
    (whether it ran at an item is each host's templating of the block's tasks there)."""
    from engine.variables.include_stops import caught_within

    loops = order.looping(done)
    return len(loops) == 1 and not caught_within(order.play, loops[0])(done)


def _play_steps(order: Any, before: int, names: frozenset[str] | None) -> list[Task] | None:
    """The setters among the first ``before`` tasks of a play's ``order`` that may set ``names``; None
    when one of them makes each host's walk its own."""
    from engine.variables.setters import setters

    found = []
    for at, done in setters(order, before, names):
        if _own_walk(order, done, at):
            return None
        found.append(done)
    return found

"""The walk of the tasks before a task on one host (engine.variables.host_runtime's
``Follower.earlier_layers``), kept per host: a fleet's hosts each read what the tasks before set at
many tasks, and what a task sets is itself templated with what the tasks before it set, so walking
from the play's start at each would cost tasks x tasks per host.

- What a whole earlier play set on a host is the same for every task after it: walked once per
  host (:func:`played`), and all the plays before a reader's play put together once per host and
  names for every task of that play (:func:`earlier_plays`).
- In the reader's own play, the walk up to a task is the walk up to the task before it, one more
  setter on: kept as a prefix that grows (:func:`own_play`), when nothing in the walk depends on
  which task reads (a reader outside every block with a ``rescue``, which sees whether a setter in
  such a block ran as a reader past the blocks does; no looping include around the reader, not
  another batch's reader). A reading asked for while the prefix is growing, past where it has got
  to, walks from the start as before.

Each is kept while the play's tasks, hosts and planned runs stay the same (and the files: the
follower's memo).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from engine.variables.accumulating import unknown_names
from engine.variables.failed_hosts import planned_alone, ran_unless_out
from engine.variables.host_facts import gathered_since, gathering_after, plays_before
from engine.variables.setters import host_names, maybe, occurrence, setters
from engine.variables.task_results import Effects

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.inventory.data import Host

Follower = Any  # engine.variables.host_runtime's, which calls here


def file_loop(follower: Follower, play_plan: PlayPlan, task: Any) -> int | None:
    """The id of the looping include whose file holds ``task`` (the outermost), None when none."""
    looping = follower.order_of(play_plan.play).looping(task)
    return id(looping[0]) if looping else None


class ItemMajor:
    """What setters set, in run order, for a reader past them: those of the file a looping include
    loads item by item, each item's tasks in file order (the strategy runs the whole file at one item
    before the next), not task by task (a task setting nothing at the last item would end up last)."""

    def __init__(self) -> None:
        self.effects: list[Effects] = []
        self._loop: int | None = None
        self._start = 0
        self._keys: list[tuple[int, int]] = []

    def add(self, loop: int | None, at: int, runs: list[tuple[int, Effects]], closes: bool = False) -> None:
        """The ``runs`` (rank, what it set) of the setter at ``at``, of the file of ``loop`` (or
        none); ``closes``: the next setter is not of that file (else :meth:`close` when it is known)."""
        if loop != self._loop:
            self.close()
        if loop is None:
            self.effects += [found for _, found in runs]
            return
        if self._loop is None:
            self._loop, self._start = loop, len(self.effects)
        self.effects += [found for _, found in runs]
        self._keys += [(rank, at) for rank, _ in runs]
        if closes:
            self.close()

    def close(self) -> None:
        """The file's setters are all in: their runs put item by item."""
        if len({at for _, at in self._keys}) > 1:
            order = sorted(range(len(self._keys)), key=self._keys.__getitem__)
            group = self.effects[self._start:]
            self.effects[self._start:] = [group[i] for i in order]
        self._loop, self._keys = None, []


def _key(follower: Follower, play_plan: PlayPlan, what: str | tuple[Any, ...], host: Host,
         names: frozenset[str] | tuple[Any, ...] | None) -> tuple[Any, ...]:
    order = follower.order_of(play_plan.play)
    planned = getattr(play_plan, "planned_runs", None)
    return (what, host.name, names, len(order.tasks), id(play_plan.hosts), len(play_plan.hosts), id(planned),
            id(follower.plan.inventory), id(follower.plan))


def _kept(follower: Follower, play_plan: PlayPlan, key: tuple[Any, ...]) -> Any:
    """What is kept under ``key``, when it was kept for the same planned runs, hosts and plan."""

    if getattr(follower.plan, "removals_pending", None) is not None:
        return None  # asking may plan the run: the planned runs would change meanwhile
    kept = follower.memo(play_plan).get(key)
    if kept is not None and kept[0] is getattr(play_plan, "planned_runs", None) and kept[1] is play_plan.hosts \
            and kept[2] is follower.plan:
        return kept[3]
    return None


def _keep(follower: Follower, play_plan: PlayPlan, key: tuple[Any, ...], planned: Any, value: Any) -> None:

    if getattr(follower.plan, "removals_pending", None) is None and getattr(play_plan, "planned_runs", None) is planned:
        follower.memo(play_plan)[key] = (planned, play_plan.hosts, follower.plan, value)


def played(follower: Follower, play_plan: PlayPlan, host: Host, names: frozenset[str] | None) -> list[Effects]:
    """What the whole of ``play_plan`` (a play before the reader's) set on ``host`` (for ``names``),
    the rescues' last."""
    key = _key(follower, play_plan, "played", host, names)
    kept = _kept(follower, play_plan, key)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    planned = getattr(play_plan, "planned_runs", None)
    order = follower.order_of(play_plan.play)
    walk = setters(order, len(order.tasks), names)
    # what the walk takes of the names is their setters (and the rescues' for every name): the names
    # of a setter in common, or of none of the play's (most of a fleet's readings), share one walk
    shared = _key(follower, play_plan, "played by setters", host, (names is None, *(at for at, _ in walk)))
    kept = _kept(follower, play_plan, shared)
    if kept is not None:
        _keep(follower, play_plan, key, planned, kept)
        return kept  # type: ignore[no-any-return]
    effects: list[Effects] = []
    member = host.name in host_names(play_plan)
    rescued = follower._rescued(play_plan, host, None) if member and names is None else []  # noqa: SLF001
    ended: bool | str = follower.stopped_before(play_plan, host) if member else False
    walk = setters(order, len(order.tasks), names)  # (again: the same, unless asking loaded tasks into the play)
    loops = [file_loop(follower, play_plan, done) for _, done in walk]
    ordered = ItemMajor()
    for index, (at, done) in enumerate(walk):
        closes = index + 1 == len(walk) or loops[index + 1] != loops[index]
        if not follower._selected(play_plan, done):  # noqa: SLF001 - the follower's own steps
            ordered.add(loops[index], at, [], closes)
            continue
        ended = ended or (member and follower._ends_host(play_plan, host, done))  # noqa: SLF001
        if ended is True and not follower._given_by_another(play_plan, host, done):  # noqa: SLF001
            ordered.add(loops[index], at, [], closes)
            continue
        ran = follower._ran(play_plan, host, done, None) if member else True  # noqa: SLF001
        ran = ran_unless_out(follower, play_plan, host, done, occurrence(order, done, at), ran) if member else ran
        if ran is not False and planned_alone(play_plan, done) and member:
            ran = follower._planned_ran(play_plan, host, done, occurrence(order, done, at), ran)  # noqa: SLF001
        runs = follower._runs_on(play_plan, host, done, (), [], member,  # noqa: SLF001
                                 occurrence=occurrence(order, done, at)) if ran is not False else []
        ordered.add(loops[index], at, [(rank, maybe(found, ended or ran)) for rank, found in runs], closes)
    ordered.close()
    effects += ordered.effects
    effects.append(Effects(facts=rescued))
    _keep(follower, play_plan, key, planned, effects)
    if len(order.tasks) == shared[3]:  # the same setters as the key's
        _keep(follower, play_plan, shared, planned, effects)
    return effects


def earlier_plays(follower: Follower, play_plan: PlayPlan, host: Host, names: frozenset[str] | None) -> list[Effects]:
    """What the plays before ``play_plan`` set on ``host`` (for ``names``), in order, as a reader in
    ``play_plan`` sees it: what a ``cacheable`` set_fact left in ``ansible_facts`` is the run's once
    a later play gathers facts on the host again. The same for every task of the play: kept per host
    and names while each earlier play's planned runs, hosts, tasks and followed store stay the same."""
    plays = plays_before(follower.plan, play_plan)
    state = _plays_state(follower, plays)
    key = ("earlier plays", host.name, names)
    memo = follower.memo(play_plan)
    kept = memo.get(key)
    if kept is not None and kept[0] is follower.plan and kept[1] == state:
        return kept[2]  # type: ignore[no-any-return]
    effects: list[Effects] = []
    again = gathering_after(follower.plan, play_plan)  # (once for the plays, not per play: each asked them all)
    for earlier in plays:
        found = played(follower, earlier, host, names)  # once per host and play
        gathered = gathered_since(follower.plan, earlier, play_plan, host, again) if found else None
        # the facts a cacheable set_fact left in ansible_facts, gathered over by a later play (once per walk of it)
        effects += _gathered_over(follower.memo(earlier), (host.name, names), found, gathered) if gathered else found
    after = _plays_state(follower, plays)
    # kept when nothing changed meanwhile but the stores the walks began (a play no walk had read yet)
    if getattr(follower.plan, "removals_pending", None) is None and len(after) == len(state) and all(
            now == then or now[:-1] == then[:-1] and then[-1] is None for now, then in zip(after, state, strict=True)):
        memo[key] = (follower.plan, after, effects)
    return effects


def _gathered_over(memo: dict[Any, Any], walk: tuple[Any, ...], found: list[Effects], gathered: str) -> list[Effects]:
    """``found`` (what :func:`played` kept of a play on a host, for names: ``walk``) with its
    ``ansible_facts`` the run's (``gathered``: why), kept in ``memo`` (that play's, with the walk, for
    the readers of every play after it) while that walk and reason are the same."""
    key = ("gathered over", *walk)
    kept = memo.get(key)
    if kept is None or kept[0] is not found or kept[1] != gathered:
        kept = memo[key] = (found, gathered, [_gathered_one(memo, each, gathered) for each in found])
    return kept[2]  # type: ignore[no-any-return]


def _gathered_one(memo: dict[Any, Any], effects: Effects, gathered: str) -> Effects:
    """``effects`` with its ``ansible_facts`` the run's (``gathered``: why): once per effects and reason
    (the hosts of a class share their effects; walks for other names take the same)."""
    key = ("gathered over effects", id(effects), gathered)
    kept = memo.get(key)
    if kept is None or kept[0] is not effects:
        kept = memo[key] = (effects, unknown_names(effects, "ansible_facts".__eq__, gathered))
    return kept[1]  # type: ignore[no-any-return]


def _plays_state(follower: Follower, plays: list[PlayPlan]) -> list[tuple[Any, ...]]:
    """What :func:`played` keeps its walks of ``plays`` by (their planned runs, hosts and tasks) and
    where (each play's followed store, dropped when an include loads tasks into it)."""
    order_of = follower.order_of  # (a list, not a tuple of a generator: built at every walk of a host)
    return [(getattr(earlier, "planned_runs", None), earlier.hosts, len(earlier.hosts),
             len(order_of(earlier.play).tasks), earlier.play.derived.get("host effects")) for earlier in plays]


class _Prefix:
    """The walk of a play's setters on one host so far: how many were walked, what each had set
    by then, and whether a task on the way ended the play for the host."""

    __slots__ = ("busy", "ended", "lengths", "loops", "ordered", "places", "setters")

    def __init__(self, setters: list[tuple[int, Any]], loops: list[int | None]) -> None:
        self.setters, self.loops = setters, loops
        self.places: list[int] = []
        self.lengths: list[int] = []
        self.ordered = ItemMajor()
        self.ended: bool | str = False
        self.busy = False

    @property
    def effects(self) -> list[Effects]:
        return self.ordered.effects


def own_play(follower: Follower, play_plan: PlayPlan, host: Host, before: int,
             names: frozenset[str] | None, reader: Any = None) -> list[Effects] | None:
    """What the setters among the play's first ``before`` tasks set on ``host`` (for ``names``),
    in order, from the host's kept prefix; None when it cannot be told so (the caller walks).
    ``reader``: the task reading (None: a reader past the play's tasks)."""
    from engine.variables.block_runs import in_rescuing_block, play_blocks

    if in_rescuing_block(play_blocks(play_plan.play), reader):
        return None  # whether a task before ran depends on the reader's place in the blocks
    key = _key(follower, play_plan, "own play", host, names)
    prefix = _kept(follower, play_plan, key)
    order = follower.order_of(play_plan.play)
    if prefix is None:
        planned = getattr(play_plan, "planned_runs", None)
        walk = setters(order, len(order.tasks), names)
        # the walk takes of the names their setters: names with the same setters in the play share it
        shared = _key(follower, play_plan, "own play by setters", host, tuple(at for at, _ in walk))
        prefix = _kept(follower, play_plan, shared)
        if prefix is None:
            prefix = _Prefix(walk, [file_loop(follower, play_plan, done) for _, done in walk])
            if host.name in host_names(play_plan):  # a batch an end_play before it stopped runs nothing
                prefix.ended = follower.stopped_before(play_plan, host)
            _keep(follower, play_plan, shared, planned, prefix)
        _keep(follower, play_plan, key, planned, prefix)
    walked = len(prefix.places)
    if walked == len(prefix.setters) or prefix.setters[walked][0] >= before:
        return prefix.effects[:prefix.lengths[bisect_left(prefix.places, before) - 1]] \
            if prefix.places and prefix.places[0] < before else []
    if prefix.busy:
        return None  # asked past the prefix while it grows: the caller walks from the start
    member = host.name in host_names(play_plan)
    prefix.busy = True
    try:
        for index in range(walked, len(prefix.setters)):
            at, done = prefix.setters[index]
            if at >= before:
                break
            runs = _step(follower, play_plan, host, prefix, member, order, at, done) \
                if follower._selected(play_plan, done) else []  # noqa: SLF001 - the follower's own steps
            prefix.ordered.add(prefix.loops[index], at, runs, index + 1 == len(prefix.setters) or
                               prefix.loops[index + 1] != prefix.loops[index])
            prefix.places.append(at)
            prefix.lengths.append(len(prefix.effects))
    finally:
        prefix.busy = False
    return prefix.effects[:prefix.lengths[-1]] if prefix.places else []


def _step(follower: Follower, play_plan: PlayPlan, host: Host, prefix: _Prefix, member: bool, order: Any,
          at: int, done: Any) -> list[tuple[int, Effects]]:
    """What the setter ``done`` (at ``at``) set on ``host``, after the walk so far (each run with its
    place among the items of the looping include around it)."""

    prefix.ended = prefix.ended or (member and follower._ends_host(play_plan, host, done))  # noqa: SLF001
    if prefix.ended is True and not follower._given_by_another(play_plan, host, done):  # noqa: SLF001
        return []
    # as a reader outside every block with a rescue sees it: whether the blocks around the setter let it run
    ran: bool | str = ran_unless_out(follower, play_plan, host, done, occurrence(order, done, at),
                                     follower._ran(play_plan, host, done, None)) if member else True  # noqa: SLF001
    if planned_alone(play_plan, done) and member:
        ran = follower._planned_ran(play_plan, host, done, occurrence(order, done, at), ran)  # noqa: SLF001
    if ran is False:
        return []
    ended = prefix.ended
    return [(rank, maybe(found, ended or ran)) for rank, found in
            follower._runs_on(play_plan, host, done, (), [], member, upto_reader=True, reader=host,  # noqa: SLF001
                              occurrence=occurrence(order, done, at))]

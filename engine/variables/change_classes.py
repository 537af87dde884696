"""The hosts of a ``group_by`` task taken class by class (engine.variables.inventory_changes): the
group a host joins is what the task's ``key``, ``parents``, loop and conditions give with the host's
variables at the task, so two hosts whose variables agree on every name those templates read (and
the templates of the values they read, in turn) join the same groups. The first host of a class
is templated as before, with the names its templates read recorded; every other host of the class
joins what that host joined, without its variables at the task being worked out again (that walks
every task before it on the host: a fleet's hosts x tasks).

A host's class key holds, for the names read: what the inventory says of them on the host (the
levels that set them and their values, :func:`engine.variables.report.inventory_keys`), what the tasks before set of
them on it (:func:`engine.variables.earlier_key.earlier_key`), its name and groups when read, its
cached facts and whether the run gathers them, and the inventory the task
reads (that of the host's batch). Hosts are not classed (each is templated) when a template reads
variables by a computed name (``vars``, ``hostvars``, a lookup), the play's host lists, what a
rescue sets, or when vars_files, merged hashes or a
looping include make values differ otherwise. A ``group_by``'s, a setter's or a failure's
template reading ``hostvars`` where it is one object for every reader of the task
(engine.templating.read_names.HOSTVARS_ALIKE) is classed: the hosts it reads are named by the
other names it read, and what their variables give is the same for every host whose inventory at
the task is the same (the inventory part of the key), whatever the tasks before set on the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.templating.read_names import HOSTVARS_ALIKE, READS_ALL, names_recorded
from engine.variables import class_changes
from engine.variables import host_answers as answers
from engine.variables.inventory_twins import twin_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

SHARING = True
"""Whether hosts are taken class by class (tests compare the plan with and without)."""
# bumped whenever a task's classes are made, read more names or stop being usable: what is worked
# out from every setter's classes (engine.variables.walk_classes) is kept until then
CHANGES = class_changes.CHANGES
# bumped with CHANGES but when a class is added with the same names read (class_changes.READS)
READS = class_changes.READS

_IDENTITY = answers.NAME
# (engine.variables.host_answers: less the name and groups, which the key tells, and the inventory
# source, which its inventory part does)
_UNCLASSED = answers.OWN_ANSWERS - answers.NAME - answers.GROUPS - answers.SOURCE | answers.PLAY_LISTS | {READS_ALL}
"""Read per host in ways the key does not tell: no classes for a task whose templates read one."""


class HostClasses:
    """The class keys of one ``group_by`` task's hosts, for the names its first readings read."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, task: Task,
                 walk_classes: Callable[..., Any] | None = None) -> None:
        from engine.flow.host_reading import per_host_vars_files
        from engine.variables.play_order import play_order

        self.plan, self.play_plan, self.task = plan, play_plan, task
        CHANGES[0] += 1
        READS[0] += 1
        self.names: frozenset[str] = frozenset()
        self.earlier: frozenset[str] = frozenset()
        self.by_key: dict[Any, Any] = {}
        self.firsts: list[tuple[Host, Any]] = []
        self._twins: dict[Any, tuple[Any, ...]] = {}
        """The parts of the key the inventory gives, per inventory twin token and names (:meth:`key`)."""
        self._walk_classes = walk_classes
        """engine.variables.walk_classes.host_classes, given by a caller keying many hosts (:meth:`earlier_of`)."""
        self._walks: tuple[Any, ...] | None = None
        """The classes of the walk before the task for the names the tasks before may set, and what they
        were found with (:meth:`earlier_of`)."""
        self._values: dict[Any, dict[Any, Any]] = {}
        """What the walk gave the first host of each class, per kind of classes (the names they are
        told apart by and the table of keys)."""
        self._last: tuple[Host, frozenset[str], Any] | None = None
        """Each class's first host and what it joined, to key again when more names are read."""
        self.usable = SHARING and not per_host_vars_files(play_plan) and not plan.inventory.data.merge_hashes \
            and not bool(play_order(play_plan.play).looping(task))

    def joined(self, host: Host) -> Any:
        """What the class of ``host`` joined, None when no host of its class was templated yet."""
        if not self.usable or not self.firsts:
            return None
        key = self.key(host)
        # the host is followed next when its class is new: its key for these names kept for add
        self._last = (host, self.names, key)
        return self.by_key.get(key)

    def add(self, host: Host, read: set[str], joined: Any) -> None:
        """``host`` was templated, its templates reading ``read``, and joined ``joined``."""
        if not self.usable:
            return
        CHANGES[0] += 1
        if read & _UNCLASSED:
            self.usable = False
            READS[0] += 1
            return
        names = self.names | read
        if names != self.names:
            READS[0] += 1  # (the names read grow, or the classes stop being usable)
            if not self._names(names):
                self.usable = False
                return
            # a key on more names tells at least as much: the classes so far, keyed again
            self.by_key = {self.key(first): found for first, found in self.firsts}
        self.firsts.append((host, joined))
        last = self._last
        # the key joined made for the host, on the same names (following it changed no answer it reads)
        kept = last is not None and last[0] is host and last[1] is self.names and \
            getattr(self.plan, "removals_pending", None) is None
        self.by_key.setdefault(last[2] if kept else self.key(host), joined)  # type: ignore[index]

    def value_of(self, host: Host, compute: Callable[[set[str]], Any]) -> Any:
        """``compute(read)`` on ``host``, or what it gave the first host of ``host``'s class. ``read``
        holds the names recorded meanwhile (engine.templating.read_names): ``compute`` empties it once
        the host's variables at the task are worked out, so that it holds what its templates read."""
        joined = self.joined(host)
        if joined is not None:
            return joined[0]
        with names_recorded() as read:
            found = compute(read)
        self.add(host, read, (found,))
        return found

    def _names(self, names: frozenset[str]) -> bool:
        from engine.variables import earlier_key
        from engine.variables.names_before import names_set_before
        from engine.variables.play_order import play_order

        may_set = names_set_before(self.plan, self.play_plan, play_order)
        if may_set is None and not earlier_key.OPEN or names & earlier_key.NOT_FOLLOWED:
            return False
        # names a task before sets without telling them (a file only the run names): each read one is keyed
        # (not the other hosts' variables read alike: the same whatever the host's tasks before set)
        self.names = names
        self.earlier = frozenset(answers.variable_names(names) | (names & answers.GROUPS) if may_set is None
                                 else names & may_set) - {HOSTVARS_ALIKE}
        return True

    def earlier_of(self, host: Host) -> Any:
        """What the tasks before set on ``host`` of the names they may set
        (:func:`engine.variables.earlier_key.earlier_key`): where hosts share that walk by class
        (engine.variables.walk_classes.host_classes: equal class, equal walk), what it gave the
        first host of ``host``'s class, found once per class rather than host by host. The classes
        are kept while no setter's classes change (a walk may read more names: they are asked
        again, and a class's walk kept only when they are told apart alike)."""
        from engine.variables.earlier_key import earlier_key

        host_classes = self._walk_classes
        if host_classes is None:
            return earlier_key(self.plan, self.play_plan, host, self.task, self.earlier)
        state = self._walk_state()
        walks = self._walks
        if walks is None or walks[0][0] != state[0] or \
                any(a is not b for a, b in zip(walks[0][1], state[1], strict=True)):
            walks = self._walks = (state, host_classes(self.plan, self.play_plan, self.task, self.earlier))
        if walks[1] is None:
            return earlier_key(self.plan, self.play_plan, host, self.task, self.earlier)
        kind, keys = walks[1]
        number = keys(host)
        values = self._values.setdefault(kind, {})
        if number in values:
            return values[number]
        found = earlier_key(self.plan, self.play_plan, host, self.task, self.earlier)
        if CHANGES[0] != state[0][0]:  # its walk made or grew a setter's classes: told apart alike still?
            self._walks = walks = (self._walk_state(), host_classes(self.plan, self.play_plan, self.task, self.earlier))
            if walks[1] is None or walks[1][0] != kind:
                return found
        values[number] = found
        return found

    def _walk_state(self) -> tuple[tuple[int, int], tuple[Any, ...]]:
        """What the classes of the walk are found with (:meth:`earlier_of`): the count of changes to
        setters' classes and of other hosts' readings under way, and the names, the play's planned runs
        and the plan's pending removals (by identity)."""
        from engine.variables import failed_hosts

        return ((CHANGES[0], failed_hosts._others_reading),  # noqa: SLF001
                (self.earlier, getattr(self.play_plan, "planned_runs", None),
                 getattr(self.plan, "removals_pending", None)))

    def key(self, host: Host) -> tuple[Any, ...]:
        """The host's class key: each of :data:`KEY_PARTS` for it. Hosts the inventory answers alike
        for the names (engine.variables.inventory_twins: the same groups and cached facts, gathered by
        the same plays, none of the names their own, nor their name or groups read) have the same
        parts but what the tasks before set (the play changes no inventory: the same one read on
        every host): found once per twin token and names, and only that part asked of each."""
        twin = twin_key(self.plan, self.play_plan, host, self.task, self.names)
        if twin is None:
            return tuple(part(self, host) for part in KEY_PARTS)
        kept = self._twins.get(twin)
        if kept is None:
            kept = self._twins[twin] = tuple(None if part is _earlier else part(self, host)
                                                         for part in KEY_PARTS)
        return tuple(part(self, host) if part is _earlier else found
                     for part, found in zip(KEY_PARTS, kept, strict=True))


def _inventory(classes: HostClasses, host: Host) -> Any:
    """The inventory the task reads on the host (its batch's), and what its levels say of the names."""
    from engine.variables.report import inventory_keys, inventory_of

    names = sorted(answers.variable_names(classes.names - _IDENTITY - {HOSTVARS_ALIKE}))
    signature, values, _ = inventory_keys(classes.plan, classes.play_plan, host, classes.task, names)
    # the values, each by its level: two hosts setting a name alike on their own lines are alike
    return (id(inventory_of(classes.plan, classes.play_plan, classes.task, host.name)),
            ("levels", signature) if values is None else ("values", values))


def _name(classes: HostClasses, host: Host) -> Any:
    return host.name if classes.names & _IDENTITY else None


def _groups(classes: HostClasses, host: Host) -> Any:
    from engine.variables.report import host_at

    return answers.groups_part(classes.names, lambda: host_at(
        classes.plan, classes.play_plan, host, classes.task).get_magic_vars()["group_names"])


def _facts(classes: HostClasses, host: Host) -> Any:
    """Whether the run gathers the host's facts, and its cached ones (a cache file may hold names of
    any kind)."""
    from engine.variables.host_facts import cached_facts, facts_unknown

    cached = cached_facts(classes.plan).get(host.name)
    return facts_unknown(classes.plan, classes.play_plan, host), cached.digest if cached else None


def _earlier(classes: HostClasses, host: Host) -> Any:
    if not classes.earlier:
        return None
    return classes.earlier_of(host)


KEY_PARTS = (_inventory, _name, _groups, _facts, _earlier)
"""What a host's class key is made of (tests leave each out in turn)."""


def setter_classes_key(plan: Plan, task: Task) -> tuple[Any, ...]:
    """Where the classes of a setter's hosts are kept in its play's memo (engine.variables.setter_classes)."""
    return ("setter classes", id(task), id(plan.inventory))

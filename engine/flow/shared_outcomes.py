"""A task's outcomes on the play's hosts, each worked out once per distinct set of values
(:class:`_SharedOutcomes`): hosts whose inventory, cached facts and earlier tasks answer the names
the task's first reading read alike share that reading's outcome, which engine.flow.host_outcome
works out on one host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.flow.provenance import with_provenance
from engine.flow.rebound import Identities
from engine.templating.read_names import tested_groups
from engine.variables import host_answers as answers
from engine.variables import walk_classes
from engine.variables.block_runs import play_blocks
from engine.variables.earlier_key import earlier_classes, earlier_key, followed_names
from engine.variables.report import host_at, inventory_keys, inventory_of

if TYPE_CHECKING:
    from engine.flow.outcomes import HostOutcome
    from engine.flow.plan import Plan, PlayPlan
    from engine.flow.removed_hosts import RemovedHosts
    from engine.inventory.data import Host
    from engine.loading.model import Task

WALK_CLASSES = True
"""Whether a task's hosts are taken class by class of the walk of the tasks before (tests compare
the plan with each host keyed on its own)."""

NAMED_CLASSES = True
"""Whether the hosts of a task whose outcome reads the host's name beside other names share one
reading per class of those other names (tests compare the plan with each host read on its own)."""

# the magic variables whose values differ from host to host (the others are the play's)
# (engine.variables.host_answers: less what a rescue sets, _RUN_FILLED's, and the inventory source,
# which the inventory key tells)
_PER_HOST = answers.OWN_ANSWERS - answers.RESCUE - answers.SOURCE | {" per-host"}
# read by a name an earlier task set (set_fact, register, include_vars): followed on each host
_SET_PER_HOST = " per-host"
# per host, yet two hosts alike in them are told apart by the signature (:meth:`_SharedOutcomes.entry`):
# the groups a host is in, and ``hostvars`` read without the host's name (another host's variables)
_SIGNED = answers.GROUPS | {"hostvars"}
# magic variables with one value for every host of a play at a task (a host's own inventory
# cannot change them: the magic level is above it)
_SAME_ON_EVERY_HOST = frozenset({"groups", "ansible_play_hosts_all", "ansible_play_hosts", "playbook_dir",
                                 "ansible_play_name", "ansible_run_tags", "ansible_skip_tags", "ansible_limit",
                                 "ansible_check_mode", "ansible_diff_mode", "ansible_verbosity", "ansible_forks",
                                 "ansible_version", "omit", "ansible_inventory_sources", "ansible_config_file"})
# what tells one host from another when nothing else is read
_HOST_IDENTITY = answers.NAME | answers.GROUPS


def reads_identity(names: set[str]) -> bool:
    """Whether a reading of ``names`` read the host's name or groups (tests of membership of some
    of them among them: engine.templating.read_names.MEMBERSHIP)."""
    return bool(names & _HOST_IDENTITY) or bool(tested_groups(names))


def _batch_inventories(play_plan: PlayPlan) -> bool:
    """Whether the play's batches read inventories of their own (add_host or group_by in a play of
    several batches: ``groups`` is then not the same on every host at a task)."""
    changes = getattr(play_plan, "changed_in_play", None)
    return bool(changes) and changes[0].hosts is not None


_WIDENINGS = 8
"""How many times a task's hosts are keyed again by more names (a reading that read more than those
before it) before they are read one by one."""


class _ReadsMore(Exception):
    """A rebound reading (:meth:`_HostTask.for_host`) needs more than the host's name and groups."""



class _SharedOutcomes:
    """A task's outcomes on the play's hosts, each computed once per distinct set of values:
    two hosts whose inventory sets the names the task's conditions and loop read (also through
    templates) in the same places to the same values see the same values, so the same outcome
    (a thousand hosts in a few groups are planned a few times, not a thousand)."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, task: Task,
                 signatures: dict[tuple[Any, ...], tuple[Any, ...]], shared: bool,
                 reading: Callable[[Plan, PlayPlan, Host, Task], Any]) -> None:
        self.plan, self.play_plan, self.task = plan, play_plan, task
        self.reading = reading  # a reading of one host (engine.flow.host_outcome's _HostTask)
        self.names: tuple[str, ...] | None = None  # what the first host's outcome read
        self.known: dict[tuple[Any, ...], HostOutcome] = {}
        self.shared = shared  # False: each host read on its own (per-host vars_files)
        self.signatures = signatures  # the play's: tasks reading the same names ask the same
        self.by_value: dict[tuple[Any, ...], tuple[str, list[tuple[str, str | None]], HostOutcome]] = {}
        """By the values a host's own levels give the names read: the first such host, its levels, its outcome."""
        self.rebound: Any = None
        """The first host's reading, when all it read was the host's name and groups: another
        host's is the same with those swapped, without reading its variables again."""
        self.named: dict[tuple[Any, ...], Any] | None = None
        """When the host's name is all a reading read that tells hosts apart beside the values of
        the other names: by the signature of those, the first host's reading; another host of
        the signature is given it with its own name and groups (:meth:`_named_outcome`)."""
        self.identities: Identities | None = None
        """The hosts of a reading rebound from host to host (engine.flow.rebound), once the play's are given."""
        self.earlier: frozenset[str] | None = None
        """The names read that earlier tasks may set, whose definitions from them tell hosts apart."""
        self.removed: RemovedHosts | None = None
        self.hosts: list[Host] | None = None
        self._table: dict[str, tuple[Any, ...]] | None = None
        """The play's signatures of the names read, by host, when every host reads one inventory here."""
        self.read: set[str] = set()
        """Every name a reading of a host read (:mod:`engine.flow.outcome_log`)."""
        self.set_per_host: set[str] = set()
        self.facts_read: set[str] = set()
        """What the readings keyed so far read per host, and the facts among it (_HostTask's)."""
        self.widened = 0
        """How many times a reading read more names than those before it (:data:`_WIDENINGS`)."""
        self._signed_names: frozenset[str] | None = None
        """What the signature tells of a host beside the names read, once found (:meth:`_signed`)."""

    def outcome(self, host: Host, conditions: list[tuple[Any, str]]) -> HostOutcome:
        if self.rebound is not None:
            try:
                rebound = self.rebound.for_host(host, self.identities)
                found = rebound.outcome(conditions)
                self.read |= rebound.touched
                return found
            except _ReadsMore:
                pass  # this host's conditions go further: read its own variables
        if self.named is not None and (found := self._named_outcome(host, conditions)) is not None:
            return found
        keys = None
        if self.shared and self.names is not None:
            keys = self._keys(host)
            found = self.known.get(keys[0]) or self._alike(keys)
            if found is not None:
                return found
        reading = self.reading(self.plan, self.play_plan, host, self.task)
        reading.removed = self.removed
        outcome = reading.outcome(conditions)
        self.read |= reading.touched
        if self.shared and self.names is None:
            self._read_names(reading)
            if not self.shared and reading.touched <= _HOST_IDENTITY | _SAME_ON_EVERY_HOST and \
                    not _batch_inventories(self.play_plan):
                self.rebound = reading
                self.identities = Identities(self.plan, self.play_plan, self.task, self.hosts) \
                    if self.hosts is not None else None
            elif not self.shared:
                self._by_name(reading, host)
            keys = self._keys(host) if self.shared else None
        elif self.named is not None:
            self._by_name(reading, host)
        elif self.shared and not reading.touched <= set(self.names):
            # its values read more (a branch the hosts before did not take, a template): hosts are told
            # apart by every name read so far from now on (those alike in all of them take one path)
            self.widened += 1
            self.shared = self.widened <= _WIDENINGS
            if self.shared:
                self._read_names(reading)
                if not self.shared:  # the host's name among them: as when the first reading read it
                    self._by_name(reading, host)
            keys = self._keys(host) if self.shared else None
        if keys is not None:
            self.known[keys[0]] = outcome
            if keys[1] is not None:
                self.by_value.setdefault(keys[1], (host.name, keys[2], outcome))
        return outcome

    def _by_name(self, reading: Any, host: Host) -> None:
        """Keep ``reading`` (``host``'s, read in full) for the hosts alike in the names read other than
        their own name (:attr:`named`), when that is all that tells them apart; a reading that read
        more names than those before tells hosts apart by all of them from now on."""
        if self.named is not None and not reading.touched <= set(self.names or ()):
            self.widened += 1
            self.named = None
            if self.widened > _WIDENINGS:
                return  # each host read on its own from now on
            self.shared = True
            self._read_names(reading)
        if NAMED_CLASSES and self.names is not None and not self.shared and self._named_alike(reading):
            if self.named is None:
                self.named = {}
            self.named.setdefault(self._keys(host)[0], reading)

    def _named_alike(self, reading: Any) -> bool:
        """Whether hosts alike in the names read but their name have the outcome ``reading`` gives
        with their name: its own name (and groups) is all the reading read of the host that the
        signature does not tell (what earlier tasks set only where their key tells it; not its batch,
        ``vars`` or ``hostvars``, the play's hosts less those failed by then, an item of a looping
        include)."""
        from engine.flow.host_reading import include_loop_names
        from engine.flow.removed_hosts import PLAY_LISTS

        touched = set(self.names or ())
        per_host = touched & (_PER_HOST - self._signed())
        # (what earlier tasks set on the host, where its key tells it: a host of the same key has the same)
        told = answers.NAME | {_SET_PER_HOST} if self.earlier is not None else answers.NAME
        return bool(per_host & answers.NAME) and per_host <= told and "hostvars" not in touched and \
            not (self.removed is not None and touched & PLAY_LISTS) and not _batch_inventories(self.play_plan) and \
            reading._include_item is None and not include_loop_names(self.play_plan.play, self.task)  # noqa: SLF001

    def _named_outcome(self, host: Host, conditions: list[tuple[Any, str]]) -> HostOutcome | None:
        """``host``'s outcome from the reading of the first host alike in the names read but the
        host's name (:attr:`named`), with its own name and groups; None when there is none yet or the
        host's reading goes further (read on its own then)."""
        assert self.named is not None
        first = self.named.get(self._keys(host)[0])
        if first is None:
            return None
        try:
            other = first.for_host(host, names=frozenset(self.names or ()))
            found: HostOutcome = other.outcome(conditions)
        except _ReadsMore:
            return None
        self.read |= other.touched
        return found

    def _signed(self) -> frozenset[str]:
        """What the signature tells of a host beside the names read (:data:`_SIGNED`): ``hostvars`` only
        where every host reads the other hosts alike at the task (engine.variables.host_answers.others_alike:
        in several ``serial`` batches a host sees what the batches before its own set)."""
        if self._signed_names is None:
            self._signed_names = _SIGNED if answers.others_alike(self.play_plan, self.task) else answers.GROUPS
        return self._signed_names

    def _read_names(self, reading: Any) -> None:
        """Key hosts by the names ``reading`` read, with those the readings before read: what tells
        hosts apart for them (the tasks before, when they set some on each host), or that nothing
        does (:attr:`shared` False). Outcomes kept under fewer names are not looked up again."""
        self.set_per_host |= reading.set_per_host
        self.facts_read |= reading.facts_read
        touched = set(self.names or ()) | reading.touched
        self.names = tuple(sorted(touched))
        self.known, self.by_value, self._table = {}, {}, None
        per_host = touched & (_PER_HOST - self._signed())
        # (what earlier tasks set tells hosts apart by its key: beside the host's name too, for the
        # readings shared by name (_named_alike), where a host's key is kept from task to task: not in
        # a play with a rescue, where it is walked again at each task, on top of the reading's own walk)
        by_name = per_host - answers.NAME == {_SET_PER_HOST} and (
            per_host == {_SET_PER_HOST} or not play_blocks(self.play_plan.play).rescuing)
        # (``hostvars`` where the signature tells it, read alike by every host: no walk of the host's own)
        followed = touched - (self._signed() & answers.BY_COMPUTED_NAME)
        self.earlier = followed_names(self.plan, self.play_plan, followed, self.set_per_host, self.facts_read) \
            if by_name else None
        self.shared = not per_host or per_host == {_SET_PER_HOST} and self.earlier is not None

    def class_table(self) -> tuple[dict[str, tuple[Any, ...]], Any, Any] | None:
        """The play's signatures by host for the names read, what else tells hosts apart and what
        that is (for nothing: None, None; which plays they are in, when the tasks before set the
        names read alike on every host; else the host's class of the walk of those tasks, as
        engine.variables.walk_classes shares it), when a host's outcome is the one these find
        (engine.flow.host_classes); None when more tells hosts apart."""
        if not self.shared or self.names is None or self.rebound is not None or self._table is None:
            return None
        if not self.earlier:
            return self._table, None, None
        plays = earlier_classes(self.plan, self.play_plan, self.task, self.earlier)
        if plays is not None:
            return self._table, plays, "plays"
        walks = walk_classes.host_classes(self.plan, self.play_plan, self.task, self.earlier) \
            if WALK_CLASSES else None
        return (self._table, walks[1], walks[0]) if walks is not None else None

    def _alike(self, keys: tuple[Any, ...]) -> HostOutcome | None:
        """A host whose own inventory level sets a name the task reads (``weight=3`` on its
        line) has a signature of its own; a host with the same values there has the same outcome,
        its reason naming this host's levels instead (also kept under its signature). None when
        no host had those values yet, or the reason cannot be reworded."""
        signature, value_key, own = keys
        earlier = self.by_value.get(value_key) if value_key is not None else None
        if earlier is None:
            return None
        reason = with_provenance(earlier[2].reason, earlier[0], earlier[1], own)
        if reason is None:
            return None
        outcome = self.known[signature] = replace(earlier[2], reason=reason)
        return outcome

    def _keys(self, host: Host) -> tuple[Any, ...]:
        """The host's signature and value key (:func:`~engine.variables.report.inventory_keys`),
        with what else tells hosts apart for the names read (cached facts, ``group_names``),
        and its own levels; once per host and names for the play."""
        found = self.entry(host)
        if self.earlier:  # what the tasks before this one set on the host, for the names read: this task's own
            before = (("set by earlier tasks", earlier_key(self.plan, self.play_plan, host, self.task, self.earlier)),)
            found = (found[0] + before, (found[1][0], found[1][1] + before) if found[1] is not None else None, found[2])
        return found

    def entry(self, host: Host) -> tuple[Any, ...]:
        """The host's signature, value key and own levels for the names read, as the inventory
        and cached facts give them (not the tasks before): kept in the play's table."""
        from engine.variables.inventory_twins import inventory_twin, inventory_twins
        from engine.variables.report import inventory_of

        assert self.names is not None
        # a host's groups change with the add_host and group_by tasks before: one signature per inventory
        table, inventory = self._table, None
        if table is None:
            inventory = id(inventory_of(self.plan, self.play_plan, self.task, host.name))
            table = self.signatures.setdefault((self.names, inventory), {})
            if not _batch_inventories(self.play_plan):  # the same inventory on every host at this task
                self._table = table
        found = table.get(host.name)
        if found is not None:
            return found
        # a host the inventory answers as another one for every name it may read: that one's entry
        # (the host's name is told apart by the reading, not by the entry: _entry_of leaves it out)
        twin = inventory_twin(self.plan, self.play_plan, host, self.task,
                              [name for name in self.names if name not in answers.NAME])
        found = self.signatures.get((self.names, "twin", twin)) if twin is not None else None
        if found is None:
            found = self._entry_of(host)
            if twin is not None:
                self.signatures[(self.names, "twin", twin)] = found
        table[host.name] = found
        if twin is not None and self._table is table:  # its twins' too, without asking each
            for name in inventory_twins(self.plan, self.play_plan, self.task, twin):
                table.setdefault(name, found)
        return found

    def _entry_of(self, host: Host) -> tuple[Any, ...]:
        """:meth:`entry`, worked out for ``host``."""
        from engine.variables.host_facts import facts_unknown

        assert self.names is not None
        # the host's own level carries its name and groups (Host.get_vars): those are the
        # host's identity, told apart below, not a definition to compare
        signature, value_key, own = inventory_keys(self.plan, self.play_plan, host, self.task,
                                                   sorted(answers.variable_names(self.names) - _HOST_IDENTITY))
        extra: tuple[Any, ...] = ()
        cached = getattr(self.plan, "facts", {}).get(host.name)
        if any(name.startswith("ansible_") for name in self.names):  # cached (by digest) or the run's
            extra += (("facts", cached.digest if cached is not None else None,
                       facts_unknown(self.plan, self.play_plan, host)),)
        groups = answers.groups_part(
            self.names, lambda: host_at(self.plan, self.play_plan, host, self.task).get_magic_vars()["group_names"])
        if groups is not None:
            extra += (("group_names", groups),)
        if getattr(self.play_plan, "changed_in_play", None):  # the groups a batch's task reads are its own
            extra += (("inventory", id(inventory_of(self.plan, self.play_plan, self.task, host.name))),)
        return signature + extra, (value_key, extra) if value_key is not None else None, own


"""``hostvars`` at a task before the run: every host's inventory, facts and what the tasks before
the task set on it, followed on that host only for the names a task before may set."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.templating.bounds import apart
from engine.variables.failed_hosts import others_read
from engine.variables.host_answers import others_alike
from engine.variables.host_facts import facts_layer, facts_unknown
from engine.variables.host_runtime import followed_memo
from engine.variables.manager import HostVars
from engine.variables.names_before import names_set_before
from engine.variables.raw import RawVariables
from engine.variables.sources import EARLIER_TASKS, Layer, fold, kept_inventory_layers
from engine.variables.unrun_sources import with_unrun

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.host_runtime import Follower


CLASSED = True
"""Whether a template reading ``hostvars`` where every host reads the others alike is recorded so
(:meth:`FollowedHostVars.read_alike`), hosts keeping their classes (tests compare the plan without)."""


BY_NAME = True
"""Whether another host's variables, where a task before may set any name, are followed name by name
as they are read (:class:`_NameByName`; tests compare the plan with every name followed at once)."""


class FollowedHostVars(HostVars):
    """``hostvars`` before the run, at a task: each host's inventory, facts and what the tasks
    before this one set on it (the linear strategy runs a task on every host before the next)."""

    def __init__(self, manager: Any, context: Any, follower: Follower, play_plan: PlayPlan, task: Task | None,
                 occurrence: int, reader: Host | None = None) -> None:
        super().__init__(manager, context)
        self._follower, self._play_plan, self._task, self._occurrence = follower, play_plan, task, occurrence
        self._reader = reader
        self._alike: bool | None = None  # whether every host reads the others alike here (others_alike)

    def read_alike(self) -> bool:
        """Whether this ``hostvars`` gives every host reading it at the task the same: every host reads
        the others alike there (``others_alike``: one batch of the linear strategy, no looping include
        around the task), where each host's values are followed once for all readers
        (:meth:`host_values`, whichever reader asks first: its walk for another host's reading, where
        failures before stop what a host set, depends on no reader then), and the readers' scope is
        one (engine.variables.report's, one per task, inventory and run of the task: hosts reading
        different inventories are told apart by them). A template reading nothing else by a computed
        name then gives what the other names it read give: the hosts it reads are named by them
        (engine.templating.read_names.HOSTVARS_ALIKE)."""
        return CLASSED and self._reads_alike()

    def _reads_alike(self) -> bool:
        if self._alike is None:
            self._alike = self._task is not None and others_alike(self._play_plan, self._task)
        return self._alike

    def host_values(self, host: Host) -> Mapping[str, Any]:
        if not self._reads_alike():
            return self._followed_values(host)
        # every host reads another's alike here: followed once for all readers (a loop over the fleet's hostvars)
        memo = followed_memo(self._play_plan)
        key = ("read by others", id(self._task), self._occurrence, host.name, id(self._manager))
        kept = memo.get(key)
        if kept is None or kept[0] is not self._follower.plan or kept[1] is not self._manager:
            kept = memo[key] = (self._follower.plan, self._manager, self._followed_values(host))
        return kept[2]  # type: ignore[no-any-return]

    def _followed_values(self, host: Host) -> Mapping[str, Any]:
        plan = self._follower.plan
        layers = [*kept_inventory_layers(self._manager, host, os.path.abspath(self._play_plan.play.basedir)),
                  facts_layer(plan, self._play_plan, host, self._task)]
        may_set = names_set_before(plan, self._play_plan, self._follower.order_of)
        merge = self._manager.inventory.data.merge_hashes
        # read by others: what a failure before stopped the host from setting is not set (engine.variables.failed_hosts)
        walk = partial(others_read, self._follower.earlier_layers, self._play_plan, host, self._task,
                       self._occurrence, (), self._reader)
        extra = Layer("extra vars", "extra vars", self._manager.options.extra_vars)
        magic = with_unrun(plan.inventory, host, {**self.run_wide(), **host.get_magic_vars()}, self._play_plan)
        facts = facts_unknown(plan, self._play_plan, host)
        if merge:  # hash_behaviour=merge: each level merged into those below
            return RawVariables([Layer("merged", "merged", fold([*layers, *walk(), extra], True))], magic, facts)
        if may_set is None:  # any name may be set before: each name read followed through its own setters
            def variables(names: frozenset[str] | None) -> RawVariables:
                return RawVariables([*layers, *walk(names), extra], magic, facts)
            return _NameByName(variables) if BY_NAME else variables(None)
        # another host's variables read by name: followed on it only for a name a task before may set
        layers.append(Layer("set_fact", EARLIER_TASKS, _EarlierValues(walk, may_set), runtime=True))
        return RawVariables([*layers, extra], magic, facts)


class _NameByName(Mapping[str, Any]):
    """A host's variables read by another host where a task before may set any name (an
    ``include_vars`` whose file only the run names): each name read is followed on its own, through
    the setters that may set it and those that may set any name (``variables(names)``: the host's
    variables with the walk of those setters), every name when they are listed. A fleet's
    ``map('extract', hostvars, 'ansible_host')`` walks a few setters on each host, not all of them."""

    def __init__(self, variables: Callable[[frozenset[str] | None], RawVariables]) -> None:
        self._variables = variables
        self._by_name: dict[str, RawVariables] = {}
        self._every: RawVariables | None = None

    def _of(self, name: str) -> RawVariables:
        found = self._by_name.get(name)
        if found is None:
            with apart():  # the walk of another host's earlier tasks is not the reading template's work
                found = self._by_name[name] = self._variables(frozenset((name,)))
        return found

    def _all(self) -> RawVariables:
        if self._every is None:
            with apart():
                self._every = self._variables(None)
        return self._every

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str):
            raise KeyError(name)
        return self._of(name)[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._of(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _EarlierValues(Mapping[str, Any]):
    """What the tasks before set on a host (their layers, the last winning), followed when a name
    they may set (``may_set``) is read, or all of them are: the other names are none of theirs."""

    def __init__(self, layers: Callable[[], list[Layer]], may_set: frozenset[str]) -> None:
        self._layers, self._may_set = layers, may_set
        self._found: list[Layer] | None = None

    def _followed(self) -> list[Layer]:
        if self._found is None:
            with apart():  # the walk of another host's earlier tasks is not the reading template's work
                self._found = list(reversed(self._layers()))
        return self._found

    def __getitem__(self, name: str) -> Any:
        if name in self._may_set or name.startswith("ansible_"):
            for layer in self._followed():
                if name in layer.values:
                    return layer.values[name]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return (name in self._may_set or isinstance(name, str) and name.startswith("ansible_")) and \
            any(name in layer.values for layer in self._followed())

    def __iter__(self) -> Iterator[str]:
        return iter({name: None for layer in reversed(self._followed()) for name in layer.values})

    def __len__(self) -> int:
        return len(set().union(*(layer.values for layer in self._followed())))

"""The variables a task sees in a run (``VariableManager.get_vars``): the levels
engine.variables.sources declares, in ansible's precedence, folded with what the run has learnt of
each host (facts, ``include_vars``, ``set_fact`` and ``register``), then the magic variables.
A variable report before the run (engine.variables.report) folds the same levels, with what the run
would learn said to be unknown: one computation for both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.config import find_config_file, inject_facts_as_vars
from engine.span import Span
from engine.values import OMIT_TOKEN
from engine.variables.origins import INCLUDED, SET, written_origin
from engine.variables.play_context import (
    PlayContext,
    namespace_facts,
    raw_environment,
    role_name_variables,
    role_variables,
)
from engine.variables.sources import (
    Layer,
    fold,
    host_independent_layers,
    inventory_layers,
    variable_precedence,
    with_vars_files,
)

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.inventory.manager import Inventory
    from engine.loading.model import Play, Task
    from engine.parsing.source import SourceCache

OMIT = OMIT_TOKEN
_HOST_MAGIC = frozenset({"inventory_hostname", "inventory_hostname_short", "group_names"})


class LaunchValues(Protocol):
    """What a launch gives every task: ``-e`` and the ``ansible_*`` option variables
    (engine.flow.plan.RunOptions)."""

    extra_vars: dict[str, Any]
    option_vars: dict[str, Any]


@dataclass
class HostState:
    """What a run has learnt about one host: facts, non-persistent facts, included vars."""

    facts: dict[str, Any] = field(default_factory=dict)
    nonpersistent: dict[str, Any] = field(default_factory=dict)
    included: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, dict[str, Any]] = field(default_factory=lambda: {INCLUDED: {}, SET: {}})
    """Where the values of ``included`` and ``nonpersistent`` are written, as ansible's Origin tags
    have it (a Span, ``PATH:LINE``, or None for an untagged value), per layer, by name."""
    gathered: bool = False
    """The gather_facts action ran for the host (``gathering = smart`` gathers once a run)."""

    def learn_included(self, values: Mapping[str, Any], origins: Mapping[str, Any]) -> None:
        self.included.update(values)
        self.origins[INCLUDED].update(origins)

    def copy(self) -> HostState:
        """What the host's state is now, for :meth:`restore` (each layer copied, its values shared)."""
        return HostState(dict(self.facts), dict(self.nonpersistent), dict(self.included),
                         {layer: dict(values) for layer, values in self.origins.items()}, self.gathered)

    def restore(self, kept: HostState) -> None:
        """Back to ``kept`` (a :meth:`copy`), in place: whoever holds a layer sees the change."""
        for mine, old in ((self.facts, kept.facts), (self.nonpersistent, kept.nonpersistent),
                          (self.included, kept.included), *((self.origins.setdefault(layer, {}), values)
                                                             for layer, values in kept.origins.items())):
            mine.clear()
            mine.update(old)
        self.gathered = kept.gathered



class VariableManager:
    def __init__(self, inventory: Inventory, options: LaunchValues, cache: SourceCache) -> None:
        self.inventory, self.options, self.cache = inventory, options, cache
        self.hosts: dict[str, HostState] = {}
        self.inject_facts = inject_facts_as_vars()
        self.config_file = find_config_file()  # C.CONFIG_FILE: the one file ansible read when it started
        self.precedence = variable_precedence()  # read once, as ansible does, not once per host

    def state(self, host: str) -> HostState:
        return self.hosts.setdefault(host, HostState())

    # -- merged views -----------------------------------------------------------------------
    def host_vars(self, host: Host, play: Play | None = None) -> dict[str, Any]:
        """Inventory variables (with the group_vars/host_vars beside ``play``'s playbook), then
        facts: what ``hostvars`` shows of the host before its include_vars and set_fact."""
        playbook_dir = os.path.abspath(play.basedir) if play is not None else None
        return fold([*inventory_layers(self, host, playbook_dir), self._facts(host)],
                    self.inventory.data.merge_hashes) | host.get_magic_vars()

    def _facts(self, host: Host) -> Layer:
        facts = self.state(host.name).facts
        # INJECT_FACTS_AS_VARS: facts also as top-level variables, as named
        return Layer("host facts", "facts", {**(facts if self.inject_facts else {}),
                                             "ansible_facts": namespace_facts(facts)})

    def task_vars(self, context: PlayContext, host: Host, task: Task | None,
                  include_params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What ``task`` sees on ``host`` in the run: the levels engine.variables.sources declares (the
        same a variable report shows), with what the run has learnt of the host (facts,
        include_vars, set_fact and register) and the ``include_params`` of its include."""
        layers, magic = self._task_layers(context, host, task, include_params)
        return fold(layers, self.inventory.data.merge_hashes) | magic

    def _task_layers(self, context: PlayContext, host: Host, task: Task | None,
                     include_params: Mapping[str, Any] | None) -> tuple[list[Layer], dict[str, Any]]:
        play = context.play
        state = self.state(host.name)
        runtime = [Layer(INCLUDED, "include_vars", state.included),
                   Layer(SET, "set_fact and register", state.nonpersistent)]
        below, above = host_independent_layers(
            self, context, task, runtime, facts=self._facts(host),
            include_params=Layer("include params", "include params", include_params) if include_params else None,
            prompted=True)
        magic = self.magic_vars(context, host, task)
        layers = with_vars_files(self, play, [*below, *inventory_layers(self, host, os.path.abspath(play.basedir)),
                                              *above], {**self.options.extra_vars, **magic}, bounded=False)
        return layers, magic

    def origin(self, context: PlayContext, host: Host, task: Task | None, name: str,
               include_params: Mapping[str, Any] | None = None, follow: bool = True) -> Span | str | None:
        """Where the value ``task`` sees as ``name`` on ``host`` is written, as ansible's Origin
        tag has it (the value's span, else the file and line, else the file), following a value
        that is one other variable's template (``"{{ other }}"`` keeps the other's origin) unless
        ``follow`` is false; None for a value no file holds (a fact, a registered result, a magic
        variable). The values of include_vars and set_fact have the origins the run recorded."""
        layers, magic = self._task_layers(context, host, task, include_params)
        return written_origin(layers, magic, name, follow, lambda level, n: self.state(host.name).origins[level].get(n))

    def hostless_vars(self, context: PlayContext, host: Host, task: Task) -> dict[str, Any]:
        """``get_vars(play, task)`` without a host, as the strategy templates a handler's name
        with it: the play's, roles' and task's levels and the play-wide magic variables, none of
        the inventory's, the facts or what earlier tasks set (``host`` only lends the magic
        variables that are the same on every host)."""
        below, above = host_independent_layers(self, context, task, [], gathers_facts=False, prompted=True)
        magic = {name: value for name, value in self.magic_vars(context, host, task).items()
                 if name not in _HOST_MAGIC}
        layers = with_vars_files(self, context.play, [*below, *above], {**self.options.extra_vars, **magic},
                                 bounded=False)
        return fold(layers, self.inventory.data.merge_hashes) | magic

    def magic_vars(self, context: PlayContext, host: Host, task: Task | None,
                   lists: Mapping[str, list[str]] | None = None) -> dict[str, Any]:
        """The magic variables of ``task`` on ``host``; ``lists``: the play's host lists
        (:meth:`PlayContext.magic_lists`) where the caller keeps them for several tasks."""
        play = context.play
        role = task.role if task is not None else None
        data = self.inventory.data
        if lists is None:
            lists = context.magic_lists()
        magic: dict[str, Any] = {
            "inventory_hostname": host.name,
            "inventory_hostname_short": host.get_magic_vars()["inventory_hostname_short"],
            "group_names": host.get_magic_vars()["group_names"],
            "groups": data.get_groups_dict(),
            "hostvars": HostVars(self, context),
            "play_hosts": lists["play_hosts"],
            "ansible_play_hosts": lists["ansible_play_hosts"],
            "ansible_play_batch": lists["ansible_play_batch"],
            "ansible_play_hosts_all": lists["ansible_play_hosts_all"],
            "ansible_play_name": play.name,
            **role_name_variables(context.roles, context.conditional, context.repeats),
            "playbook_dir": os.path.abspath(play.basedir),
            "ansible_playbook_python": sys.executable,
            "ansible_config_file": self.config_file,
            "omit": OMIT,
            **self.options.option_vars,
        }
        # inventory_dir and inventory_file are host variables (the source that first named the
        # host, InventoryData.add_host), not magic ones: the implicit localhost has neither
        if role is not None:
            magic.update(role_variables(role))
        if task is not None:  # get_vars sets it apart, after the magic variables: the task's, outermost first
            magic["environment"] = raw_environment(task)
        return magic


class HostVars(Mapping[str, Any]):
    """``hostvars``: every inventory host's variables, computed when asked for."""

    type_name = "HostVars"  # ansible's class, as native_type_name names it

    def __init__(self, manager: VariableManager, context: PlayContext) -> None:
        self._manager, self._context = manager, context

    def __getitem__(self, name: str) -> Any:
        """``get_vars(host=host)``: what the host has without a play or task (inventory, facts,
        include_vars, set_fact, extra vars, the play-independent magic variables), each value
        templated with these variables when it is read (ansible's ``HostVarsVars``)."""
        from engine.templating.bounds import apart
        from engine.templating.templar import Templar

        host = self._manager.inventory.data.get_host(name)
        if host is None:
            adding = next((unrun for unrun in getattr(self._manager.inventory, "unrun", ()) if unrun.any_name), None)
            if adding is not None:
                from engine.templating.errors import RunTimeOnly

                raise RunTimeOnly(f"hostvars[{name!r}] is known only at run time: {adding.reason} may add the host")
            raise KeyError(name)
        with apart():  # another host's state is the model's work, not the reading template's
            values = self.host_values(host)
        variables = Templar(values, task_scope=False).variables
        variables.type_name = "HostVarsVars"  # as ansible's messages name it ("object of type 'HostVarsVars'...")
        return variables

    @staticmethod
    def missing_hint(name: str) -> str:
        """ansible's HostVars gives a host it does not know as an undefined named so."""
        return f"hostvars[{name!r}]"

    def host_values(self, host: Host) -> Mapping[str, Any]:
        """The host's raw variables as ``hostvars`` shows them (the run's state of the host)."""
        state = self._manager.state(host.name)
        result = self._manager.host_vars(host, self._context.play) | state.included | state.nonpersistent
        return result | self._manager.options.extra_vars | self.run_wide()

    def run_wide(self) -> dict[str, Any]:
        """The play-independent magic variables every host's ``hostvars`` has."""
        return {"playbook_dir": os.path.abspath(self._context.play.basedir),
                "ansible_playbook_python": sys.executable, "ansible_config_file": self._manager.config_file,
                "groups": self._manager.inventory.data.get_groups_dict(), "omit": OMIT,
                **self._manager.options.option_vars}

    def __iter__(self) -> Iterator[str]:
        return iter(self._manager.inventory.data.hosts)

    def __len__(self) -> int:
        return len(self._manager.inventory.data.hosts)

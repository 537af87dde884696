"""The variables a task sees, merged in ansible's precedence (``VariableManager.get_vars``).

Lowest to highest: every role's defaults in the play, the task's role defaults, inventory
group and host variables, facts, play ``vars`` and ``vars_files``, every role's vars, the
task's role vars, role entry / block / import / task ``vars`` (outermost first),
``include_vars``, ``set_fact`` and ``register``, role params and include params, extra
vars, then the magic variables.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.config import find_config_file, inject_facts_as_vars
from engine.paths import load_role_vars
from engine.templating import as_dict

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.inventory.manager import Inventory
    from engine.model import Play, RoleInstance, Task
    from engine.source import SourceCache

OMIT = "__omit_place_holder__playbook_ls"


class LaunchValues(Protocol):
    """What a launch gives every task: ``-e`` and the ``ansible_*`` option variables
    (engine.plan.RunOptions)."""

    extra_vars: dict[str, Any]
    option_vars: dict[str, Any]


@dataclass
class HostState:
    """What a run has learnt about one host: facts, non-persistent facts, included vars."""

    facts: dict[str, Any] = field(default_factory=dict)
    nonpersistent: dict[str, Any] = field(default_factory=dict)
    included: dict[str, Any] = field(default_factory=dict)
    gathered: bool = False
    """The gather_facts action ran for the host (``gathering = smart`` gathers once a run)."""


@dataclass
class PlayContext:
    """The play being run: its hosts (all, and those still running) and the roles it uses."""

    play: Play
    hosts_all: list[str]
    hosts_left: list[str]
    roles: list[RoleInstance]
    batch: list[str] | None = None
    """The hosts of the ``serial`` batch being run (None: all the play's hosts)."""

    def batch_left(self) -> list[str]:
        """``ansible_play_batch``: the batch's hosts still running."""
        return [h for h in self.hosts_left if self.batch is None or h in self.batch]


class VariableManager:
    def __init__(self, inventory: Inventory, options: LaunchValues, cache: SourceCache) -> None:
        self.inventory, self.options, self.cache = inventory, options, cache
        self.hosts: dict[str, HostState] = {}
        self.inject_facts = inject_facts_as_vars()
        self._role_files: dict[tuple[str, str | None, str | None], tuple[dict[str, Any], dict[str, Any]]] = {}

    def state(self, host: str) -> HostState:
        return self.hosts.setdefault(host, HostState())

    # -- role files -------------------------------------------------------------------------
    def role_files(self, role: RoleInstance) -> tuple[dict[str, Any], dict[str, Any]]:
        """(defaults, vars) of a role, read once per role file set."""
        key = (role.path or "", role.from_files.get("defaults"), role.from_files.get("vars"))
        if key not in self._role_files:
            merge = self.inventory.data.merge_hashes
            loaded = [load_role_vars(lambda path: self.cache.load(path).data, role.path or "", sub,
                                     role.from_files.get(sub), merge) for sub in ("defaults", "vars")]
            self._role_files[key] = (loaded[0], loaded[1])
        return self._role_files[key]

    # -- merged views -----------------------------------------------------------------------
    def host_vars(self, host: Host, play: Play | None = None) -> dict[str, Any]:
        """Inventory variables (with the group_vars/host_vars beside ``play``'s playbook), then
        facts: what every task on the host starts from."""
        state = self.state(host.name)
        inventory = self.inventory if play is None else self.inventory.with_playbook_dir(os.path.abspath(play.basedir))
        result = inventory.host_variables(host) | host.get_magic_vars()
        if self.inject_facts:  # INJECT_FACTS_AS_VARS: facts as top-level variables, as named
            result |= state.facts
        result["ansible_facts"] = namespace_facts(state.facts)
        return result

    def task_vars(self, context: PlayContext, host: Host, task: Task | None,
                  include_params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        play = context.play
        role = task.role if task is not None else None
        result: dict[str, Any] = {}
        for used in context.roles:
            result |= self.role_files(used)[0]
        for ancestor in role_lineage(role):
            result |= self.role_files(ancestor)[0]
        result |= self.host_vars(host, play)
        result |= play.vars  # play vars and vars_files, as the resolver merged them
        for used in context.roles:
            result |= self.role_files(used)[1]
        for ancestor in role_lineage(role):
            result |= self.role_files(ancestor)[1]
        if task is not None:
            below_play = False
            for frame in task.chain:
                if below_play:
                    result |= as_dict(frame.keywords.get("vars"))
                below_play = below_play or frame.kind == "play"
        state = self.state(host.name)
        result |= state.included
        result |= state.nonpersistent
        for ancestor in role_lineage(role):
            result |= ancestor.params
        result |= include_params or {}
        result |= self.options.extra_vars
        result |= self.magic_vars(context, host, task)
        return result

    def magic_vars(self, context: PlayContext, host: Host, task: Task | None) -> dict[str, Any]:
        play = context.play
        role = task.role if task is not None else None
        data = self.inventory.data
        magic: dict[str, Any] = {
            "inventory_hostname": host.name,
            "inventory_hostname_short": host.get_magic_vars()["inventory_hostname_short"],
            "group_names": host.get_magic_vars()["group_names"],
            "groups": data.get_groups_dict(),
            "hostvars": HostVars(self, context),
            "play_hosts": context.batch_left(),
            "ansible_play_hosts": list(context.hosts_left),
            "ansible_play_batch": context.batch_left(),
            "ansible_play_hosts_all": list(context.hosts_all),
            "ansible_play_name": play.name,
            **role_name_variables(context.roles),
            "playbook_dir": os.path.abspath(play.basedir),
            "ansible_playbook_python": sys.executable,
            "ansible_config_file": find_config_file(),
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


def raw_environment(task: Task) -> list[Any]:
    """The environment entries that reach ``task``, outermost first, as written."""
    return [sourced.value for sourced in task.effective("environment") or []]  # type: ignore[union-attr]


def role_name_variables(roles: list[RoleInstance]) -> dict[str, Any]:
    """The play's role names (``_get_magic_variables``): the roles the play names (``roles:``
    and ``import_role``) in order, those their dependencies pull in, and both. ansible builds
    the last two from sets, so their order changes from run to run; here they are sorted."""
    named = [role.name for role in roles if role.via != "dependency"]
    dependencies = sorted({role.name for role in roles if role.via == "dependency"})
    return {"ansible_play_role_names": named, "role_names": list(named),
            "ansible_dependent_role_names": dependencies,
            "ansible_role_names": sorted(set(named) | set(dependencies))}


def role_variables(role: RoleInstance) -> dict[str, Any]:
    """The magic variables of a task in ``role``: ``role_name`` is the short name, while
    ``ansible_role_name`` keeps a collection role's full name."""
    short = role.name.rsplit(".", 1)[-1] if role.collection else role.name
    return {"role_name": short, "ansible_role_name": role.name, "role_path": role.path,
            "ansible_collection_name": role.collection}


def namespace_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``ansible_facts``: the facts without their ``ansible_`` prefix (``ansible_local`` keeps it)."""
    return {key[8:] if key.startswith("ansible_") and key != "ansible_local" else key: value
            for key, value in facts.items()}


def role_lineage(role: RoleInstance | None) -> list[RoleInstance]:
    """The role and the roles that pulled it in as a dependency, outermost first."""
    lineage: list[RoleInstance] = []
    while role is not None:
        lineage.insert(0, role)
        role = role.parent if role.via == "dependency" else None
    return lineage


class HostVars(Mapping[str, Any]):
    """``hostvars``: every inventory host's variables, computed when asked for."""

    def __init__(self, manager: VariableManager, context: PlayContext) -> None:
        self._manager, self._context = manager, context

    def __getitem__(self, name: str) -> Any:
        """``get_vars(host=host)``: what the host has without a play or task (inventory, facts,
        include_vars, set_fact, extra vars, the play-independent magic variables), each value
        templated with these variables when it is read (ansible's ``HostVarsVars``)."""
        from engine.templar import Templar

        host = self._manager.inventory.data.get_host(name)
        if host is None:
            raise KeyError(name)
        state = self._manager.state(name)
        result = self._manager.host_vars(host, self._context.play) | state.included | state.nonpersistent
        result |= self._manager.options.extra_vars
        result |= {"playbook_dir": os.path.abspath(self._context.play.basedir),
                   "ansible_playbook_python": sys.executable, "ansible_config_file": find_config_file(),
                   "groups": self._manager.inventory.data.get_groups_dict(), "omit": OMIT,
                   **self._manager.options.option_vars}
        return Templar(result, task_scope=False).variables

    def __iter__(self) -> Iterator[str]:
        return iter(self._manager.inventory.data.hosts)

    def __len__(self) -> int:
        return len(self._manager.inventory.data.hosts)

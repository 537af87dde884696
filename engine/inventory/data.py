"""The inventory graph: a port of ansible-core 2.19's ``InventoryData``, ``Group`` and ``Host``.

Mirrors ``ansible/inventory/data.py``, ``group.py`` and ``host.py`` with the same names and
semantics (the order of ``Group.get_hosts()``, ancestors added to ``Host.groups`` as a group
joins, ``ungrouped`` reconciliation, the implicit ``localhost``), so the sources in this
package and ``ansible-inventory``'s rendering of them agree. Differences that do not change
results: warnings are collected in ``InventoryData.warnings`` instead of being displayed, and
graph walks use insertion-ordered sets where ansible uses ``set`` (one of the orders ansible
may produce, but a reproducible one). No ansible import: this runs without ansible-core.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, MutableMapping

from engine.inventory.addresses import PATTERNS
from engine.inventory.combine import combine_vars
from engine.span import YMap, YSeq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOCALHOST = ("127.0.0.1", "localhost", "::1")
"""Names that mean the control node (ansible's ``C.LOCALHOST``)."""

INVALID_VARIABLE_NAMES = re.compile(r"^[\d\W]|[^\w]")
"""ansible's ``C.INVALID_VARIABLE_NAMES``: what makes a group name not a valid identifier."""

def isolated(value: Any) -> Any:
    """A copy of ``value``'s mappings and lists at every depth, as ansible's inventory wrapper
    makes of each value a plugin sets (its variable visitor "always recursively copies"): no two
    variables set share a container, even when the file made them one object (a YAML alias), and
    an alias met twice inside one value is copied twice. What several hosts share is a group's
    value, which is what ansible's YAML output writes once with an anchor."""
    kind = type(value)
    if kind is YMap:
        copy = YMap(value.span)
        copy.key_spans, copy.value_spans = value.key_spans, value.value_spans
        for key, item in value.items():
            copy[key] = isolated(item)
        return copy
    if kind is YSeq:
        seq = YSeq(value.span)
        seq.item_spans = value.item_spans
        seq.extend(isolated(item) for item in value)
        return seq
    if kind is dict:
        return {key: isolated(item) for key, item in value.items()}
    if kind is list:
        return [isolated(item) for item in value]
    return value


class InventoryError(Exception):
    """A violated inventory rule (ansible raises ``AnsibleError`` with the same message)."""


def to_safe_group_name(name: str, replacer: str = "_", force: bool = False, silent: bool = False,
                       warnings: list[str] | None = None, transform: str = "never") -> str:
    """Replace the characters that are invalid in a variable name, as ansible's function does.

    ``transform`` is the ``TRANSFORM_INVALID_GROUP_CHARS`` setting: ``never`` keeps such names
    and warns, ``ignore`` keeps them silently, ``always`` replaces and warns, ``silently``
    replaces without a word; ``force`` (used by ``constructed``) replaces whatever the setting.
    Warnings go to ``warnings`` when given."""
    warn = ""
    if name and INVALID_VARIABLE_NAMES.findall(name):
        if transform not in ("never", "ignore") or force:
            name = INVALID_VARIABLE_NAMES.sub(replacer, name)
            if not (silent or transform == "silently"):
                warn = ("Invalid characters were found in group names and automatically replaced, "
                        "use -vvvv to see details")
        elif transform == "never":
            warn = "Invalid characters were found in group names but not replaced, use -vvvv to see details"
    if warn and warnings is not None:
        warnings.append(warn)
    return name


def _with_variable(current: dict[str, Any], key: str, value: Any, merge: bool) -> dict[str, Any]:
    """``set_variable``'s update: a dictionary given for a variable that holds one is combined with
    it (so merged with ``hash_behaviour = merge``), anything else replaces the value."""
    if key in current and isinstance(current[key], MutableMapping) and isinstance(value, Mapping):
        return combine_vars(current, {key: value}, merge)
    current[key] = value
    return current


class _EdgeVersion:
    """Counts the parent/child edges ever added between groups, in any inventory: a group's
    remembered ancestors are stale once it changes."""

    version = 0


_edges = _EdgeVersion


class Group:
    """A group of hosts (ansible's ``Group``)."""

    def __init__(self, name: str, warnings: list[str] | None = None, merge_hashes: bool = False,
                 transform_invalid_chars: str = "never") -> None:
        self.depth: int = 0
        self.name: str = to_safe_group_name(name, warnings=warnings, transform=transform_invalid_chars)
        self.merge_hashes = merge_hashes
        """``hash_behaviour = merge``: dictionaries set twice for a variable are merged."""
        self.hosts: list[Host] = []
        self._host_names: set[str] = set()
        self.vars: dict[str, Any] = {}
        self.child_groups: list[Group] = []
        self.parent_groups: list[Group] = []
        self._hosts_cache: list[Host] | None = None
        self.priority: int = 1
        self._ancestors: list[Group] = []
        self._ancestors_version = -1

    def __repr__(self) -> str:
        return self.name

    def get_name(self) -> str:
        return self.name

    def _walk_relationship(self, rel: str, include_self: bool = False) -> list[Group]:
        """Every group reachable through ``rel`` (breadth first, each once), like ansible's walk
        with ``preserve_ordering``: self, the direct relatives in order, then further levels."""
        ordered: list[Group] = [self] if include_self else []
        ordered.extend(g for g in getattr(self, rel) if g not in ordered)
        seen: dict[Group, None] = dict.fromkeys(ordered)
        level: dict[Group, None] = dict.fromkeys(getattr(self, rel))
        while level:
            seen.update(level)
            following: dict[Group, None] = {}
            for group in level:
                for item in getattr(group, rel):
                    if item not in seen:
                        following[item] = None
                        if item not in ordered:
                            ordered.append(item)
            level = following
        return ordered

    def get_ancestors(self) -> list[Group]:
        """Remembered until any group gains a parent: adding each of thousands of hosts to a group
        asks for the group's ancestors twice."""
        if self._ancestors_version != _edges.version:
            self._ancestors = self._walk_relationship("parent_groups")
            self._ancestors_version = _edges.version
        return list(self._ancestors)

    def get_descendants(self, include_self: bool = False) -> list[Group]:
        return self._walk_relationship("child_groups", include_self=include_self)

    @property
    def host_names(self) -> set[str]:
        return self._host_names

    def add_child_group(self, group: Group) -> bool:
        if self is group:
            raise InventoryError("can't add group to itself")
        if group in self.child_groups:
            return False
        start_ancestors = group.get_ancestors()
        new_ancestors = self.get_ancestors()
        if group in new_ancestors:
            raise InventoryError(f"Adding group '{group.name}' as child to '{self.name}' creates a recursive "
                                 "dependency loop.")
        new_ancestors.append(self)
        new_ancestors = [g for g in new_ancestors if g not in start_ancestors]
        self.child_groups.append(group)
        _edges.version += 1
        group.depth = max(self.depth + 1, group.depth)
        group._check_children_depth()
        if self.name not in [g.name for g in group.parent_groups]:
            group.parent_groups.append(self)
            for host in group.get_hosts():
                host.populate_ancestors(additions=new_ancestors)
        self.clear_hosts_cache()
        return True

    def _check_children_depth(self) -> None:
        depth = start_depth = self.depth
        seen: set[Group] = set()
        unprocessed = list(self.child_groups)
        while unprocessed:
            seen.update(unprocessed)
            depth += 1
            to_process, unprocessed = unprocessed, []
            for group in to_process:
                if group.depth < depth:
                    group.depth = depth
                    unprocessed.extend(group.child_groups)
            if depth - start_depth > len(seen):
                raise InventoryError(f"The group named '{self.name}' has a recursive dependency loop.")

    def add_host(self, host: Host) -> bool:
        if host.name in self._host_names:
            return False
        self.hosts.append(host)
        self._host_names.add(host.name)
        host.add_group(self)
        self.clear_hosts_cache()
        return True

    def remove_host(self, host: Host) -> bool:
        if host.name not in self._host_names:
            return False
        self.hosts.remove(host)
        self._host_names.remove(host.name)
        host.remove_group(self)
        self.clear_hosts_cache()
        return True

    def set_variable(self, key: str, value: Any) -> None:
        if key == "ansible_group_priority":
            self.set_priority(int(value))
        else:
            self.vars = _with_variable(self.vars, key, value, self.merge_hashes)

    def clear_hosts_cache(self) -> None:
        self._hosts_cache = None
        for group in self.get_ancestors():
            group._hosts_cache = None

    def get_hosts(self) -> list[Host]:
        """This group's hosts then its descendants' (breadth first), each once; ``all`` leaves out
        the implicit localhost."""
        if self._hosts_cache is None:
            hosts: list[Host] = []
            seen: set[int] = set()
            for kid in self.get_descendants(include_self=True):
                for host in kid.hosts:
                    if id(host) not in seen:
                        seen.add(id(host))
                        if self.name == "all" and host.implicit:
                            continue
                        hosts.append(host)
            self._hosts_cache = hosts
        return self._hosts_cache

    def get_vars(self) -> dict[str, Any]:
        return self.vars.copy()

    def set_priority(self, priority: int | str) -> None:
        try:
            self.priority = int(priority)
        except TypeError:
            pass


class Host:
    """A single host (ansible's ``Host``)."""

    def __init__(self, name: str, port: int | str | None = None, merge_hashes: bool = False) -> None:
        self.vars: dict[str, Any] = {}
        self.merge_hashes = merge_hashes
        """``hash_behaviour = merge``: dictionaries set twice for a variable are merged."""
        self.groups: list[Group] = []
        self.name: str = name
        self.address: str = name
        if port:
            self.set_variable("ansible_port", int(port))
        self.implicit: bool = False

    def __repr__(self) -> str:
        return self.name

    def get_name(self) -> str:
        return self.name

    def populate_ancestors(self, additions: list[Group] | None = None) -> None:
        if additions is None:
            for group in list(self.groups):
                self.add_group(group)
            return
        for group in additions:
            if group not in self.groups:
                self.groups.append(group)

    def add_group(self, group: Group) -> bool:
        for ancestor in group.get_ancestors():
            if ancestor not in self.groups:
                self.groups.append(ancestor)
        if group in self.groups:
            return False
        self.groups.append(group)
        return True

    def remove_group(self, group: Group) -> bool:
        if group not in self.groups:
            return False
        self.groups.remove(group)
        for ancestor in group.get_ancestors():  # drop ancestors no other group still implies, except all
            if ancestor.name != "all" and not any(ancestor in g.get_ancestors() for g in self.groups):
                self.remove_group(ancestor)
        return True

    def set_variable(self, key: str, value: Any) -> None:
        self.vars = _with_variable(self.vars, key, value, self.merge_hashes)

    def get_groups(self) -> list[Group]:
        return self.groups

    def get_magic_vars(self) -> dict[str, Any]:
        is_address = PATTERNS["ipv4"].match(self.name) or (":" in self.name and PATTERNS["ipv6"].match(self.name))
        return {
            "inventory_hostname": self.name,
            "inventory_hostname_short": self.name if is_address else self.name.split(".")[0],
            "group_names": sorted(g.name for g in self.groups if g.name != "all"),
        }

    def get_vars(self) -> dict[str, Any]:
        return combine_vars(self.vars, self.get_magic_vars(), self.merge_hashes)


def sort_groups(groups: list[Group]) -> list[Group]:
    """ansible's ``sort_groups``: the order group variables are merged in (later wins)."""
    return sorted(groups, key=lambda g: (g.depth, g.priority, g.name))


class InventoryData:
    """Hosts and groups, with the relationships ansible guarantees (ansible's ``InventoryData``).

    ``merge_hashes`` is ``hash_behaviour = merge`` and ``transform_invalid_group_chars`` the
    ``force_valid_group_names`` setting: ansible reads both globally, here the inventory carries
    them to its groups and hosts so two inventories with different settings can coexist."""

    def __init__(self, merge_hashes: bool = False, transform_invalid_group_chars: str = "never") -> None:
        self.merge_hashes = merge_hashes
        self.transform_invalid_group_chars = transform_invalid_group_chars
        self.groups: dict[str, Group] = {}
        self.hosts: dict[str, Host] = {}
        self._groups_dict_cache: dict[str, list[str]] = {}
        self.localhost: Host | None = None
        self.current_source: str | None = None
        self._source_dir: tuple[str | None, str | None] = (None, None)
        self.variables_set = 0
        """How many variables plugins have set (not those the inventory sets on a new host)."""
        self.value_origins: dict[str, dict[str, Any]] = {}  # an INI source's "PATH:LINE", a YAML one's span
        """Host or group -> variable -> ``PATH:LINE`` where an INI source sets it: ansible tags the
        value with that origin and names it when the value breaks a conditional."""
        self.trust_by_default: bool | None = None
        """ansible-core 2.19 decides once per run, by the first plugin that sets a variable, whether
        the strings plugins set without marking them are trusted as templates (only ``toml``'s
        answer is yes): its inventory wrapper keeps that decision on the shared inventory."""
        self.processed_sources: list[str] = []
        self.warnings: list[str] = []
        for group in ("all", "ungrouped"):  # always there
            self.add_group(group)
        self.add_child("all", "ungrouped")

    def warn(self, message: str) -> None:
        """Record a warning once (ansible's display de-duplicates them too)."""
        if message not in self.warnings:
            self.warnings.append(message)

    def _create_implicit_localhost(self, pattern: str) -> Host:
        if self.localhost:
            return self.localhost
        host = Host(pattern, merge_hashes=self.merge_hashes)
        host.address = "127.0.0.1"
        host.implicit = True
        host.set_variable("ansible_python_interpreter", sys.executable or "/usr/bin/python")
        host.set_variable("ansible_connection", "local")
        self.localhost = host
        return host

    def reconcile_inventory(self) -> None:
        """Every group under ``all``, hosts without a group in ``ungrouped`` (and only those)."""
        self.current_source = None
        for group in list(self.groups.values()):
            if group.name != "all" and not group.get_ancestors():
                self.add_child("all", group.name)
        for host in self.hosts.values():
            mygroups = host.get_groups()
            if self.groups["ungrouped"] in mygroups:
                if any(g not in (self.groups["all"], self.groups["ungrouped"]) for g in mygroups):
                    self.groups["ungrouped"].remove_host(host)
            elif not host.implicit:
                if not mygroups or (len(mygroups) == 1 and self.groups["all"] in mygroups):
                    self.add_child("ungrouped", host.name)
            if host.implicit:
                host.vars = combine_vars(self.groups["all"].get_vars(), host.vars, self.merge_hashes)
        for conflict in [name for name in self.groups if name in self.hosts]:
            self.warn(f"Found both group and host with same name: {conflict}")
        self._groups_dict_cache = {}

    def get_host(self, hostname: str) -> Host | None:
        """The named host; ``localhost``-like names give the implicit localhost when not defined."""
        host = self.hosts.get(hostname)
        if host is None and hostname in LOCALHOST:
            host = self._create_implicit_localhost(hostname)
        return host

    def add_group(self, group: str) -> str:
        """Add a group unless present; returns the name actually used."""
        if not group:
            raise InventoryError(f"Invalid empty/false group name provided: {group}")
        if not isinstance(group, str):
            raise InventoryError(f"Invalid group name supplied, expected a string but got {type(group)} for {group}")
        if group not in self.groups:
            new = Group(group, warnings=self.warnings, merge_hashes=self.merge_hashes,
                        transform_invalid_chars=self.transform_invalid_group_chars)
            self.warnings[:] = list(dict.fromkeys(self.warnings))
            group = new.name
            if group not in self.groups:
                self.groups[group] = new
                self._groups_dict_cache = {}
        return group

    def remove_group(self, group: Group) -> None:
        if group.name in self.groups:
            del self.groups[group.name]
            self._groups_dict_cache = {}
        for host in self.hosts.values():
            host.remove_group(group)

    def add_host(self, host: str, group: str | None = None, port: int | str | None = None) -> str:
        """Add a host unless present (recording the source it first came from), optionally to a group."""
        if not host:
            raise InventoryError(f"Invalid empty host name provided: {host}")
        if not isinstance(host, str):
            raise InventoryError(f"Invalid host name supplied, expected a string but got {type(host)} for {host}")
        target = None
        if group:
            if group not in self.groups:
                raise InventoryError(f"Could not find group {group} in inventory")
            target = self.groups[group]
        if host not in self.hosts:
            new = Host(host, port, merge_hashes=self.merge_hashes)
            self.hosts[host] = new
            source = self.current_source  # the first source a host appears in
            new.set_variable("inventory_file", source or None)
            if self._source_dir[0] != source:  # once per source, not two file-system calls per host
                self._source_dir = (source, _basedir(source) if source else None)
            new.set_variable("inventory_dir", self._source_dir[1])
            if host in LOCALHOST:
                if self.localhost is None:
                    self.localhost = new
                else:
                    self.warn(f"A duplicate localhost-like entry was found ({new.name}). First found localhost "
                              f"was {self.localhost.name}")
        if target:
            target.add_host(self.hosts[host])
            self._groups_dict_cache = {}
        return host

    def remove_host(self, host: Host) -> None:
        self.hosts.pop(host.name, None)
        for group in self.groups.values():
            group.remove_host(host)

    def set_variable(self, entity: str, varname: str, value: Any) -> None:
        target: Host | Group
        if entity in self.groups:
            target = self.groups[entity]
        elif entity in self.hosts:
            target = self.hosts[entity]
        else:
            raise InventoryError(f"Could not identify group or host named {entity}")
        self.variables_set += 1
        target.set_variable(varname, isolated(value))

    def add_child(self, group: str, child: str) -> bool:
        """Put a group or a host into ``group``."""
        if group not in self.groups:
            raise InventoryError(f"{group} is not a known group")
        parent = self.groups[group]
        if child in self.groups:
            added = parent.add_child_group(self.groups[child])
        elif child in self.hosts:
            added = parent.add_host(self.hosts[child])
        else:
            raise InventoryError(f"{child} is not a known host nor group")
        self._groups_dict_cache = {}
        return added

    def get_groups_dict(self) -> dict[str, list[str]]:
        """The ``groups`` magic variable: group name -> host names."""
        if not self._groups_dict_cache:
            self._groups_dict_cache = {name: [h.name for h in g.get_hosts()] for name, g in self.groups.items()}
        return self._groups_dict_cache


def _basedir(source: str) -> str:
    """ansible's ``utils.path.basedir``: a directory source itself, a file's directory (absolute,
    symlinks kept), the working directory for an empty source, and for a host list the text
    ``"None"`` (``to_text(None)``: ``inventory_dir | realpath`` is the working directory's ``None``)."""
    if os.path.isdir(source):
        name: str | None = source
    elif source in ("", "."):
        name = os.getcwd()
    elif os.path.isfile(source):
        name = os.path.dirname(source)
    else:
        name = None
    return os.path.abspath(name) if name else "None"

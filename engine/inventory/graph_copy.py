"""A copy of an inventory's graph that the copy's changes leave the original's alone, at the cost of
its hosts and groups, not of their variables' values.

``group_by`` and ``add_host`` change an inventory the way the run will (engine.variables.inventory_changes):
each change is applied to a copy, and the inventory before it stays what the earlier tasks read.
A ``copy.deepcopy`` of the graph walks every value of every variable and recurses along the links
between hosts and groups (deeper than Python's stack on thousands of hosts); what a change does is
only to add groups, hosts, links and the variables of the hosts ``add_host`` names, so a copy needs
new hosts and groups, new link lists and new variable dictionaries, the values in them shared:
nothing here changes a value inside a variable, only which value a variable holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from engine.inventory.data import Group, Host, InventoryData

_Node = TypeVar("_Node")


def copy_graph(data: InventoryData) -> InventoryData:
    """``data``'s hosts, groups and the links between them, copied; the variables' values shared."""
    hosts: dict[int, Host] = {}
    groups: dict[int, Group] = {}

    def host_copy(host: Host) -> Host:
        return _copied(host, hosts)

    def group_copy(group: Group) -> Group:
        return _copied(group, groups)

    new = object.__new__(type(data))
    new.__dict__.update(data.__dict__)
    new.groups = {name: group_copy(group) for name, group in data.groups.items()}
    new.hosts = {name: host_copy(host) for name, host in data.hosts.items()}
    new.localhost = host_copy(data.localhost) if data.localhost is not None else None
    for old in list(data.groups.values()):
        group = groups[id(old)]
        group.hosts = [host_copy(host) for host in old.hosts]
        group._host_names = set(old._host_names)  # noqa: SLF001 - the copy's own
        group.child_groups = [group_copy(child) for child in old.child_groups]
        group.parent_groups = [group_copy(parent) for parent in old.parent_groups]
        group._hosts_cache = None  # noqa: SLF001 - worked out again from the copy's links
        group._ancestors, group._ancestors_version = [], -1  # noqa: SLF001
    for host in list(hosts.values()):
        host.groups = [group_copy(group) for group in host.groups]
    new._groups_dict_cache = {}  # noqa: SLF001
    new.value_origins = {name: dict(origins) for name, origins in data.value_origins.items()}
    new.processed_sources = list(data.processed_sources)
    new.warnings = list(data.warnings)
    return new


def _copied(node: _Node, copies: dict[int, _Node]) -> _Node:
    """The copy of a host or group (made once per copy of the graph): its attributes, its own
    dictionary of variables, their values shared."""
    new = copies.get(id(node))
    if new is None:
        new = copies[id(node)] = object.__new__(type(node))  # type: ignore[assignment]
        new.__dict__.update(node.__dict__)
        new.vars = dict(node.vars)  # type: ignore[attr-defined]
    return new

"""``add_host`` and ``group_by``: the in-memory inventory changed for the rest of the run.

The action plugins only describe the change (``add_host``: host name, groups, variables;
``group_by``: a group and its parents); the strategy applies it to the inventory
(``InventoryManager.add_dynamic_host`` / ``add_dynamic_group``) and decides ``changed`` from
what it really changed. ``add_host`` bypasses the host loop: the first host of the batch runs
it (each loop item adds a host); ``group_by`` runs for every host, putting it in the group.
Later plays select their hosts from the changed inventory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.inventory.combine import combine_vars
from engine.inventory.data import InventoryData, InventoryError
from engine.loading import keywords as kw
from engine.run.modules._args import invalid_options

ADD_HOST = kw._family("add_host")
GROUP_BY = kw._family("group_by")
CHANGES_INVENTORY = kw.CHANGES_INVENTORY
SPECIAL_ARGS = frozenset(("name", "hostname", "groupname", "groups"))


class ActionFailed(Exception):
    """The action fails the task with this message."""


def add_host_request(args: Mapping[str, Any]) -> dict[str, Any]:
    """What ``add_host``'s action plugin returns (``add_host`` key), or raises ActionFailed."""
    args = dict(args)
    raw = args.pop("_raw_params", {})
    if not isinstance(raw, Mapping):
        raise ActionFailed(f"Invalid raw parameters passed, requires a dictionary/mapping got a  {type(raw)}")
    args = {**raw, **args}
    new_name = args.get("name", args.get("hostname", args.get("host")))
    if new_name is None:
        raise ActionFailed("name, host or hostname needs to be provided")
    name, port = _parse_address(str(new_name))
    if port:
        args["ansible_ssh_port"] = port
    groups = args.get("groupname", args.get("groups", args.get("group", "")))
    new_groups: list[str] = []
    if groups:
        if isinstance(groups, list):
            group_list = groups
        elif isinstance(groups, str):
            group_list = groups.split(",")
        else:
            raise ActionFailed("Groups must be specified as a list.")
        for group_name in group_list:
            if group_name not in new_groups:
                new_groups.append(str(group_name).strip())
    host_vars = {k: v for k, v in args.items() if k not in SPECIAL_ARGS}
    return {"host_name": name, "groups": new_groups, "host_vars": host_vars}


def _parse_address(address: str) -> tuple[str, int | None]:
    """``parse_address`` for the common forms: ``name``, ``name:port``, ``[v6]:port``."""
    if address.startswith("[") and "]:" in address:
        host, _, port = address[1:].partition("]:")
        return host, int(port) if port.isdigit() else None
    if address.count(":") == 1:
        host, _, port = address.partition(":")
        if port.isdigit():
            return host, int(port)
    return address, None


def add_dynamic_host(data: InventoryData, info: Mapping[str, Any]) -> bool:
    """``InventoryManager.add_dynamic_host``: whether the inventory changed."""
    changed = False
    host_name = info["host_name"]
    if host_name not in data.hosts:
        data.add_host(host_name, "all")
        changed = True
    host = data.hosts[host_name]
    combined = combine_vars(host.vars, info.get("host_vars", {}), data.merge_hashes)
    if combined != host.vars:
        host.vars = combined
        changed = True
    for group_name in info.get("groups", []):
        if group_name not in data.groups:
            group_name = data.add_group(group_name)
            changed = True
        if data.groups[group_name].add_host(host):
            changed = True
    if changed:
        data.reconcile_inventory()
    data._groups_dict_cache = {}
    return changed


def group_by_request(args: Mapping[str, Any]) -> dict[str, Any]:
    """What ``group_by``'s action plugin returns, or raises ActionFailed."""
    if "key" not in args:
        raise ActionFailed("the 'key' param is required when using group_by")
    parents = args.get("parents", ["all"])
    if isinstance(parents, str):
        parents = [parents]
    return {"changed": False, "add_group": str(args["key"]).replace(" ", "-"),
            "parent_groups": [str(name).replace(" ", "-") for name in parents]}


def add_dynamic_group(data: InventoryData, host_name: str, result: Mapping[str, Any]) -> bool:
    """``InventoryManager.add_dynamic_group``: whether the inventory changed."""
    changed = False
    host = data.get_host(host_name)
    if host is None:
        raise InventoryError(f"{host_name} cannot be matched in inventory")
    group_name = result["add_group"]
    if group_name not in data.groups:
        group_name = data.add_group(group_name)
    for name in result.get("parent_groups", []):
        if name not in data.groups:
            data.add_group(name)
            changed = True
    group = data.groups[group_name]
    for parent_name in result.get("parent_groups", []):
        if data.groups[parent_name].add_child_group(group) and not changed:
            changed = True
    if host not in group.get_hosts():
        changed = group.add_host(host)
    if group not in host.get_groups():
        changed = host.add_group(group)
    if changed:
        data.reconcile_inventory()
    data._groups_dict_cache = {}
    return changed


def change_inventory(data: InventoryData, action: str, args: Mapping[str, Any], host: str) -> dict[str, Any]:
    """Run ``add_host`` or ``group_by`` for ``host`` and apply it, as action and strategy do."""
    try:
        if action in ADD_HOST:
            info = add_host_request(args)
            return {"changed": add_dynamic_host(data, info), "add_host": info}
        if refused := invalid_options(action, args, frozenset(("key", "parents"))):  # the action's _VALID_ARGS
            return refused
        result = group_by_request(args)
        result["changed"] = add_dynamic_group(data, host, result)
        return result
    except (ActionFailed, InventoryError) as exc:
        return {"failed": True, "msg": str(exc), "changed": False}

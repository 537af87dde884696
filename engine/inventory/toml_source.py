"""TOML inventory files (``hosts.toml``): a port of ansible-core 2.19's ``toml`` inventory plugin,
which reads them with the standard library's ``tomllib``.

``[group]`` tables with ``vars`` (a table), ``children`` (a list of group names) and ``hosts``
(a table of host patterns, ranges and ports allowed, each with a table of variables).
"""

from __future__ import annotations

import tomllib
from collections.abc import MutableMapping, MutableSequence
from typing import Any

from engine.inventory.addresses import expand_hostpattern
from engine.inventory.data import InventoryData, InventoryError
from engine.inventory.trust import untrusted
from engine.inventory.yaml_source import populate_host_vars


def parse_toml_inventory(inventory: InventoryData, text: str, source: str, untrusted_values: bool = False) -> None:
    """Add the TOML inventory ``text`` (read from ``source``) to ``inventory``; raises
    :class:`InventoryError` worded as ansible's plugin words it. ``untrusted_values``: the
    variables' strings are not trusted as templates (see the caller)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise InventoryError(f"TOML file {source!r} is invalid.") from None
    if not data:
        raise InventoryError("Parsed empty TOML file")
    if data.get("plugin"):
        raise InventoryError("Plugin configuration TOML file, not TOML inventory")
    for group_name in data:
        _parse_group(inventory, group_name, data[group_name], untrusted if untrusted_values else _same)


def _same(value: Any) -> Any:
    return value


def _parse_group(inventory: InventoryData, group: str, group_data: Any, trust: Any = _same) -> None:
    if group_data is not None and not isinstance(group_data, MutableMapping):
        inventory.warn(f"Skipping '{group}' as this is not a valid group definition")
        return
    group = inventory.add_group(group)
    if group_data is None:
        return
    for key, data in group_data.items():
        if key == "vars":
            if not isinstance(data, MutableMapping):
                raise InventoryError(f'Invalid "vars" entry for "{group}" group, requires a dict, found '
                                     f'"{type(data)}" instead.')
            for var, value in data.items():
                inventory.set_variable(group, var, trust(value))
        elif key == "children":
            if not isinstance(data, MutableSequence):
                raise InventoryError(f'Invalid "children" entry for "{group}" group, requires a list, found '
                                     f'"{type(data)}" instead.')
            for subgroup in data:
                _parse_group(inventory, subgroup, {}, trust)
                inventory.add_child(group, subgroup)
        elif key == "hosts":
            if not isinstance(data, MutableMapping):
                raise InventoryError(f'Invalid "hosts" entry for "{group}" group, requires a dict, found '
                                     f'"{type(data)}" instead.')
            for host_pattern, variables in data.items():
                hosts, port = expand_hostpattern(host_pattern)
                populate_host_vars(inventory, hosts, trust(variables), group, port)
        else:
            inventory.warn(f'Skipping unexpected key "{key}" in group "{group}", only "vars", "children" and '
                           '"hosts" are valid')

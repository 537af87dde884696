"""YAML inventory files: a port of ansible-core's ``yaml`` inventory plugin.

``group: {hosts: {name: {vars}}, children: {group: ...}, vars: {...}}`` from the top, where a
null section is skipped, a string section means one entry, and host keys may carry ranges
and ports (``web[01:03]:2222``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from engine.inventory.addresses import expand_hostpattern
from engine.inventory.data import InventoryData, InventoryError
from engine.values import YamlTimestamp

SECTIONS = ("vars", "children", "hosts")


_TAGGED = "<class 'ansible.module_utils._internal._datatag._AnsibleTagged{}'>"


def _type_name(value: Any) -> str:
    """How ansible words a type in these messages: what its YAML loader made is tagged with its
    origin, a subclass that shows (``<class '..._AnsibleTaggedList'>``); a boolean cannot be."""
    if isinstance(value, YamlTimestamp):
        return _TAGGED.format(type(value.moment).__name__.capitalize().replace("time", "Time"))
    for kind, name in ((bool, ""), (str, "Str"), (int, "Int"), (float, "Float"), (bytes, "Bytes"),
                       (list, "List"), (MutableMapping, "Dict")):
        if isinstance(value, kind):
            return _TAGGED.format(name) if name else str(type(value))
    return str(type(value))


def parse_yaml_inventory(inventory: InventoryData, data: Any) -> None:
    """Add a loaded YAML inventory to ``inventory``; raises :class:`InventoryError` worded as ansible's."""
    if not data:
        raise InventoryError("Parsed empty YAML file")
    if not isinstance(data, MutableMapping):
        raise InventoryError("YAML inventory has invalid structure, it should be a dictionary, got: "
                             f"{_type_name(data)}")
    if data.get("plugin"):
        raise InventoryError("Plugin configuration YAML file, not YAML inventory")
    for group_name in data:
        _parse_group(inventory, group_name, data[group_name])


def populate_host_vars(inventory: InventoryData, hosts: list[str], variables: Any, group: str,
                       port: int | None) -> None:
    """ansible's ``_populate_host_vars`` (file plugins): each host into ``group``, with ``variables``."""
    if not isinstance(variables, MutableMapping):
        raise InventoryError(f"Invalid data from file, expected dictionary and got:\n\n{variables}")
    for host in hosts:
        inventory.add_host(host, group=group, port=port)
        for var in variables:
            inventory.set_variable(host, var, variables[var])
        _note_origins(inventory, host, variables)


def _note_origins(inventory: InventoryData, entity: str, variables: Any) -> None:
    """Where each variable of ``entity`` is written (its name's place), for the warnings that
    show it (a reserved name's)."""
    spans = getattr(variables, "key_spans", None) or {}
    origins = inventory.value_origins.setdefault(entity, {})
    for var in variables:
        if spans.get(var) is not None:
            origins[var] = spans[var]


def _text(value: Any) -> str:
    """``value`` as ansible's messages print it: a timestamp is the date or datetime its loader made."""
    return str(value.moment) if isinstance(value, YamlTimestamp) else str(value)


def _is_text(value: Any) -> bool:
    """Whether ansible's loader made a string of ``value`` (not of a YAML timestamp: a date)."""
    return isinstance(value, str) and not isinstance(value, YamlTimestamp)


def _parse_group(inventory: InventoryData, group: Any, group_data: Any) -> Any:
    if not isinstance(group_data, (MutableMapping, type(None))):
        inventory.warn(f"Skipping '{_text(group)}' as this is not a valid group definition")
        return group
    try:
        if group and not _is_text(group):
            raise InventoryError(f"Invalid group name supplied, expected a string but got {_type_name(group)} "
                                 f"for {_text(group)}")
        group = inventory.add_group(group)
    except InventoryError as exc:
        raise InventoryError(f"Unable to add group {_text(group)}: {exc}") from exc
    if group_data is None:
        return group
    for section in SECTIONS:
        if section in group_data:
            if _is_text(group_data[section]):
                group_data[section] = {group_data[section]: None}
            if not isinstance(group_data[section], (MutableMapping, type(None))):
                raise InventoryError(f'Invalid "{section}" entry for "{group}" group, requires a dictionary, found '
                                     f'"{_type_name(group_data[section])}" instead.')
    for key in group_data:
        value = group_data[key]
        if not isinstance(value, (MutableMapping, type(None))):
            inventory.warn(f"Skipping key ({key}) in group ({group}) as it is not a mapping, it is a "
                           f"{_type_name(value)}")
            continue
        if value is None:
            continue
        if key == "vars":
            for var in value:
                inventory.set_variable(group, var, value[var])
            _note_origins(inventory, group, value)
        elif key == "children":
            for subgroup in value:
                subgroup = _parse_group(inventory, subgroup, value[subgroup])
                inventory.add_child(group, subgroup)
        elif key == "hosts":
            for host_pattern in value:
                try:
                    if isinstance(host_pattern, YamlTimestamp):
                        raise TypeError(host_pattern)
                    hosts, port = expand_hostpattern(host_pattern)
                except TypeError:
                    raise InventoryError(f"Host pattern {_text(host_pattern)} must be a string. Enclose "
                                         "integers/floats in quotation marks.") from None
                populate_host_vars(inventory, hosts, value[host_pattern] or {}, group, port)
        else:
            inventory.warn(f'Skipping unexpected key ({key}) in group ({group}), only "vars", "children" and "hosts" '
                           "are valid")
    return group

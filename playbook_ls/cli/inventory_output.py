"""What ``playbook-ls inventory`` prints, shaped as ansible-inventory shapes it: ``--list`` as
JSON or YAML (``--yaml``), optionally ``--export``-ed, and ``--graph``."""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING, Any

from engine.values import UnsafeText, VaultText, YamlSet, YamlTimestamp

if TYPE_CHECKING:
    from engine.inventory.data import Group, Host
    from engine.inventory.manager import Inventory


class OutputError(Exception):
    """What ansible-inventory stops with while writing its output (exit code 1, or
    ``exit_code``: 250 where ansible fails with an unexpected exception)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


TOML_LIBRARY_MISSING = 'The Python library "tomli-w" is required when using the TOML output format.'


def dump(data: Any, as_yaml: bool = False, as_toml: bool = False, listing: bool = False,
         group_values: frozenset[int] = frozenset()) -> str:
    """ansible-inventory's JSON (sorted keys, four-space indent, vaulted values as
    ``{"__ansible_vault": ciphertext}``, dates in ISO format; with ``listing``, for ``--list``,
    strings not trusted as templates as ``{"__ansible_unsafe": text}``) or, with ``as_yaml``, its YAML
    (PyYAML block style, sorted keys, unicode kept, ``!vault`` kept, and for ``--list`` anchors for
    the mappings and lists of ``group_values`` (ids, see :func:`group_values`) several hosts hold),
    or with ``as_toml`` its TOML."""
    if as_yaml:
        import yaml

        memo: dict[int, Any] = {}
        held = as_ansible_holds(data, memo)
        candidates = {id(memo[key]) if key in memo else key for key in group_values} if listing else set()
        shared = _shared_between_owners(held, candidates)
        try:
            return yaml.dump(held, Dumper=_plain_dumper(shared), default_flow_style=False, allow_unicode=True)
        except yaml.representer.RepresenterError as exc:  # a TOML local time: ansible's dumper fails the same way
            raise _unexpected(exc) from None
    if as_toml:
        try:
            import tomli_w
        except ImportError:  # ansible-inventory needs the same library and stops the same way
            raise OutputError(TOML_LIBRARY_MISSING) from None
        try:
            return tomli_w.dumps(as_ansible_holds(data))
        except (TypeError, ValueError) as exc:  # a null, a set, bytes: ansible's call raises the same
            raise _unexpected(exc) from None
    return json.dumps(_json_ready(data, listing), sort_keys=True, indent=4, default=_json_default,
                      ensure_ascii=False)


def _json_ready(value: Any, mark_unsafe: bool) -> Any:
    """``value`` with each vaulted string as the object ansible's legacy encoder writes for it:
    the ciphertext, never decrypted. ansible's ``inventory_legacy`` encoder marks untrusted strings
    only where a variable's value sits (``_meta.hostvars.HOST.NAME``, ``GROUP.vars.NAME``, and
    below): in ``--list`` only they can hold such a string, while ``--host`` prints the variables
    at the top, where it marks nothing."""
    if isinstance(value, VaultText):
        return {"__ansible_vault": str(value)}
    if isinstance(value, bytes):  # a YAML !!binary value, which ansible's JSON profile refuses
        raise _unexpected("Object of type '_AnsibleTaggedBytes' is not JSON serializable by the "
                          "'inventory_legacy' profile.")
    if mark_unsafe and isinstance(value, UnsafeText):
        return {"__ansible_unsafe": str(value)}
    if isinstance(value, YamlTimestamp):
        return value.moment.isoformat()
    if isinstance(value, dict):
        return {_json_key(key): _json_ready(item, mark_unsafe) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(item, mark_unsafe) for item in value]
    return value


def _unexpected(problem: object) -> OutputError:
    """ansible-inventory's answer to an exception its output raised (exit 250)."""
    return OutputError(f"Unexpected Exception, this is probably a bug: {problem}", exit_code=250)


def _json_key(key: Any) -> Any:
    """A key as ansible's legacy JSON profile writes it, before the keys are sorted: text as it is,
    ``None``, booleans and numbers as their JSON (``80`` is ``"80"``, so it sorts after ``"443"``;
    ``true``, ``null``)."""
    if isinstance(key, YamlTimestamp):  # a date or datetime ansible's loader made: no JSON key
        kind = "DateTime" if isinstance(key.moment, datetime.datetime) else "Date"
        raise _unexpected(f"Key of type '_AnsibleTagged{kind}' is not JSON serializable by the 'inventory_legacy' "
                          "profile.")
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (int, float)):
        return json.dumps(key)
    return key


def as_ansible_holds(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``value`` with each YAML timestamp as the ``date`` or ``datetime`` ansible's loader made of
    it, for output that prints Python values. Containers are copied only where one is found, once
    each (``memo``), so that what several hosts share stays shared."""
    if isinstance(value, YamlTimestamp):
        return value.moment
    if type(value) is tuple:  # an item of a YAML !!omap or !!pairs
        return tuple(as_ansible_holds(item, memo) for item in value)
    if not isinstance(value, dict | list):
        return value
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    memo[id(value)] = value  # a container holding itself is left as it is
    if isinstance(value, dict):  # a key may be a timestamp too (`2024-01-01: new year`)
        items = {key.moment if isinstance(key, YamlTimestamp) else key: as_ansible_holds(item, memo)
                 for key, item in value.items()}
        same = all(not isinstance(key, YamlTimestamp) and items[key] is item for key, item in value.items())
    else:
        items = [as_ansible_holds(item, memo) for item in value]
        same = all(new is old for new, old in zip(items, value, strict=True))
    if not same and isinstance(value, YamlSet):
        items = value.holding(items)
    memo[id(value)] = converted = value if same else items
    return converted


def group_values(inventory: Inventory) -> frozenset[int]:
    """The ids of the mappings and lists the groups' variables hold (their own and their files'):
    ansible gives each host of a group these very objects, while it copies a host's own values."""
    return frozenset(id(value) for group in inventory.data.groups.values()
                     for value in inventory.group_variables(group).values() if isinstance(value, dict | list))


def _shared_between_owners(tree: dict[str, Any], candidates: set[int]) -> set[int]:
    """The ``candidates`` of a ``--list`` tree that more than one host's (or group's) variables
    hold: ansible's YAML dumper writes them once, with an anchor."""
    owners: dict[int, int] = {}
    shared: set[int] = set()

    def walk(value: Any, owner: int) -> None:
        if not isinstance(value, dict | list):
            return
        first = owners.setdefault(id(value), owner)
        if first != owner:
            if id(value) in candidates:
                shared.add(id(value))
            return
        for item in value.values() if isinstance(value, dict) else value:
            if isinstance(item, dict | list) and owners.get(id(item)) != owner:
                walk(item, owner)

    def groups(entries: Any) -> None:
        for entry in entries.values() if isinstance(entries, dict) else ():
            if not isinstance(entry, dict):
                continue
            for variables in (entry.get("hosts") or {}).values() if isinstance(entry.get("hosts"), dict) else ():
                walk(variables, id(variables))
            if isinstance(entry.get("vars"), dict):
                walk(entry["vars"], id(entry["vars"]))
            groups(entry.get("children"))

    groups(tree)
    return shared


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime.date, datetime.time)):  # TOML dates: ansible writes them in ISO format
        return value.isoformat()
    return str(value)


def _plain_dumper(shared: set[int]) -> type:
    """A safe dumper that writes the engine's value types (subclasses of str, dict, list; anything
    else as its text) as the plain values ansible's dumper writes for them: ``!vault`` values as
    ansible's literal block. Anchors (``&id001``) only for a vaulted value repeated and for the
    containers in ``shared`` (ids)."""
    import yaml

    # ansible's dumper is libyaml's emitter when PyYAML has it, which writes some text otherwise than
    # PyYAML's own (a character beyond the Basic Multilingual Plane is escaped: "\U0001F680")
    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class PlainDumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return not isinstance(data, VaultText) and id(data) not in shared

    PlainDumper.add_representer(
        VaultText, lambda dumper, value: dumper.represent_scalar("!vault", str(value), style="|"))
    PlainDumper.add_multi_representer(str, lambda dumper, value: dumper.represent_str(str(value)))
    PlainDumper.add_multi_representer(dict, lambda dumper, value: dumper.represent_dict(dict(value)))
    PlainDumper.add_multi_representer(list, lambda dumper, value: dumper.represent_list(list(value)))
    PlainDumper.add_multi_representer(object, lambda dumper, value: dumper.represent_str(str(value)))
    # the (key, value) items of a YAML !!omap or !!pairs, written as ansible's dumper writes them
    PlainDumper.add_representer(tuple, lambda dumper, value: dumper.represent_list(list(value)))
    PlainDumper.add_representer(datetime.time, yaml.SafeDumper.represent_undefined)  # a TOML local time
    return PlainDumper


def _finished(results: dict[str, Any], name: str, entry: dict[str, Any], group_vars: dict[str, Any] | None,
              ) -> dict[str, Any]:
    """A group's entry completed as ansible-inventory completes it: its variables when exporting,
    no empty keys, and no entry at all when nothing is left."""
    if group_vars is not None:
        entry["vars"] = group_vars
    _without_empty(entry)
    if not entry:
        del results[name]
    return results


def _without_empty(entry: dict[str, Any]) -> None:
    for key in ("hosts", "vars", "children"):
        if key in entry and not entry[key]:
            del entry[key]


def list_inventory(inventory: Inventory, available: list[Host], export: bool = False) -> dict[str, Any]:
    """``--list``: every group reachable from ``all`` (hosts, children, with ``export`` its own
    vars; empty keys and groups left out), then ``_meta.hostvars`` for hosts that have variables."""
    names = frozenset(h.name for h in available)
    seen: set[str] = set()

    def format_group(group: Group) -> dict[str, Any]:
        entry: dict[str, Any] = {}
        results = {group.name: entry}
        if group.name != "all":
            entry["hosts"] = [h.name for h in group.hosts if h.name in names]
        entry["children"] = []
        for sub in group.child_groups:
            entry["children"].append(sub.name)
            if sub.name not in seen:
                results.update(format_group(sub))
                seen.add(sub.name)
        return _finished(results, group.name, entry, inventory.group_variables(group) if export else None)

    results = format_group(inventory.data.groups["all"])
    hostvars = {}
    for host in available:
        variables = inventory.host_variables(host, export)
        if variables:
            hostvars[host.name] = variables
    results["_meta"] = {"hostvars": hostvars, "profile": "inventory_legacy"}
    return results


def yaml_inventory(inventory: Inventory, available: list[Host], export: bool = False) -> dict[str, Any]:
    """``--list --yaml``: the group tree nested (a group seen before is an empty mapping), each
    host's variables under the first group that lists it, with ``export`` each group's vars."""
    names = frozenset(h.name for h in available)
    seen_hosts: set[str] = set()
    seen_groups: set[str] = set()

    def format_group(group: Group) -> dict[str, Any]:
        entry: dict[str, Any] = {"children": {}}
        results = {group.name: entry}
        for sub in group.child_groups:
            if sub.name == "all":
                continue
            if sub.name in seen_groups:
                entry["children"][sub.name] = {}
            else:
                entry["children"].update(format_group(sub))
                seen_groups.add(sub.name)
        entry["hosts"] = {}
        if group.name != "all":
            for host in group.hosts:
                if host.name not in names:
                    continue  # outside --limit
                variables: dict[str, Any] = {}
                if host.name not in seen_hosts:  # a host's variables are written once
                    seen_hosts.add(host.name)
                    variables = inventory.host_variables(host, export)
                entry["hosts"][host.name] = variables
        if export:
            group_vars = inventory.group_variables(group)
            if group_vars:
                entry["vars"] = group_vars
        _without_empty(entry)
        if not entry:
            del results[group.name]
        return results

    return format_group(inventory.data.groups["all"])


def toml_inventory(inventory: Inventory, available: list[Host], export: bool = False) -> dict[str, Any]:
    """``--list --toml``: every group at the top level (children by name, ``ungrouped`` only when
    it has hosts), each host's variables under the first group that lists it, as ansible's
    ``toml_inventory``."""
    names = frozenset(h.name for h in available)
    seen_hosts: set[str] = set()
    top = inventory.data.groups["all"]
    has_ungrouped = any(g.hosts for g in top.child_groups if g.name == "ungrouped")

    def format_group(group: Group) -> dict[str, Any]:
        entry: dict[str, Any] = {"children": []}
        results = {group.name: entry}
        for sub in group.child_groups:
            if sub.name == "ungrouped" and not has_ungrouped:
                continue
            if group.name != "all":
                entry["children"].append(sub.name)
            results.update(format_group(sub))
        if group.name != "all":
            for host in group.hosts:
                if host.name not in names:
                    continue
                variables: dict[str, Any] = {}
                if host.name not in seen_hosts:
                    seen_hosts.add(host.name)
                    variables = inventory.host_variables(host, export)
                entry.setdefault("hosts", {})[host.name] = variables
        return _finished(results, group.name, entry, inventory.group_variables(group) if export else None)

    return format_group(top)


def _graph_name(name: str, depth: int = 0) -> str:
    return "  |" * depth + "--" + name if depth else name


def _show_vars(variables: dict[str, Any], depth: int) -> list[str]:
    """``{name = value}`` lines; a vaulted value would be decrypted to be shown, which ansible
    cannot do without a vault secret and playbook-ls never does."""
    if any(isinstance(value, VaultText) for value in variables.values()):
        raise OutputError("Attempting to decrypt but no vault secrets found.")
    try:
        ordered = sorted(variables.items())
    except TypeError as exc:  # names of several types (80: in YAML): ansible's sort fails the same way
        raise _unexpected(exc) from None
    return [_graph_name(f"{{{name} = {as_ansible_holds(value)}}}", depth) for name, value in ordered]


def graph(inventory: Inventory, group: Group, show_vars: bool, export: bool = False, depth: int = 0) -> list[str]:
    """``--graph``: the group tree, children before hosts, ``--vars`` as ``{name = value}`` lines
    (a host's own and its files' only, with ``export``, as ansible-inventory shows them)."""
    lines = [_graph_name(f"@{group.name}:", depth)]
    for kid in group.child_groups:
        lines.extend(graph(inventory, kid, show_vars, export, depth + 1))
    if group.name != "all":
        for host in group.hosts:
            lines.append(_graph_name(host.name, depth + 1))
            if show_vars:
                lines.extend(_show_vars(inventory.host_variables(host, export), depth + 2))
    if show_vars:
        lines.extend(_show_vars(inventory.group_variables(group), depth + 1))
    return lines

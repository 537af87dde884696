"""Static inventory reading: enough to know hosts and groups for ``--limit``.

Host lists (``a,b,``), INI files and YAML files. Executable inventory scripts are never
run here; a script source contributes nothing and is reported.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from engine.source import SourceCache

_RANGE = re.compile(r"\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::([0-9]+))?\]")


def expand_hostname_range(name: str) -> list[str]:
    """``web[01:03]`` -> ``web01 web02 web03`` (numeric or alphabetic, with an optional stride)."""
    match = _RANGE.search(name)
    if not match:
        return [name]
    start, end, step = match.group(1), match.group(2), int(match.group(3) or 1)
    head, tail = name[: match.start()], name[match.end():]
    if start.isdigit() and end.isdigit():
        width = len(start) if start.startswith("0") else 0
        items = [str(i).zfill(width) for i in range(int(start), int(end) + 1, step)]
    else:
        items = [chr(c) for c in range(ord(start), ord(end) + 1, step)]
    return [host for item in items for host in expand_hostname_range(head + item + tail)]


@dataclass
class Inventory:
    hosts: list[str] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add_host(self, host: str, group: str | None = None) -> None:
        if host not in self.hosts:
            self.hosts.append(host)
        if group:
            members = self.groups.setdefault(group, [])
            if host not in members:
                members.append(host)

    def group_hosts(self, group: str, seen: frozenset[str] = frozenset()) -> list[str]:
        if group in ("all", "*"):
            return list(self.hosts)
        if group == "ungrouped":
            grouped = {h for g, members in self.groups.items() for h in members}
            return [h for h in self.hosts if h not in grouped]
        result = list(self.groups.get(group, []))
        for child in self.children.get(group, []):
            if child not in seen:
                result += [h for h in self.group_hosts(child, seen | {group}) if h not in result]
        return result

    def match(self, pattern: str) -> list[str]:
        """Hosts matching an ansible host pattern (names, groups, wildcards, ~regex, :, :&, :!)."""
        parts = [p for p in re.split(r"[:,](?![^\[]*\])", pattern) if p] if pattern else []
        selected: list[str] = []
        for part in parts:
            found = self._match_one(part.lstrip("!&"))
            if part.startswith("!"):
                selected = [h for h in selected if h not in found]
            elif part.startswith("&"):
                selected = [h for h in selected if h in found]
            else:
                selected += [h for h in found if h not in selected]
        return selected

    def _match_one(self, pattern: str) -> list[str]:
        if pattern in self.groups or pattern in self.children or pattern in ("all", "*", "ungrouped"):
            return self.group_hosts(pattern)
        if pattern in self.hosts:
            return [pattern]
        if pattern.startswith("~"):
            regex = re.compile(pattern[1:])
            names = [g for g in (*self.groups, *self.children) if regex.match(g)]
            return [h for h in self.hosts if regex.match(h)] + [h for g in names for h in self.group_hosts(g)]
        if any(c in pattern for c in "*?["):
            names = [g for g in (*self.groups, *self.children) if fnmatch.fnmatchcase(g, pattern)]
            hosts = [h for h in self.hosts if fnmatch.fnmatchcase(h, pattern)]
            return hosts + [h for g in names for h in self.group_hosts(g) if h not in hosts]
        if pattern == "localhost":
            return ["localhost"]
        return []


def load_inventory(sources: list[str], cache: SourceCache) -> Inventory:
    inventory = Inventory()
    for source in sources:
        if not os.path.exists(source):
            if "," in source:
                for host in source.split(","):
                    if host.strip():
                        for name in expand_hostname_range(host.strip()):
                            inventory.add_host(name)
            continue
        if os.path.isdir(source):
            for name in sorted(os.listdir(source)):
                path = os.path.join(source, name)
                if os.path.isfile(path) and not name.startswith(".") and not name.endswith(("~", ".retry")):
                    _load_file(path, inventory, cache)
        else:
            _load_file(path=source, inventory=inventory, cache=cache)
    return inventory


def _load_file(path: str, inventory: Inventory, cache: SourceCache) -> None:
    if os.access(path, os.X_OK) and not path.endswith((".yml", ".yaml", ".ini", ".json")):
        inventory.notes.append(f"{path}: inventory scripts are not executed by static analysis")
        return
    if path.endswith((".yml", ".yaml", ".json")):
        data = cache.load(path).data
        if isinstance(data, dict):
            for group, body in data.items():
                _yaml_group(str(group), body, inventory)
        return
    _ini(path, inventory, cache)


def _yaml_group(group: str, body: object, inventory: Inventory) -> None:
    if group != "all":
        inventory.groups.setdefault(group, [])
    if not isinstance(body, dict):
        return
    for host in (body.get("hosts") or {}):
        for name in expand_hostname_range(str(host)):
            inventory.add_host(name, None if group == "all" else group)
    for child, child_body in (body.get("children") or {}).items():
        if group != "all":
            inventory.children.setdefault(group, []).append(str(child))
        _yaml_group(str(child), child_body, inventory)


def _ini(path: str, inventory: Inventory, cache: SourceCache) -> None:
    try:
        text = cache.read_text(path)
    except (OSError, UnicodeDecodeError):
        return
    section, kind = "ungrouped", "hosts"
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section, _, kind = line[1:-1].partition(":")
            kind = kind or "hosts"
            if section not in ("all", "ungrouped"):
                inventory.groups.setdefault(section, [])
            continue
        if kind == "children":
            inventory.children.setdefault(section, []).append(line.split()[0])
            inventory.groups.setdefault(line.split()[0], [])
        elif kind == "hosts":
            host = line.split()[0].rsplit(":", 1)[0] if line.count(":") == 1 else line.split()[0]
            for name in expand_hostname_range(host):
                inventory.add_host(name, None if section in ("all", "ungrouped") else section)

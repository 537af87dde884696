"""Action groups as ansible-core 2.19 resolves a ``module_defaults`` key ``group/NAME``
(``Base._resolve_group``): a name that is no fully qualified collection reference is
``ansible.builtin.NAME``; the group is the collection's ``action_groups`` entry (under its full or
its short name) in its ``meta/runtime.yml`` (ansible-core's ``ansible_builtin_runtime.yml`` for
``ansible.builtin``), its members fully qualified in that collection, with the groups its
``metadata.extend_group`` names (those need not resolve). A group that does not resolve stops
ansible's load; the defaults of one that does reach the tasks of its members' actions.

The engine only needs to know whether a group's defaults may reach a module it runs: when
none of the members is (nor redirects to) one of ansible-core's modules the engine runs, the
defaults change nothing a run of the engine does."""

from __future__ import annotations

import os
from typing import Any

from engine.plugins.routing import top_level_section

BUILTIN = "ansible.builtin"
_CORE_COLLECTIONS = frozenset({"ansible.builtin", "ansible.legacy"})


def _is_fqcr(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 3 and all(part.isidentifier() for part in parts)


def _runtime_path(collection: str, collections: Any) -> str | None:
    if collection == BUILTIN:
        from engine.plugins.names import find_ansible_core

        core = find_ansible_core()
        return core.runtime if core is not None else None
    directory = collections.collection_dir(collection) if collections is not None else None
    return os.path.join(directory, "meta", "runtime.yml") if directory else None


def _member_is_engine_module(member: str, collections: Any) -> bool:
    from engine.plugins.routing import routing_entry
    from engine.run.modules import MODULE_NAMES

    collection, _, name = member.rpartition(".")
    if collection in _CORE_COLLECTIONS:
        return name in MODULE_NAMES
    path = _runtime_path(collection, collections)
    entry = routing_entry(path, "modules", name) if path and os.path.isfile(path) else None
    redirect = entry.get("redirect") if isinstance(entry, dict) else None
    return isinstance(redirect, str) and redirect.rpartition(".")[0] in _CORE_COLLECTIONS \
        and redirect.rpartition(".")[2] in MODULE_NAMES


def group_reaches_engine_modules(group: str, collections: Any, mandatory: bool = True,
                                 seen: set[str] | None = None) -> bool | None:
    """Whether the action group ``group`` holds a module the engine runs: None when it does not
    resolve (``mandatory``: ansible stops on it; an extended group that does not resolve adds
    nothing)."""
    seen = set() if seen is None else seen
    full = group if _is_fqcr(group) else f"{BUILTIN}.{group}"
    collection = ".".join(full.split(".")[:2])
    if full in seen:
        return False
    seen.add(full)
    path = _runtime_path(collection, collections)
    groups = top_level_section(path, "action_groups") if path else None
    members = None if groups is None else groups.get(full, groups.get(full[len(collection) + 1:]))
    if not isinstance(members, list):
        return None if mandatory else False
    extended: list[Any] = []
    for member in members:
        if isinstance(member, dict):
            metadata = member.get("metadata")
            if isinstance(metadata, dict):
                wanted = metadata.get("extend_group", [])
                extended = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
            elif metadata is not None or len(member) != 1:
                return None  # ansible's metadata validation: not followed here
            continue
        if not isinstance(member, str):
            return None
        if _member_is_engine_module(member if _is_fqcr(member) else f"{collection}.{member}", collections):
            return True
    for other in extended:
        if not isinstance(other, str):
            continue
        if group_reaches_engine_modules(other if _is_fqcr(other) else f"{collection}.{other}", collections,
                                        False, seen):
            return True
    return False

"""Which inventory plugin a name means, as ansible's ``inventory_loader.get`` finds it: for the
``plugin:`` key of a configuration read by the ``auto`` plugin.

ansible-core's own plugins are named ``yaml``, ``ansible.builtin.yaml`` or ``ansible.legacy.yaml``.
Any other ``namespace.collection.plugin`` is a collection's plugin: this module only looks
whether it is installed (reading directories, importing nothing), because playbook-ls never runs
a collection's plugin code, which typically queries a cloud provider over the network. An
installed one is reported by name with what to do instead; a missing one gets ansible's own
warning and error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from engine.config import InventorySettings

BUILTIN_PREFIXES = ("ansible.builtin.", "ansible.legacy.")
PluginKind = Literal["builtin", "installed", "unknown"]


@dataclass(frozen=True)
class NamedPlugin:
    """What a ``plugin:`` name resolves to: ``name`` is the short name of a builtin plugin, else
    the name as written; ``load_warning`` is the warning ansible prints while looking it up."""

    kind: PluginKind
    name: str
    load_warning: str = ""


def builtin_short_name(name: str) -> str:
    """``yaml`` for ``yaml``, ``ansible.builtin.yaml`` and ``ansible.legacy.yaml``."""
    for prefix in BUILTIN_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def find_plugin(name: str, builtin: frozenset[str], settings: InventorySettings) -> NamedPlugin:
    """Resolve an ``auto`` configuration's plugin ``name`` among ``builtin`` plugins and the
    installed collections of ``settings``' collection path."""
    short = builtin_short_name(name)
    if short != name or "." not in name:
        return NamedPlugin("builtin" if short in builtin else "unknown", short if short in builtin else name)
    parts = name.split(".")
    if len(parts) != 3 or not all(parts):
        return NamedPlugin("unknown", name)
    namespace, collection, plugin = parts
    from engine.collection_search import collection_roots

    roots = collection_roots([], settings.collections_path, settings.collections_scan_sys_path)
    trees = [os.path.join(root, "ansible_collections") for root in roots]
    # the first root holding the collection wins, as the collection loader's namespace package does
    found = next((os.path.join(tree, namespace, collection) for tree in trees
                  if os.path.isdir(os.path.join(tree, namespace, collection))), None)
    if found is None:
        # ansible imports ansible_collections.NAMESPACE.COLLECTION and names the first missing level
        missing = namespace if not any(os.path.isdir(os.path.join(tree, namespace)) for tree in trees) \
            else f"{namespace}.{collection}"
        return NamedPlugin("unknown", name,
                           f"Error loading plugin '{name}': No module named 'ansible_collections.{missing}'")
    if os.path.isfile(os.path.join(found, "plugins", "inventory", f"{plugin}.py")):
        return NamedPlugin("installed", name)
    return NamedPlugin("unknown", name)


def not_run_message(name: str, source: str) -> str:
    """Why an installed collection plugin's source adds nothing, and what to do about it."""
    return (f"inventory plugin '{name}' (from source '{source}') is not run by playbook-ls: a collection's "
            "inventory plugin can query remote services and playbook-ls never runs network code; read this "
            "source with ansible-inventory instead")

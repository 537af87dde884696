"""Which inventory plugin a name means, as ansible's ``inventory_loader.get`` finds it: for the
``plugin:`` key of a configuration read by the ``auto`` plugin, and for the names ansible.cfg's
``enable_plugins`` lists.

ansible-core's own plugins are named ``yaml``, ``ansible.builtin.yaml`` or ``ansible.legacy.yaml``.
Another short name is a plugin a user wrote, found as ``NAME.py`` in ``inventory_plugins/`` of the
playbook directory or in a configured ``inventory_plugins`` path; ``namespace.collection.plugin``
is a collection's plugin. This module only looks where the file is (reading directories,
importing nothing): such a plugin is code, run only by ansible-core itself, and only where the
caller allows it (:mod:`engine.inventory.external`). A missing one gets ansible's own warning and
error.
"""

from __future__ import annotations

import os

from engine.config import InventorySettings
from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    PluginKind = Literal["builtin", "installed", "unknown"]
    """``installed``: a plugin ansible would load from a file playbook-ls does not implement."""

BUILTIN_PREFIXES = ("ansible.builtin.", "ansible.legacy.")
SUPPORTED_PLUGINS = ("host_list", "advanced_host_list", "script", "auto", "yaml", "ini", "toml", "constructed",
                     "generator")
BUILTIN_PLUGINS = frozenset(SUPPORTED_PLUGINS)
"""ansible-core's own inventory plugins; a name outside these (and not ``ansible.builtin.*``) fails
to load here, as a plugin from a collection that is not installed does in ansible."""


class NamedPlugin(NamedTuple):
    """What a ``plugin:`` name resolves to: ``name`` is the short name of a builtin plugin, else
    the name as written; ``load_warning`` is the warning ansible prints while looking it up."""

    kind: PluginKind
    name: str
    load_warning: str = ""
    path: str = ""
    """The plugin's file, when installed."""


def builtin_short_name(name: str) -> str:
    """``yaml`` for ``yaml``, ``ansible.builtin.yaml`` and ``ansible.legacy.yaml``."""
    for prefix in BUILTIN_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def plugin_directories(settings: InventorySettings, playbook_dir: str | None) -> list[str]:
    """Where ansible looks for an inventory plugin by short name: the playbook directory's
    ``inventory_plugins/`` (ansible adds it for its base directory), then the configured paths."""
    found = [os.path.join(playbook_dir, "inventory_plugins")] if playbook_dir else []
    return found + list(settings.inventory_plugin_path)


def find_plugin(name: str, builtin: frozenset[str], settings: InventorySettings,
                playbook_dir: str | None = None) -> NamedPlugin:
    """Resolve a plugin ``name`` among ``builtin`` plugins, the plugin directories and the
    installed collections of ``settings``' collection path."""
    short = builtin_short_name(name)
    if short in builtin:
        return NamedPlugin("builtin", short)
    if name.startswith("ansible.builtin."):
        return NamedPlugin("unknown", name)
    if short != name or "." not in name:  # a short name or ansible.legacy.NAME: the plugin paths too
        found = next((path for directory in plugin_directories(settings, playbook_dir)
                      if os.path.isfile(path := os.path.join(directory, f"{short}.py"))), None)
        return NamedPlugin("installed", name, path=found) if found else NamedPlugin("unknown", name)
    parts = name.split(".")
    if len(parts) != 3 or not all(parts):
        return NamedPlugin("unknown", name)
    namespace, collection, plugin = parts
    from engine.plugins.collection_search import collection_roots

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
    path = os.path.join(found, "plugins", "inventory", f"{plugin}.py")
    if os.path.isfile(path):
        return NamedPlugin("installed", name, path=path)
    return NamedPlugin("unknown", name)


def not_run_note(name: str, source: str) -> str:
    """Why a source read by a plugin's code adds nothing here, and how to allow it: said once
    per source, where hosts would otherwise be reported unknown."""
    return (f"dynamic inventory: {source} not run (inventory plugin '{name}' is code from the repository or "
            "a collection, and running it is not allowed here: the inventory is partial; `playbook-ls inventory` "
            "and `run` read it, `launch`, `plan`, `vars` and `run --dry` with --run-inventory-code, and the editor "
            "in a trusted workspace)")


def enabled_plugins(settings: InventorySettings, playbook_dir: str | None = None,
                    ) -> tuple[list[tuple[str, str]], list[str], dict[str, NamedPlugin]]:
    """The enabled plugins, in order, as (implementation, the name ansible reports failures with:
    the short name, or the module path for ``ansible.builtin.*``), the warnings for names that are
    not plugins, and the plugins ansible-core runs for us (a user's or a collection's) by name."""
    plugins: list[tuple[str, str]] = []
    warnings: list[str] = []
    external: dict[str, NamedPlugin] = {}
    for name in settings.enabled_plugins:
        short = name.removeprefix("ansible.builtin.")
        if short in BUILTIN_PLUGINS:
            shown = short if short == name else f"ansible_collections.ansible.builtin.plugins.inventory.{short}"
            plugins.append((short, shown))
            continue
        if (plugin := find_plugin(name, BUILTIN_PLUGINS, settings, playbook_dir)).kind == "installed":
            external[name] = plugin
            plugins.append((name, name))
        else:
            warnings.append(f"Failed to load inventory plugin, skipping {name}")
    return plugins, warnings, external

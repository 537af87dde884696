"""A lookup of a collection installed nowhere ansible-playbook looks: ``community.general.dig``,
or a short name ansible-core's ``runtime.yml`` redirects to a collection (``filetree`` to
``community.general.filetree``). ansible-core 2.19's plugin loader then fails to import the
plugin's module and warns once per run ("Error loading plugin 'community.general.filetree': No
module named 'ansible_collections.community'"), and the lookup fails as an unknown one does ("The
lookup plugin 'filetree' was not found."). That is deterministic given which collections are
installed, so the engine does it too instead of declining the run."""

from __future__ import annotations

import os
from functools import cache
from typing import Any

SYNTHETIC = ("ansible.builtin", "ansible.legacy")


def target(name: str) -> str | None:
    """The fully qualified name ansible loads for the lookup ``name``: itself when qualified (not
    ansible.builtin's or ansible.legacy's), the collection's a short name is redirected to, else None."""
    if name.count(".") >= 2:
        return None if name.startswith(tuple(f"{prefix}." for prefix in SYNTHETIC)) else name
    if "." in name:
        return None
    entry = _redirect(name)
    return entry if isinstance(entry, str) and entry.count(".") >= 2 and not entry.startswith(SYNTHETIC) else None


@cache
def _redirect(name: str) -> Any:
    from engine.plugins.names import find_ansible_core
    from engine.plugins.routing import routing_entry

    core = find_ansible_core()
    entry = routing_entry(core.runtime, "lookup", name) if core is not None else None
    return entry.get("redirect") if isinstance(entry, dict) else None


def load_failure(name: str, collections: Any) -> str | None:
    """ansible's warning for the lookup ``name`` when its collection is installed nowhere
    ``collections`` (a CollectionFinder: the run's) looks; None when it is ansible-core's own, the
    collection is installed (ansible runs its plugin) or the installed ones are unknown."""
    fqcn = target(name)
    if fqcn is None or collections is None:
        return None
    namespace, collection = fqcn.split(".")[:2]
    if collections.collection_dir(f"{namespace}.{collection}") is not None:
        return None
    # the collection loader's packages: ansible_collections.NS exists where a root has NS/ (the
    # ansible namespace always does), and the import fails at the first that does not
    known = namespace == "ansible" or any(os.path.isdir(os.path.join(root, "ansible_collections", namespace))
                                          for root in collections.roots)
    module = f"ansible_collections.{namespace}.{collection}" if known else f"ansible_collections.{namespace}"
    return f"Error loading plugin {fqcn!r}: No module named {module!r}"


def engine_lookup(name: str, collections: Any) -> Any:
    """The engine's own function for the lookup ``name`` of a collection (``community.general.filetree``,
    or ``filetree`` which ansible-core redirects to it) where that collection is installed where
    ansible-playbook looks, as ansible then runs the collection's plugin; None otherwise."""
    if target(name) != "community.general.filetree" or not installed("community.general", collections):
        return None
    from engine.run.filetree_lookup import lookup_filetree

    return lookup_filetree


def installed(collection: str, collections: Any) -> bool:
    """Whether ``collection`` is installed where the run's CollectionFinder looks (False when unknown)."""
    return collections is not None and collections.collection_dir(collection) is not None

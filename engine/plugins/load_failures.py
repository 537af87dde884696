"""The plugin a name makes ansible-playbook import from a collection installed nowhere it looks.

ansible-core 2.19's plugin loader follows a short name through ansible-core's ``runtime.yml``
(``ini_file`` to ``community.general.ini_file``, ``filetree`` to ``community.general.filetree``), or
takes a fully qualified name as it is, and imports the collection's package; where that collection
is not installed the import fails and the loader warns with the failure ("Error loading plugin
'community.general.ini_file': No module named 'ansible_collections.community'",
``PluginLoader.find_plugin_with_context``), then treats the plugin as missing. That is
deterministic given which collections are installed: lookups (``engine.run.collection_lookups``)
and the modules a playbook names (its load error) show it as ansible does.
"""

from __future__ import annotations

import os
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SYNTHETIC = ("ansible.builtin", "ansible.legacy")


def target(name: str, kind: str) -> str | None:
    """The fully qualified name ansible loads for the plugin ``name`` of ``kind`` (``lookup``,
    ``modules``): itself when qualified (not ansible.builtin's or ansible.legacy's), the
    collection's a short name is redirected to, else None."""
    if name.count(".") >= 2:
        return None if name.startswith(tuple(f"{prefix}." for prefix in SYNTHETIC)) else name
    if "." in name:
        return None
    entry = _redirect(name, kind)
    return entry if isinstance(entry, str) and entry.count(".") >= 2 and not entry.startswith(SYNTHETIC) else None


@cache
def _redirect(name: str, kind: str) -> Any:
    from engine.plugins.names import find_ansible_core
    from engine.plugins.routing import routing_entry

    core = find_ansible_core()
    entry = routing_entry(core.runtime, kind, name) if core is not None else None
    return entry.get("redirect") if isinstance(entry, dict) else None


def load_failure(name: str, collections: Any, kind: str) -> str | None:
    """ansible's warning for the plugin ``name`` of ``kind`` when its collection is installed
    nowhere ``collections`` (a CollectionFinder: the run's) looks; None when it is ansible-core's
    own, the collection is installed or the installed ones are unknown."""
    fqcn = target(name, kind)
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

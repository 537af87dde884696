"""What counts as this machine: the host names and connection plugins the bundled engine runs
on. One place for the engine's plan, its executor, delegation and the editor's engine choice;
kept free of heavy imports, since the language server imports it at start."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
LOCAL_CONNECTIONS = frozenset({"local", "ansible.builtin.local", "ansible.legacy.local"})


def is_local(name: str, host_vars: Mapping[str, Any], connection: Any = None) -> bool:
    """Whether running "on" host ``name`` means running here: ``connection`` (a keyword) when
    given, else a local name, else the host's ``ansible_connection``."""
    if connection is not None:
        return str(connection) in LOCAL_CONNECTIONS
    if name in LOCAL_NAMES:
        return True
    return str(host_vars.get("ansible_connection")) in LOCAL_CONNECTIONS

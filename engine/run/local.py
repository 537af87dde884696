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


def connection_vars(address: str, variables: Mapping[str, Any]) -> dict[str, Any]:
    """What ansible's TaskExecutor adds to a task's variables from its play context
    (``PlayContext.update_vars``) for the local connection, each only when no variable of that
    name is set: a task's arguments and conditions see them, its loop terms and ``hostvars`` not."""
    address = variables.get("ansible_host", address)  # the play context's remote_addr
    added = {"ansible_connection": "local", "ansible_module_compression": "ZIP_DEFLATED",
             "ansible_shell_executable": "/bin/sh", "ansible_ssh_host": address, "ansible_host": address,
             "ansible_pipelining": False, "ansible_timeout": 10}
    return {name: value for name, value in added.items() if name not in variables}

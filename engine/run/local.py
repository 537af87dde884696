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


def connection_vars(address: str, variables: Mapping[str, Any], delegated: bool = False,
                    user: Any = None) -> dict[str, Any]:
    """What ansible's TaskExecutor adds to a task's variables from its play context
    (``PlayContext.update_vars``) for the local connection, each only when no variable of that
    name is set: a task's arguments and conditions see them, its loop terms and ``hostvars`` not.
    ``address`` is the play context's remote address: for a ``delegated`` task the delegated
    host's (:func:`delegated_address`), else the host's own ``ansible_host`` or ``address``;
    ``user`` its remote user (:func:`remote_user`), added only when there is one."""
    if not delegated:
        address = variables.get("ansible_host", address)
    added = {"ansible_connection": "local", "ansible_module_compression": "ZIP_DEFLATED",
             "ansible_shell_executable": "/bin/sh", "ansible_ssh_host": address, "ansible_host": address,
             "ansible_pipelining": False, "ansible_timeout": 10}
    if user is not None:
        from engine.variables.play_context import USER_NAMES

        added.update(dict.fromkeys(USER_NAMES, user))
    return {name: value for name, value in added.items() if name not in variables}


def remote_user(variables: Mapping[str, Any], written: Any, default: str | None) -> Any:
    """The play context's remote user (``set_task_and_variable_override``): a user variable of the
    host's (of the delegated host's, for a delegated task), else the task's ``remote_user`` keyword
    (``written``, templated, inherited from its block and play:
    engine.run.keyword_types.written_user), else ``-u`` or ansible.cfg's ``remote_user``
    (``default``); None where there is none. engine.variables.play_context's ``_user_values`` is
    the same rule on the names a host defines, before the run."""
    from engine.variables.play_context import USER_NAMES

    for name in USER_NAMES:
        if name in variables:
            return variables[name]
    return written if written is not None else default


def delegated_address(name: str, delegated_vars: Mapping[str, Any], templar: Any) -> Any:
    """The remote address of a task delegated to ``name`` (``set_task_and_variable_override``):
    the delegated host's ``ansible_host`` (or ``ansible_ssh_host``), else its name."""
    for variable in ("ansible_ssh_host", "ansible_host"):
        if variable in delegated_vars:
            return templar.template(delegated_vars[variable])
    return name


SSH_CONNECTIONS = frozenset({"ssh", "smart", "ansible.builtin.ssh", "ansible.legacy.ssh"})
_VIA_SSH = "Failed to connect to the host via ssh: ssh: "


def ssh_failure(address: str, port: Any) -> str | None:
    """ssh's own words for a host it cannot even connect to, as ansible's ssh connection reports
    them ("Failed to connect to the host via ssh: ssh: connect to host H port P: Connection
    refused", or a name that does not resolve): the connection refused at once or the name
    unknown, tried here the same way; None when the connection might be made (or times out)."""
    import socket

    try:
        number = int(port)
        infos = socket.getaddrinfo(address, number, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"{_VIA_SSH}Could not resolve hostname {address.lower()}: {exc.strerror}"
    except (TypeError, ValueError, OSError):
        return None
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.settimeout(2)
        try:
            probe.connect(where)
        except ConnectionRefusedError:
            return f"{_VIA_SSH}connect to host {where[0]} port {number}: Connection refused"
        except OSError:
            return None
    return None


def ssh_refusal(name: str, connection: Any, templar: Any) -> str | None:
    """ssh's words (:func:`ssh_failure`) for host ``name`` of the ssh connection (the task's
    ``connection`` keyword, else its ``ansible_connection``) at its ``ansible_host`` and
    ``ansible_port``, as ``templar`` (the task's) renders them; None for another connection."""
    from engine.templating.errors import TemplateFailure

    variables = templar.variables
    try:
        connection = templar.template(connection or variables.get("ansible_connection") or "ssh")
        address = templar.template(variables.get("ansible_host", variables.get("ansible_ssh_host", name)))
        port = templar.template(variables.get("ansible_port", variables.get("ansible_ssh_port", 22)))
    except TemplateFailure:
        return None
    return ssh_failure(str(address), port) if connection in SSH_CONNECTIONS else None


def unreachable_result(refusal: str | None, name: str) -> dict[str, Any]:
    """The result of a task whose connection to host ``name`` fails (``AnsibleConnectionFailure``
    raised out of the action and made a result by ``TaskExecutor._execute``: unreachable, not
    failed, with the error's ``exception``): ssh's ``refusal`` when it is known, else the reason
    the engine does not connect."""
    from engine.run.task_runner import NO_TRACEBACK

    return {"unreachable": True, "changed": False,
            "msg": f"Task failed: {refusal}" if refusal else
            f"playbook-ls's engine only runs on the local machine; '{name}' is not local. "
            "Run with --engine ansible to reach it.", "exception": NO_TRACEBACK}

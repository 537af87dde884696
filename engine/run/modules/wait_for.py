"""wait_for: wait for a TCP port to accept (or refuse) connections, a file to appear (holding a
regular expression's match) or go, or just for some seconds; as ansible's module, which does not
support check mode. ``state: drained`` (which reads the kernel's connection table) is refused."""

from __future__ import annotations

import math
import os
import re
import selectors
import socket
import time
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, check_mode_unsupported, validate
from engine.run.modules._files import path_facts

SPEC = {
    "host": Arg(default="127.0.0.1"),
    "timeout": Arg(type="int", default=300),
    "connect_timeout": Arg(type="int", default=5),
    "delay": Arg(type="int", default=0),
    "port": Arg(type="int"),
    "active_connection_states": Arg(type="list", default=["ESTABLISHED", "FIN_WAIT1", "FIN_WAIT2", "SYN_RECV",
                                                          "SYN_SENT", "TIME_WAIT"]),
    "path": Arg(type="path"),
    "search_regex": Arg(),
    "state": Arg(default="started", choices=("absent", "drained", "present", "started", "stopped")),
    "exclude_hosts": Arg(type="list"),
    "sleep": Arg(type="int", default=1),
    "msg": Arg(),
}
_STATES = ("ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT",
           "LAST_ACK", "LISTEN", "CLOSING")
NAMED = True


def _fail(msg: str, start: float) -> dict[str, Any]:
    return {"changed": False, "failed": True, "msg": msg, "elapsed": int(time.monotonic() - start)}


def _port_open(host: str, port: int, timeout: float) -> socket.socket | None:
    try:
        return socket.create_connection((host, port), timeout)
    except Exception:  # noqa: BLE001 - refused, unreachable or not resolvable: not open
        return None


def _close(connection: socket.socket) -> None:
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    connection.close()


def _port_answers(connection: socket.socket, regexp: re.Pattern[bytes], end: float) -> bool:
    # a selector, not select.select: the engine runs in a long-lived process (the language server,
    # a test session) whose descriptors may number over select's 1,024
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(connection, selectors.EVENT_READ)
        while time.monotonic() < end:
            if not selector.select(max(math.ceil(end - time.monotonic()), 0)):
                continue
            response = connection.recv(1024)
            if not response:
                return False
            data += response
            if regexp.search(data):
                return True
    return False


def _file_match(path: str, regexp: re.Pattern[bytes] | None) -> re.Match[bytes] | bool | None:
    """True (or the match) when the file is there (holding a match); None when it is not yet."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    if regexp is None:
        return True
    try:
        with open(path, "rb") as handle:
            return regexp.search(handle.read())
    except OSError:
        return None


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "wait_for") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    if ctx.check_mode:
        return check_mode_unsupported(action)
    host, port, path, state = params["host"], params["port"], params["path"], params["state"]
    timeout, search, msg = params["timeout"], params["search_regex"], params["msg"]
    try:
        regexp = re.compile(search.encode("utf-8", "surrogateescape"), re.MULTILINE) if search is not None else None
    except re.error as exc:
        return {"changed": False, "failed": True, "msg": f"Invalid regular expression: {exc}"}
    for problem, message in (
        (port and path, "port and path parameter can not both be passed to wait_for"),
        (path and state == "stopped", "state=stopped should only be used for checking a port in the wait_for module"),
        (path and state == "drained", "state=drained should only be used for checking a port in the wait_for module"),
        (params["exclude_hosts"] is not None and state != "drained", "exclude_hosts should only be with state=drained"),
    ):
        if problem:
            return {"changed": False, "failed": True, "msg": message, "elapsed": 0}
    for name in params["active_connection_states"]:
        if name not in _STATES:
            return {"changed": False, "failed": True, "msg": f"unknown active_connection_state ({name}) defined",
                    "elapsed": 0}
    if state == "drained":
        return {"changed": False, "failed": True,
                "msg": "wait_for state=drained reads the system's connection table, which playbook-ls's engine "
                       "does not do; run with --engine ansible to use ansible-playbook"}
    start = time.monotonic()
    if params["delay"]:
        time.sleep(params["delay"])
    end = start + timeout
    groups: tuple[Any, ...] = ()
    groupdict: dict[str, Any] = {}
    if not port and not path:
        time.sleep(timeout)
    elif state in ("absent", "stopped"):
        while time.monotonic() < end:
            if path and not os.access(path, os.F_OK):
                break
            if port:
                connection = _port_open(host, port, params["connect_timeout"])
                if connection is None:
                    break
                _close(connection)
            time.sleep(params["sleep"])
        else:
            if port:
                return _fail(msg or f"Timeout when waiting for {host}:{port} to stop.", start)
            return _fail(msg or f"Timeout when waiting for {path} to be absent.", start)
    else:
        while time.monotonic() < end:
            if path:
                try:
                    found = _file_match(path, regexp)
                except OSError as exc:
                    return _fail(msg or f"Failed to stat {path}, {exc.strerror}", start)
                if isinstance(found, re.Match):
                    groupdict, groups = found.groupdict() or {}, found.groups() or ()
                    groupdict = {k: v.decode("utf-8", "replace") if isinstance(v, bytes) else v
                                 for k, v in groupdict.items()}
                    groups = tuple(g.decode("utf-8", "replace") if isinstance(g, bytes) else g for g in groups)
                    break
                if found is True:
                    break
            else:
                connection = _port_open(host, port, min(params["connect_timeout"],
                                                        math.ceil(end - time.monotonic())))
                if connection is not None:
                    matched = regexp is None or _port_answers(connection, regexp, end)
                    _close(connection)
                    if matched:
                        break
            time.sleep(params["sleep"])
        else:
            where = f"{host}:{port}" if port else path
            if search:
                return _fail(msg or f"Timeout when waiting for search string {search} in {where}", start)
            return _fail(msg or f"Timeout when waiting for {where if port else f'file {path}'}", start)
    # AnsibleModule adds the facts of an existing ``path`` (its state among them) to what it returns
    return path_facts({"changed": False, "state": state, "port": port, "search_regex": search,
                       "match_groups": list(groups), "match_groupdict": groupdict, "path": path,
                       "elapsed": int(time.monotonic() - start)})

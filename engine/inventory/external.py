"""Inventory plugins playbook-ls does not implement, read by ansible-core itself.

A plugin a user wrote (``inventory_plugins/NAME.py`` in the playbook directory or a configured
``inventory_plugins`` path) or a collection's (``amazon.aws.aws_ec2``) is code: playbook-ls never
re-implements it. Where running the repository's code is allowed (the caller's ``dynamic``),
the source is read by the installed ansible-core's own ``InventoryManager`` in a child process
(:mod:`engine.inventory.ansible_child`), with a timeout and a bound on its output, and what it
made (groups, hosts, variables, in ansible's order) is added to the inventory.

An answer is never kept on disk by playbook-ls: files alone do not decide what a plugin answers (a
cloud plugin asks the cloud, a user's plugin may read anything), so an answer keyed by files could
outlive the fleet it describes. Across processes, answers are reused only where ansible reuses them:
the child asks with ``cache=True`` (``--flush-cache``: ``False``), so a source that turns its
plugin's own cache on (``cache: true``, with its ``cache_plugin``) is answered from ansible's cache,
within its ``cache_timeout``, exactly as ``ansible-inventory`` would be. In one process an answer,
or a failure, is kept in memory for :data:`REUSE_SECONDS`, keyed by the contents of the source, the
plugin's file, ansible.cfg and the ``ANSIBLE_*`` environment: a command reads a source once, as
ansible does, and the editor, reading the inventory again on each change, does not run the plugin
(seconds of CPU, a cloud's API) on every keystroke, while a changed fleet is seen within a minute.
"""

from __future__ import annotations

import hashlib
import json
import os
import selectors
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from engine.inventory.data import Group, Host, InventoryData, InventoryError
from engine.inventory.trust import decode_legacy_json

TIMEOUT_SECONDS = 60.0
MAX_OUTPUT_BYTES = 256 * 1024 * 1024
"""An answer larger than this is refused: a runaway plugin must not exhaust the editor's memory."""
REUSE_SECONDS = 60.0
"""How long one process keeps an answer (or a failure) in memory: the editor does not re-run a
plugin on each change, and what changed in the fleet (or a failure of the network) is seen soon after."""
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ansible_child.py")
HOST_SOURCE_VARS = frozenset(("inventory_file", "inventory_dir"))
"""Set by the inventory for the source being read: this process sets its own."""

_memory: dict[str, tuple[float, dict[str, Any]]] = {}


class PluginRunError(InventoryError):
    """The plugin could not be run or its answer could not be read."""


@dataclass(frozen=True)
class Request:
    """One source for ansible to read with ``plugin`` enabled (``auto`` or the plugin's name)."""

    source: str
    plugin: str
    plugin_file: str
    basedir: str | None = None
    config_file: str | None = None
    trust: bool | None = None
    """Whether plain strings plugins set are trusted, when the sources before decided it
    (:attr:`engine.inventory.data.InventoryData.trust_by_default`)."""


def ansible_python() -> list[str] | None:
    """The interpreter of the installed ``ansible-inventory`` (beside this Python, else on PATH),
    read from its first line; None without ansible-core."""
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-inventory")
    script = beside if os.path.isfile(beside) else shutil.which("ansible-inventory")
    if script is None:
        return None
    try:
        with open(script, "rb") as handle:
            first = handle.readline().decode(errors="replace").strip()
    except OSError:
        return None
    return first[2:].split() if first.startswith("#!") else [sys.executable]


def _digest_file(digest: Any, path: str | None) -> None:
    from engine.files import read_bytes

    digest.update(f"\0{path}\0".encode("utf-8", "surrogateescape"))
    if path and os.path.isfile(path):
        try:
            digest.update(hashlib.sha256(read_bytes(path)).digest())
        except OSError:  # a FIFO, a device, over the size limit: never waited for nor read whole
            digest.update(b"unreadable")


def cache_key(request: Request) -> str:
    digest = hashlib.sha256(json.dumps([request.source, request.plugin, request.basedir, request.trust,
                                        os.getcwd(),
                                        sorted((k, v) for k, v in os.environ.items() if k.startswith("ANSIBLE_"))],
                                       ).encode())
    for path in (request.source, request.plugin_file, request.config_file):
        _digest_file(digest, path)
    return digest.hexdigest()


def read_source(request: Request, flush: bool = False) -> dict[str, Any]:
    """ansible's reading of ``request``'s source, by a child process, or as this process read it
    less than :data:`REUSE_SECONDS` ago. ``flush`` asks again, and has ansible's own cache
    refreshed, as ``--flush-cache`` does."""
    key, now = cache_key(request), time.time()
    found = None if flush else _memory.get(key)
    if found is not None and now < found[0]:
        return found[1]
    text = _run_child(request, flush)
    try:
        document = decode_legacy_json(text)
    except ValueError as exc:
        raise PluginRunError(f"the answer of ansible-core for '{request.source}' is not JSON: {exc}") from None
    for stale in [old for old, (until, _) in _memory.items() if until <= now]:
        del _memory[stale]
    _memory[key] = now + REUSE_SECONDS, document
    return document


def _run_child(request: Request, flush: bool = False) -> str:
    python = ansible_python()
    if python is None:
        raise PluginRunError(f"inventory plugin for source '{request.source}' needs ansible-core, which is not "
                             "installed (ansible-inventory was not found beside playbook-ls nor on PATH)")
    payload = json.dumps({"source": request.source, "plugin": request.plugin, "basedir": request.basedir,
                          "trust": request.trust, "cache": not flush})
    try:
        child = subprocess.Popen([*python, CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise PluginRunError(f"cannot start ansible-core's Python {python[0]}: {exc.strerror or exc}") from None
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    child.stdin.write(payload.encode())
    child.stdin.close()
    out, err = _bounded_output(child, request.source)
    if child.returncode != 0:
        last = err.decode(errors="replace").strip().splitlines()[-1:]
        raise PluginRunError(f"ansible-core stopped reading '{request.source}' (exit code {child.returncode})"
                             + (f": {last[0]}" if last else ""))
    return out.decode(errors="surrogateescape")


def _bounded_output(child: subprocess.Popen[bytes], source: str) -> tuple[bytes, bytes]:
    """The child's standard output and the end of its standard error, within the time and size
    limits; a child past either is killed."""
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + TIMEOUT_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ, out)  # type: ignore[arg-type]
        selector.register(child.stderr, selectors.EVENT_READ, err)  # type: ignore[arg-type]
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                child.kill()
                child.wait()
                raise PluginRunError(f"ansible-core did not finish reading '{source}' within {TIMEOUT_SECONDS:g} "
                                     "seconds")
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(out) > MAX_OUTPUT_BYTES:
                    child.kill()
                    child.wait()
                    raise PluginRunError(f"the inventory of '{source}' is larger than {MAX_OUTPUT_BYTES >> 20} MB")
                if len(err) > 1 << 16:
                    del err[:-(1 << 15)]
    child.wait()
    return bytes(out), bytes(err)


def add_to_inventory(data: InventoryData, document: dict[str, Any]) -> None:
    """Add what ansible made to ``data`` in ansible's order: groups, hosts, then memberships,
    nesting and variables. A host or group this source made first takes its variables as they
    are (ansible already combined them); one known before gets them one by one, as ansible set them."""
    meta = document["_meta"]
    new = {name for name in (*meta["groups"], *meta["hosts"]) if name not in data.groups and name not in data.hosts}
    for name in meta["groups"]:
        data.add_group(name)
    for name in meta["hosts"]:
        data.add_host(name)
    for name in meta["groups"]:
        group = document[name]
        for host in group["hosts"]:
            data.add_child(name, host)
        for child in group["children"]:
            data.add_child(name, child)
        _set_variables(data, data.groups[name], name in new, group["vars"])
        if group["priority"] != 1:
            data.groups[name].set_priority(group["priority"])
    for name, variables in meta["hostvars"].items():
        _set_variables(data, data.hosts[name], name in new,
                       {k: v for k, v in variables.items() if k not in HOST_SOURCE_VARS})


def _set_variables(data: InventoryData, entity: Host | Group, new: bool, variables: dict[str, Any]) -> None:
    if new:
        entity.vars.update(variables)
        return
    for key, value in variables.items():
        data.set_variable(entity.name, key, value)

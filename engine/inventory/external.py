"""Inventory plugins playbook-ls does not implement, read by ansible-core itself.

A plugin a user wrote (``inventory_plugins/NAME.py`` in the playbook directory or a configured
``inventory_plugins`` path) or a collection's (``amazon.aws.aws_ec2``) is code: playbook-ls never
re-implements it. Where running the repository's code is allowed (the caller's ``dynamic``),
the source is read by the installed ansible-core's own ``InventoryManager`` in a child process
(:mod:`engine.inventory.ansible_child`), with a timeout and a bound on its output, and what it
made (groups, hosts, variables, in ansible's order) is added to the inventory.

The result is cached, in memory and in the user's cache directory, keyed by the contents of the
source, the plugin's file, ansible.cfg and the ``ANSIBLE_*`` environment: the same files give the
same answer without running anything. A source the plugin failed on is remembered only in memory,
for a minute (:data:`FAILURE_SECONDS`). An entry is read back only when this user's playbook-ls
sealed it (:mod:`engine.user_cache`), within the answer's size bound and with the answer's shape.
When the source's configuration turns the plugin's own cache on (``cache: true``, a ``Cacheable``
plugin), the entry also expires after its ``cache_timeout`` (ansible's default 3600 s), as the
plugin's own cache would.
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
DEFAULT_CACHE_TIMEOUT = 3600
FAILURE_SECONDS = 60.0
"""How long a failed reading is remembered in memory: an editor reading the inventory again on each
change does not re-run a failing plugin (seconds of CPU) each time, and a failure of the network
is retried soon after."""
FORMAT = 2
"""Bumped when the child's document changes, so that older cache entries are not read."""
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ansible_child.py")
HOST_SOURCE_VARS = frozenset(("inventory_file", "inventory_dir"))
"""Set by the inventory for the source being read: this process sets its own."""

_memory: dict[str, tuple[float | None, dict[str, Any]]] = {}


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
    cache_timeout: int | None = None
    """The plugin's own cache lifetime when its configuration turns the cache on, else None."""
    trust: bool | None = None
    """Whether plain strings plugins set are trusted, when the sources before decided it
    (:attr:`engine.inventory.data.InventoryData.trust_by_default`)."""


def plugin_cache_timeout(config: Any) -> int | None:
    """``cache_timeout`` of a configuration whose ``cache`` is on (a ``Cacheable`` plugin's options)."""
    if not isinstance(config, dict) or str(config.get("cache", False)).lower() not in ("true", "yes", "on", "1"):
        return None
    try:
        return int(config.get("cache_timeout", DEFAULT_CACHE_TIMEOUT))
    except (TypeError, ValueError):
        return DEFAULT_CACHE_TIMEOUT


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
    digest = hashlib.sha256(json.dumps([FORMAT, request.source, request.plugin, request.basedir, request.trust,
                                        os.getcwd(),
                                        sorted((k, v) for k, v in os.environ.items() if k.startswith("ANSIBLE_"))],
                                       ).encode())
    for path in (request.source, request.plugin_file, request.config_file):
        _digest_file(digest, path)
    return digest.hexdigest()


def _cache_file(key: str) -> str | None:
    """Where an answer is cached; None when the cache directory is not the user's own."""
    from engine.user_cache import cache_subdir

    directory = cache_subdir("inventory-plugins", create=True)
    return os.path.join(directory, f"{key}.json") if directory else None


def _cached(key: str, now: float) -> dict[str, Any] | None:
    found = _memory.get(key)
    if found is None:
        from engine.user_cache import read_entry

        path = _cache_file(key)
        data = read_entry(path, MAX_OUTPUT_BYTES + 64) if path else None  # sealed by this user's playbook-ls
        if data is None:
            return None
        try:
            stored = decode_legacy_json(data.decode("utf-8", "surrogateescape"))
            found = stored["expires"], stored["document"]
        except (ValueError, KeyError, TypeError, RecursionError, MemoryError):
            return None
        if not _is_entry(*found):
            return None
        _memory[key] = found
    expires, document = found
    return document if expires is None or now < expires else None


def _is_entry(expires: Any, document: Any) -> bool:
    """The shape :func:`add_to_inventory` reads: ``_meta`` with the groups, the hosts and their
    variables, and each group's entry."""
    if not isinstance(expires, int | float | None) or not isinstance(document, dict):
        return False
    meta = document.get("_meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("hostvars"), dict):
        return False
    groups, hosts = meta.get("groups"), meta.get("hosts")
    if not isinstance(groups, list) or not isinstance(hosts, list):
        return False
    return all(isinstance(document.get(name), dict) for name in groups)


def _store(key: str, request: Request, document: dict[str, Any], text: str, now: float) -> None:
    from engine.user_cache import write_entry

    expires = None if request.cache_timeout is None else now + request.cache_timeout
    _memory[key] = expires, document
    path = _cache_file(key)
    if path:  # the child's document as it came, inside the entry: one JSON parse on a hit
        entry = f'{{"expires": {json.dumps(expires)}, "document": {text}}}'
        write_entry(path, entry.encode("utf-8", "surrogateescape"))


def read_source(request: Request, flush: bool = False) -> dict[str, Any]:
    """ansible's reading of ``request``'s source: from the cache, else from a child process.
    ``flush`` ignores (and replaces) a cached answer, as ``--flush-cache`` does ansible's."""
    key, now = cache_key(request), time.time()
    if not flush and (document := _cached(key, now)) is not None:
        return document
    text = _run_child(request)
    try:
        document = decode_legacy_json(text)
    except ValueError as exc:
        raise PluginRunError(f"the answer of ansible-core for '{request.source}' is not JSON: {exc}") from None
    if document.get("_meta", {}).get("parsed"):
        _store(key, request, document, text, now)
    else:  # a failure may be the network's: asked again a little later, and never kept on disk
        _memory[key] = now + FAILURE_SECONDS, document
    return document


def _run_child(request: Request) -> str:
    python = ansible_python()
    if python is None:
        raise PluginRunError(f"inventory plugin for source '{request.source}' needs ansible-core, which is not "
                             "installed (ansible-inventory was not found beside playbook-ls nor on PATH)")
    payload = json.dumps({"source": request.source, "plugin": request.plugin, "basedir": request.basedir,
                          "trust": request.trust})
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

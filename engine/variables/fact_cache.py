"""Facts known before a run: ansible's ``jsonfile`` fact cache (``fact_caching_connection`` in
ansible.cfg), or a directory ``ansible -m setup --tree DIR`` wrote. Read, never written; no host
is contacted. A host's facts become the variables ansible gives a play from its fact cache:
``ansible_facts`` (names without their ``ansible_`` prefix, ``namespace_facts``) and, with
``inject_facts_as_vars``, each fact under its own name (``clean_facts`` leaves out what could pass
for a connection setting or a magic variable)."""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.config import AnsibleConfig

MAX_FACTS_FILE = 64 * 1024 * 1024
# what clean_facts removes: connection settings, become options, interpreters, magic names
_NOT_INJECTED = re.compile(r"^ansible_(become\w*|\w*_interpreter|connection|host|port|user|password|ssh_\w+|"
                           r"shell_\w+|module_compression|pipelining|timeout|private_key_file|network_os|"
                           r"python_interpreter)$")


@dataclass(frozen=True)
class HostFacts:
    facts: dict[str, Any]
    source: str
    """The file they were read from."""
    digest: str
    """Tells two hosts' facts apart without comparing them."""

    def variables(self, inject: bool = True) -> dict[str, Any]:
        """The variables these facts give a play (``VariableManager.get_vars``)."""
        spaced = {name[8:] if name.startswith("ansible_") and name != "ansible_local" else name: value
                  for name, value in self.facts.items()}
        found: dict[str, Any] = {"ansible_facts": spaced}
        if inject:
            found.update((name, value) for name, value in self.facts.items() if not _NOT_INJECTED.match(name))
        else:
            found["ansible_local"] = self.facts.get("ansible_local", {})
        return found


# ansible-core 2.19 keys its cache entries by the schema of what they hold, and wraps the facts
# as a JSON text under one key (ansible._internal._plugins._cache.PluginInterposer)
CACHE_SCHEMA_PREFIX = "s1_"
CACHE_PAYLOAD_KEY = "__payload__"


def read_facts(directory: str, prefix: str = "", timeout: float = 0, now: float | None = None) -> dict[str, HostFacts]:
    """The facts of each host with a file in ``directory`` (named ``PREFIX + host``), skipping
    those older than ``timeout`` seconds (0: never too old) and files that are not JSON objects.
    A file holding a module result (``ansible -m setup --tree``) gives its ``ansible_facts``; one
    holding a cache payload, the facts in it."""
    import hashlib

    found: dict[str, HostFacts] = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return found
    moment = time.time() if now is None else now
    for name in names:
        if name.startswith(".") or not name.startswith(prefix):
            continue
        path = os.path.join(directory, name)
        try:
            info = os.stat(path)
            if not os.path.isfile(path) or info.st_size > MAX_FACTS_FILE:
                continue
            if timeout and moment - info.st_mtime > timeout:
                continue
            with open(path, "rb") as handle:
                raw = handle.read(MAX_FACTS_FILE + 1)
            data = json.loads(raw)
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(data, dict) and isinstance(data.get(CACHE_PAYLOAD_KEY), str):
            try:
                data = json.loads(data[CACHE_PAYLOAD_KEY])
            except (ValueError, RecursionError):
                continue
        elif isinstance(data, dict) and isinstance(data.get("ansible_facts"), dict):
            data = data["ansible_facts"]  # a module result, as `ansible -m setup --tree` writes it
        if isinstance(data, dict):
            found[name[len(prefix):]] = HostFacts(data, path, hashlib.sha1(raw).hexdigest())
    return found


def configured_facts(config: AnsibleConfig) -> dict[str, HostFacts]:
    """The facts ansible.cfg's ``jsonfile`` fact cache holds (none for another cache plugin)."""
    if config.fact_caching not in ("jsonfile", "ansible.builtin.jsonfile") or not config.fact_caching_connection:
        return {}
    return read_facts(config.fact_caching_connection, config.fact_caching_prefix + CACHE_SCHEMA_PREFIX,
                      config.fact_caching_timeout)


def known_facts(directory: str | None = None) -> dict[str, HostFacts]:
    """The facts a plan reads: ansible.cfg's fact cache, then those of ``directory`` (a tree
    ``ansible -m setup --tree`` wrote), which win for a host in both."""
    from engine.config import AnsibleConfig

    return configured_facts(AnsibleConfig.load()) | (read_facts(directory) if directory else {})

"""Executable inventory scripts: a port of ansible-core's ``script`` inventory plugin.

A script is run with ``--list``; when its answer has no ``_meta.hostvars`` it is run again
with ``--host NAME`` for every host. Running is the caller's decision (see
``load_inventory(..., dynamic=...)``); this module only runs what it is asked to.
"""

from __future__ import annotations

import os

from engine.inventory.data import InventoryData, InventoryError
from engine.inventory.trust import decode_legacy_json, untrusted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_SECONDS = 60.0
"""How long one script run may take before it is stopped and reported."""


class ScriptError(InventoryError):
    """A script that could not be run, failed, or printed something that is not an inventory."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


def is_script(path: str) -> bool:
    """The script plugin's test: an existing, readable, executable file."""
    return os.path.isfile(path) and os.access(path, os.R_OK) and os.access(path, os.X_OK)


def _type(value: Any) -> str:
    return {dict: "dict", list: "list", str: "str", int: "int", float: "float", bool: "bool",
            type(None): "NoneType"}.get(type(value), type(value).__name__)


class ScriptRunner:
    """Runs scripts and remembers their output for the rest of the run (one run per command line)."""

    def __init__(self, timeout: float = TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self._outputs: dict[tuple[str, ...], str] = {}

    def run(self, path: str, options: list[str]) -> str:
        cmd = (path, *options)
        if cmd in self._outputs:
            return self._outputs[cmd]
        import shlex
        import subprocess  # only an explicit run executes an inventory script

        try:
            done = subprocess.run(list(cmd), capture_output=True, timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            raise ScriptError(f"Inventory script {shlex.join(cmd)!r} did not finish within {self.timeout:g} "
                              "seconds.") from None
        except OSError:
            raise ScriptError(f"Failed to execute inventory script command {shlex.join(cmd)!r}.") from None
        stderr = done.stderr.decode(errors="surrogateescape")
        if stderr and not stderr.endswith("\n"):
            stderr += "\n"
        if done.returncode != 0:
            raise ScriptError(f"Inventory script returned non-zero exit code {done.returncode}.", stderr)
        try:
            output = done.stdout.decode()
        except UnicodeDecodeError:
            raise ScriptError("Inventory script result contained characters that cannot be interpreted as UTF-8.",
                              stderr) from None
        self._outputs[cmd] = output
        return output


def _decode(text: str, what: str) -> Any:
    try:
        return decode_legacy_json(text)
    except ValueError as exc:
        raise ScriptError(f"{what}: Value could not be parsed as JSON: {exc}") from None


def parse_script(inventory: InventoryData, path: str, runner: ScriptRunner) -> None:
    """Run ``path --list`` (and ``--host`` per host when needed) and add the result to ``inventory``."""
    processed = _decode(runner.run(path, ["--list"]), "Unable to get JSON decoder for inventory script result")
    if not isinstance(processed, dict):
        raise ScriptError(f"Unable to get JSON decoder for inventory script result: Value is {_type(processed)!r} "
                          "instead of 'dict'.")
    meta = processed.get("_meta", {})
    if not isinstance(meta, dict):
        raise ScriptError(f"Unable to get JSON decoder for inventory script result: Value contains '_meta' which is "
                          f"{_type(meta)!r} instead of 'dict'.")
    hosts: dict[str, None] = {}
    hostvars: dict[str, Any] | None = None
    for group, gdata in processed.items():
        if group == "_meta":
            hostvars = gdata.get("hostvars")
            if not isinstance(hostvars, dict):
                raise ScriptError(f"Value contains '_meta.hostvars' which is {_type(hostvars)!r} instead of 'dict'.")
        else:
            _parse_group(inventory, group, gdata, hosts)
    if hostvars is None:
        inventory.warn("Inventory scripts should always provide 'meta.hostvars'. Host variables will be collected "
                       "by running the inventory script with the '--host' option for each host.")
    for host in hosts:
        if hostvars is None:
            output = runner.run(path, ["--host", host])
            got = _decode(output, f"Inventory script result for host {host!r} could not be parsed as JSON") \
                if output.strip() else {}
        else:
            got = hostvars.get(host, {})
        if not isinstance(got, dict):
            raise ScriptError(f"Invalid data from file, expected dictionary and got:\n\n{got}")
        inventory.add_host(host)
        for key, value in got.items():
            inventory.set_variable(host, key, value)


def _parse_group(inventory: InventoryData, group: str, data: Any, hosts: dict[str, None]) -> None:
    group = inventory.add_group(group)
    if not isinstance(data, dict):
        data = {"hosts": data}
    elif not any(k in data for k in ("hosts", "vars", "children")):
        # ansible's (deprecated) reading of a bare mapping; it trusts only values under a "vars" key
        data = {"hosts": [group], "vars": untrusted(data)}
    if "hosts" in data:
        if not isinstance(data["hosts"], list):
            raise ScriptError(f"Value contains '{group}.hosts' which is {_type(data['hosts'])!r} instead of 'list'.")
        for hostname in data["hosts"]:
            hosts[hostname] = None
            inventory.add_host(hostname, group)
    if "vars" in data:
        if not isinstance(data["vars"], dict):
            raise ScriptError(f"Value contains '{group}.vars' which is {_type(data['vars'])!r} instead of 'dict'.")
        for key, value in data["vars"].items():
            inventory.set_variable(group, key, value)
    for child_name in data.get("children", ()):
        inventory.add_child(group, inventory.add_group(child_name))

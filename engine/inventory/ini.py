"""INI inventory files: a port of ansible-core's ``ini`` inventory plugin.

Sections ``[group]``, ``[group:children]`` and ``[group:vars]``; host lines
``name[:port] [key=value ...]`` split like a shell line (``#`` starts a comment), host ranges,
and values turned into Python literals with ``ast.literal_eval`` where they are one (``1``,
``[1, 2]``, ``None``), otherwise kept as text (``yes`` stays the string ``"yes"``).
"""

from __future__ import annotations

import ast
import re
import shlex
import warnings
from typing import Any

from engine.inventory.addresses import expand_hostpattern
from engine.inventory.data import InventoryData, InventoryError, to_safe_group_name
from engine.values import UnsafeText

_COMMENT_MARKERS = frozenset(";#")
_SECTION = re.compile(r"""^\[
        ([^:\]\s]+)             # group name
        (?::(\w+))?             # optional : and section type
    \]
    \s*(?:\#.*)?$               # trailing whitespace and/or a comment
""", re.X)
_GROUP_NAME = re.compile(r"^([^:\]\s]+)\s*(?:\#.*)?$")


class IniError(InventoryError):
    """A problem in an INI inventory, with the 1-based line it was found on."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def parse_value(text: str) -> Any:
    """An INI value as ansible reads it: a Python literal when it is one, else the text."""
    # most values of a fleet's host lines (rack=r1 weight=3) are a plain name or a decimal
    # number: answered without compiling them
    if text.isascii():
        if text.isdigit() and (text[0] != "0" or text == "0"):
            return int(text)
        if text.isidentifier() and text not in ("True", "False", "None"):
            return text
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            value: Any = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = text
    return _coerce(value)


def _coerce(value: Any) -> Any:
    """Turn what ``literal_eval`` may give into variable types: tuples and sets become lists,
    bytes, ``...`` and complex numbers become text. ansible trusts the text it parsed as a
    template, but not the text of a bytes literal (``b'abc'``), converted after the tagging."""
    if isinstance(value, (list, tuple, set)):
        return [_coerce(v) for v in value]
    if isinstance(value, dict):
        return {k: _coerce(v) for k, v in value.items()}
    if value is ...:
        return "..."
    if isinstance(value, complex):
        return str(value)
    if isinstance(value, bytes):
        return UnsafeText(value.decode("utf-8", errors="surrogateescape"))
    return value


class _IniReader:
    def __init__(self, inventory: InventoryData, path: str | None = None) -> None:
        self.inventory = inventory
        self.line = 0
        self.path = path

    def _set(self, entity: str, key: str, value: Any) -> None:
        self.inventory.set_variable(entity, key, value)
        if self.path is not None:
            self.inventory.value_origins.setdefault(entity, {})[key] = f"{self.path}:{self.line}"

    def fail(self, message: str) -> None:
        raise IniError(message, self.line)

    def parse(self, lines: list[str]) -> None:
        inventory = self.inventory
        pending: dict[str, dict[str, Any]] = {}
        groupname, state = "ungrouped", "hosts"
        for raw in lines:
            self.line += 1
            line = raw.strip()
            if not line or line[0] in _COMMENT_MARKERS:
                continue
            match = _SECTION.match(line)
            if match:
                groupname = to_safe_group_name(match.group(1), warnings=inventory.warnings,
                                               transform=inventory.transform_invalid_group_chars)
                state = match.group(2) or "hosts"
                if state not in ("hosts", "children", "vars"):
                    self.fail(f"Section [{':'.join(g for g in match.groups() if g)}] has unknown type: {state}")
                if groupname not in inventory.groups:
                    if state == "vars" and groupname not in pending:
                        pending[groupname] = {"line": self.line, "state": state, "name": groupname}
                    inventory.add_group(groupname)
                if groupname in pending and state != "vars":
                    if pending[groupname]["state"] == "children":
                        self._add_pending_children(groupname, pending)
                    elif pending[groupname]["state"] == "vars":
                        del pending[groupname]
                continue
            if line.startswith("[") and line.endswith("]"):
                self.fail(f"Invalid section entry: '{line}'. Please make sure that there are no spaces in the "
                          "section entry, and that there are no other invalid characters")
            if state == "hosts":
                hosts, port, variables = self._host_definition(line)
                for host in hosts:
                    inventory.add_host(host, group=groupname, port=port)
                    for key, value in variables.items():
                        self._set(host, key, value)
            elif state == "vars":
                key, value = self._variable_definition(line)
                self._set(groupname, key, value)
            else:
                child = self._group_name(line)
                if child not in inventory.groups:
                    if child not in pending:
                        pending[child] = {"line": self.line, "state": state, "name": child, "parents": [groupname]}
                    else:
                        pending[child].setdefault("parents", []).append(groupname)
                else:
                    inventory.add_child(groupname, child)
        for decl in pending.values():
            self.line = decl["line"]
            if decl["state"] == "vars":
                self.fail(f"Section [{decl['name']}:vars] not valid for undefined group {decl['name']!r}.")
            self.fail(f"Section [{decl['parents'][-1]}:children] includes undefined group {decl['name']!r}.")

    def _add_pending_children(self, group: str, pending: dict[str, dict[str, Any]]) -> None:
        for parent in pending[group]["parents"]:
            self.inventory.add_child(parent, group)
            if parent in pending and pending[parent]["state"] == "children":
                self._add_pending_children(parent, pending)
        del pending[group]

    def _group_name(self, line: str) -> str:
        match = _GROUP_NAME.match(line)
        if not match:
            self.fail(f"Expected group name, got: {line}")
        return match.group(1)  # type: ignore[union-attr]

    def _variable_definition(self, line: str) -> tuple[str, Any]:
        if "=" not in line:
            self.fail(f"Expected key=value, got: {line}")
        key, value = (part.strip() for part in line.split("=", 1))
        return key, parse_value(value)

    def _host_definition(self, line: str) -> tuple[list[str], int | None, dict[str, Any]]:
        try:
            # shlex reads a character at a time; a line with no quote, escape or comment splits
            # on the same whitespace at C speed (a fleet's inventory is thousands of such lines)
            tokens = _SHLEX_WHITESPACE.split(line.strip(" \t\r\n")) if _SHLEX_SPECIAL.search(line) is None \
                else shlex.split(line, comments=True)
        except ValueError as exc:
            self.fail(f"Error parsing host definition '{line}': {exc}")
        hostnames, port = expand_hostpattern(tokens[0])
        if tokens[0].strip().endswith(":") and port is None:
            self.fail(f"Invalid host pattern '{tokens[0]}' supplied, ending in ':' is not allowed, this character "
                      "is reserved to provide a port.")
        if any(name.strip() == "---" for name in hostnames):
            self.fail(f"Invalid host pattern '{tokens[0]}' supplied, '---' is normally a sign this is a YAML file.")
        variables: dict[str, Any] = {}
        for token in tokens[1:]:
            if "=" not in token:
                self.fail(f"Expected key=value host variable assignment, got: {token}")
            key, value = token.split("=", 1)
            variables[key] = parse_value(value)
        return hostnames, port, variables


_SHLEX_SPECIAL = re.compile(r"""['"\\#]""")
_SHLEX_WHITESPACE = re.compile(r"[ \t\r\n]+")


def parse_ini(inventory: InventoryData, text: str, path: str | None = None) -> None:
    """Add an INI inventory's hosts, groups and variables to ``inventory``.

    Raises :class:`IniError` ("Failed to parse inventory: ...") with the line number; like
    ansible, what was added before the faulty line stays. With ``path`` (the source's file), where
    each variable is set is noted in ``inventory.value_origins``.
    """
    reader = _IniReader(inventory, path)
    try:
        reader.parse(text.splitlines())
    except IniError as exc:
        raise IniError(f"Failed to parse inventory: {exc}", exc.line) from exc
    except Exception as exc:  # what ansible's parser trips on (bad ranges, ...) is reported, not raised
        raise IniError(f"Failed to parse inventory: {exc}", reader.line) from exc

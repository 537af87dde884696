"""``group_vars/`` and ``host_vars/`` next to inventory sources and in the playbook directory:
ansible's ``host_group_vars`` vars plugin.

For every source that is a path (host lists are skipped) the directory is the source itself or
the file's directory; the playbook directory is one more such directory, read by its own
:class:`VarsFiles` because ansible merges it at its own precedence. In ``<dir>/group_vars``
(or ``host_vars``) the files for an entity named NAME are ``NAME``, else ``NAME.yml``,
``NAME.yaml``, ``NAME.json`` (the first that exists); when that is a directory, every file in
it (sorted, recursively, hidden and ``~`` files skipped, only those extensions or none) is read
in order and merged, later files winning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from engine.inventory.data import Group, Host, InventoryError
from engine.source import SourceCache

YAML_FILENAME_EXTENSIONS = (".yml", ".yaml", ".json")


def source_directories(sources: Iterable[str]) -> list[str]:
    """The directories whose ``group_vars``/``host_vars`` apply, one per path source, in order."""
    dirs = []
    for source in sources:
        if not source or ("," in source and not os.path.exists(source)):
            continue
        path = source if os.path.isdir(source) else os.path.dirname(source)
        dirs.append(os.path.realpath(path or os.getcwd()))
    return dirs


def playbook_vars_directories(basedir: str) -> list[str]:
    """The directory whose vars files apply as the playbook's (ansible's ``basedir``): ``basedir``
    itself, or the directory of a file; none when it does not exist."""
    if os.path.isdir(basedir):
        return [os.path.realpath(basedir)]
    if os.path.isfile(basedir):
        return [os.path.realpath(os.path.dirname(basedir))]
    return []


def find_vars_files(path: str, name: str) -> list[str]:
    """ansible's ``DataLoader.find_vars_files``: the files defining ``name`` under ``path``."""
    base = os.path.join(path, name)
    for ext in ("", *YAML_FILENAME_EXTENSIONS):
        candidate = base + ext
        if os.path.exists(candidate):
            return _dir_vars_files(candidate) if os.path.isdir(candidate) else [candidate]
    return []


def _dir_vars_files(path: str) -> list[str]:
    found = []
    for name in sorted(os.listdir(path)):
        if name.startswith(".") or name.endswith("~"):
            continue
        ext = os.path.splitext(name)[1]
        full = os.path.join(path, name)
        if os.path.isdir(full) and not ext:
            found.extend(_dir_vars_files(full))
        elif os.path.isfile(full) and (not ext or ext in YAML_FILENAME_EXTENSIONS):
            found.append(full)
    return found


class VarsFiles:
    """Reads the vars files of hosts and groups from ``group_vars``/``host_vars`` in ``directories``
    (real paths, in order, later winning).

    Each entity's files are looked for and read once, as ansible's vars plugin and loader cache
    them for the whole command: a 5,000-host ``--list`` asks for ``all``'s and each group's
    variables once per host."""

    def __init__(self, directories: list[str], cache: SourceCache) -> None:
        self.directories = directories
        self.cache = cache
        self.warnings: list[str] = []
        self._files: dict[tuple[str, str], list[str]] = {}
        self._variables: dict[tuple[str, str], dict[str, Any]] = {}

    def files_for(self, entity: Host | Group) -> list[str]:
        subdir = "host_vars" if isinstance(entity, Host) else "group_vars"
        key = (subdir, entity.name)
        if key not in self._files:
            self._files[key] = self._find_files(subdir, entity.name)
        return self._files[key]

    def _find_files(self, subdir: str, name: str) -> list[str]:
        if name.startswith(os.path.sep):
            return []
        files: list[str] = []
        for directory in self.directories:
            opath = os.path.join(directory, subdir)
            if os.path.isdir(opath):
                files.extend(find_vars_files(opath, name))
            elif os.path.exists(opath):
                warning = f"Found {subdir} that is not a directory, skipping: {opath}"
                if warning not in self.warnings:
                    self.warnings.append(warning)
        return files

    def variables(self, entities: Iterable[Host | Group]) -> dict[str, Any]:
        """The merged variables of ``entities`` (in order, later wins); raises :class:`InventoryError`
        naming the file and position for a file that is not YAML or not a mapping."""
        data: dict[str, Any] = {}
        for entity in entities:
            key = ("host_vars" if isinstance(entity, Host) else "group_vars", entity.name)
            if key not in self._variables:
                self._variables[key] = self._read(self.files_for(entity))
            data = data | self._variables[key]
        return data

    def _read(self, paths: list[str]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for path in paths:
            loaded = self.cache.load(path)
            if loaded.error:
                raise InventoryError(f"{loaded.error}: fix the YAML in this vars file")
            if not loaded.data:
                continue
            if not isinstance(loaded.data, dict):
                raise InventoryError(f"Could not process {path!r}: it holds a {type(loaded.data).__name__}, "
                                     "variables must be a mapping")
            data = data | loaded.data
        return data

"""Roles and collections a project declares in requirements files, read as ``ansible-galaxy`` reads them.

A role or collection that a requirements file declares and nobody installed is not a mistake in
the playbook: one ``ansible-galaxy ... install -r FILE`` fixes every use of it. The resolver asks
here, for a role or a collection it cannot find, whether such a file declares it.

The files: ``requirements.yml`` (and the like: ``ansible-role-requirements.yml``, ``requirements-core.yml``),
``roles/requirements.yml`` and ``collections/requirements.yml`` in the playbook's directory and
each directory above it, up to the top of the repository. Their format is ``cli/galaxy.py``'s
``_parse_requirements_file``: a list of roles, or a mapping with ``roles`` and ``collections``;
the name a role installs as is ``RoleRequirement.role_yaml_parse``'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from engine.lazy_regex import LazyRegex
from engine.loading.paths import display_path
from engine.parsing.probes import listdir_for
from engine.records import NamedTuple
from engine.span import Span, YMap, YSeq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the keys role_yaml_parse keeps, and include (another requirements file)
_ROLE_KEYS = frozenset({"name", "role", "scm", "src", "version", "include"})
_COLLECTION = LazyRegex(r"^\w+\.\w+$")
_EXTENSIONS = (".yml", ".yaml")
# requirements.yml, ansible-role-requirements.yml, requirements-core.yml, ...
_FILE_NAME = LazyRegex(r"^(?:.*[-_.])?requirements(?:[-_.].*)?\.ya?ml$")
_TOP_MARKERS = (".git", "galaxy.yml")  # the top of a repository or of a collection's source


class Requirement(NamedTuple):
    """One entry of a requirements file: a ``role`` or a ``collection`` and the name it installs as."""

    kind: str
    name: str
    file: str
    span: Span | None

    def install_command(self) -> str:
        return f"ansible-galaxy {self.kind} install -r {display_path(self.file)}"

    def describe(self) -> str:
        return f"the {self.kind} '{self.name}' is declared in {display_path(self.file)}, not installed here"


def install_hint(requirement: Requirement | None) -> str:
    """What to do about something missing that ``requirement`` declares ("" without one)."""
    if requirement is None:
        return ""
    where = display_path(requirement.file)
    return f"It is declared in {where} and not installed here: {requirement.install_command()}."


def repo_url_to_role_name(src: str) -> str:
    """``RoleRequirement.repo_url_to_role_name``: ``https://host/repos/repo.git`` -> ``repo``."""
    if "://" not in src and "@" not in src:
        return src
    trailing = src.split("/")[-1]
    trailing = trailing.removesuffix(".git").removesuffix(".tar.gz")
    return trailing.split(",")[0]


def role_name(entry: Any) -> str | None:
    """The name ``ansible-galaxy`` installs a role requirement as (None: not a role requirement)."""
    if isinstance(entry, str):
        parts = entry.strip().split(",")
        if len(parts) > 3:
            return None
        if len(parts) == 3 and parts[2]:
            return parts[2]
        return repo_url_to_role_name(parts[0])
    if not isinstance(entry, dict) or "include" in entry:
        return None
    for key in ("role", "name"):  # role: the old style; name: the new one, over src
        if key in entry:
            return entry[key] if isinstance(entry[key], str) and entry[key] else None
    src = entry.get("src")
    if not isinstance(src, str):
        return None
    return repo_url_to_role_name(src.partition("+")[2] if "+" in src else src)


def collection_name(entry: Any) -> str | None:
    """The ``namespace.collection`` a collection requirement installs: its ``name`` when that is
    one (a git, url or file source named only by its location is known only once fetched)."""
    if isinstance(entry, dict):
        entry = entry.get("name")
    return entry if isinstance(entry, str) and _COLLECTION.match(entry) else None


def parse(data: Any, file: str) -> list[Requirement]:
    """The requirements of one file's data; nothing when it is not a requirements file (a task
    list has mappings with keys a role requirement does not take)."""
    if isinstance(data, list):
        roles, collections = data, []
    elif isinstance(data, dict) and data and set(data) <= {"roles", "collections"}:
        roles, collections = data.get("roles") or [], data.get("collections") or []
    else:
        return []
    if not isinstance(roles, list) or not isinstance(collections, list):
        return []
    if any(isinstance(entry, dict) and not set(entry) <= _ROLE_KEYS and not {"src", "role"} & set(entry)
           for entry in roles):
        return []
    found = [Requirement("role", name, file, span) for entry, span in _items(roles)
             if (name := role_name(entry))]
    found += [Requirement("collection", name, file, span) for entry, span in _items(collections)
              if (name := collection_name(entry))]
    return found


def _items(entries: list[Any]) -> Iterator[tuple[Any, Span | None]]:
    spans = entries.item_spans if isinstance(entries, YSeq) else []
    for index, entry in enumerate(entries):
        span = entry.span if isinstance(entry, YMap) else spans[index] if index < len(spans) else None
        yield entry, span


def _wanted(name: str) -> bool:
    return bool(_FILE_NAME.match(name)) or name in _TOP_MARKERS


def requirement_files(start: str) -> Iterator[str]:
    """The requirements files of ``start`` and each directory above it, nearest first, up to the
    top of the repository (or of the current directory, when ``start`` is inside it)."""
    directory, cwd = os.path.abspath(start), os.getcwd()
    while True:
        try:
            names = sorted(listdir_for(directory, _wanted))
        except OSError:
            names = []
        for name in names:
            if _FILE_NAME.match(name):
                yield os.path.join(directory, name)
        for sub in ("roles", "collections"):
            for ext in _EXTENSIONS:
                path = os.path.join(directory, sub, f"requirements{ext}")
                if os.path.isfile(path):
                    yield path
        parent = os.path.dirname(directory)
        if parent == directory or directory == cwd or any(marker in names for marker in _TOP_MARKERS):
            return
        directory = parent


def declared(load: Any, starts: list[str], kind: str, name: str) -> Requirement | None:
    """The first requirement declaring the ``kind`` ``name`` in the requirements files above
    ``starts`` (directories), read with ``load`` (``SourceCache.load``)."""
    seen: set[str] = set()
    for start in starts:
        for file in requirement_files(start):
            if file in seen:
                continue
            seen.add(file)
            loaded = load(file)
            if loaded.error is not None:
                continue
            found = next((r for r in parse(loaded.data, file) if r.kind == kind and r.name == name), None)
            if found is not None:
                return found
    return None

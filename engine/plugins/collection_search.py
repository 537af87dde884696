"""Where collections are installed and how a name is looked up in them, as ansible-core does.

A port of the parts of ``utils/collection_loader/_collection_finder.py`` (the collection roots
and ``_get_collection_role_path`` / ``_get_collection_playbook_path``) and
``playbook/collectionsearch.py`` that decide what a playbook resolves to. Collections are found
by reading directories only: nothing is imported or run.

The roots, first found wins for a given ``namespace.collection``: ``collections/`` next to each
playbook given on the command line, then the configured ``collections_path`` (``ANSIBLE_COLLECTIONS_PATH``
or ansible.cfg), then, unless ``collections_scan_sys_path`` is off, every ``sys.path`` entry
of the Python that runs ansible (an ``ansible_collections`` in site-packages, as the ``ansible``
package installs them).
"""

from __future__ import annotations

import glob
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache

from engine.loading import paths

VALID_FQCR = re.compile(r"^\w+(\.\w+){2,}$")
PLAYBOOK_EXTENSIONS = (".yml", ".yaml")
# Synthetic collections: they hold ansible-core's own plugins and never a role or a playbook.
SYNTHETIC = frozenset({"ansible.builtin", "ansible.legacy"})


def is_fqcr(name: str) -> bool:
    """``AnsibleCollectionRef.is_valid_fqcr`` without a type: ``ns.coll.resource`` (or deeper)."""
    return bool(VALID_FQCR.match(name))


def ensure_default(collections: Sequence[str], default_collection: str | None = None) -> tuple[str, ...]:
    """``_ensure_default_collection``: the default collection first, and once the list is not
    empty, ``ansible.legacy`` last unless ``ansible.builtin`` or ``ansible.legacy`` is in it."""
    result = list(collections)
    if default_collection and default_collection not in result:
        result.insert(0, default_collection)
    if result and "ansible.builtin" not in result and "ansible.legacy" not in result:
        result.append("ansible.legacy")
    return tuple(result)


@cache
def _site_packages_of(executable: str) -> tuple[str, ...]:
    """The site-packages of the virtualenv or prefix an ``ansible-playbook`` script belongs to,
    read off the file system (the script is not run)."""
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(executable)))
    found = [path for pattern in ("python3*/site-packages", "python3*/dist-packages")
             for path in sorted(glob.glob(os.path.join(prefix, "lib", pattern)))]
    return tuple(found)


def _on_path(command: str) -> str | None:
    """``shutil.which(command)`` on POSIX, where ansible runs; importing shutil (and the
    compression modules it imports) cost a short listing more than the lookup."""
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(directory or os.curdir, command)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def python_paths() -> list[str]:
    """``sys.path`` of this interpreter, then the site-packages of the ``ansible-playbook``
    beside it or on PATH, where an ``ansible`` package would have installed collections."""
    found = [p for p in sys.path if p]
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    for script in (beside, _on_path("ansible-playbook")):
        if script and os.path.isfile(script):
            found += [p for p in _site_packages_of(script) if p not in found]
    return found


def root_candidates(playbook_dirs: Iterable[str], configured: Iterable[str], scan_sys_path: bool = True,
                    sys_paths: Iterable[str] | None = None) -> list[str]:
    """Every directory ansible looks for an ``ansible_collections`` tree in, in its search order,
    whether it holds one or not (a cache of results depends on them all: one may appear)."""
    candidates = [os.path.join(d, "collections") for d in playbook_dirs]
    candidates += [os.path.expanduser(p) for p in configured]
    if scan_sys_path:
        candidates += list(python_paths() if sys_paths is None else sys_paths)
    found: list[str] = []
    for path in candidates:
        if os.path.basename(path) == "ansible_collections":
            path = os.path.dirname(path)
        if path not in found:
            found.append(path)
    return found


def collection_roots(playbook_dirs: Iterable[str], configured: Iterable[str], scan_sys_path: bool = True,
                     sys_paths: Iterable[str] | None = None) -> list[str]:
    """The directories that hold an ``ansible_collections`` tree, in ansible's search order."""
    return [path for path in root_candidates(playbook_dirs, configured, scan_sys_path, sys_paths)
            if paths.isdir(os.path.join(path, "ansible_collections"))]


class CollectionFinder:
    """Looks names up in the installed collections of one ansible configuration.

    ``sources`` maps ``namespace.collection`` to the directory of a collection's source (its
    ``galaxy.yml``) in the repository being edited or checked: there, as in ansible-lint, the
    collection under edit is the one names resolve to, before any installed copy. ansible itself
    only knows installed collections, so the command line never passes any."""

    def __init__(self, roots: Sequence[str], sources: Mapping[str, str] | None = None) -> None:
        self.roots = list(roots)
        self.sources = dict(sources or {})

    def collection_dir(self, name: str) -> str | None:
        """The directory of ``namespace.collection``: the first root that has it (a Python
        namespace package, so an earlier root hides the same collection in a later one)."""
        namespace, _, collection = name.partition(".")
        if not namespace or not collection or "." in collection:
            return None
        if name in self.sources:
            return self.sources[name]
        for root in self.roots:
            candidate = os.path.join(root, "ansible_collections", namespace, collection)
            if paths.isdir(candidate):
                return candidate
        return None

    def find_role(self, name: str, collection_list: Sequence[str]) -> tuple[str, str, str] | None:
        """``_get_collection_role_path``: ``(role name, role directory, collection)`` for a fully
        qualified name, or a short one found in a collection of ``collection_list``."""
        subdirs: list[str] = []
        if is_fqcr(name):
            # ns.coll.sub1.sub2.role is roles/sub1/sub2/role of ns.coll (AnsibleCollectionRef's subdirs),
            # and the role is named by its last part
            namespace, collection_name, *subdirs, resource = name.split(".")
            candidates = [f"{namespace}.{collection_name}"]
        elif not collection_list:
            return None
        else:
            resource, candidates = name, list(collection_list)
        for collection in candidates:
            if collection in SYNTHETIC:
                continue
            directory = self.collection_dir(collection)
            role = os.path.join(directory, "roles", *subdirs, resource) if directory else None
            if role and paths.isdir(role):
                return resource, role, collection
        return None

    def find_playbook(self, name: str) -> tuple[str, str] | None:
        """``_get_collection_playbook_path``: ``(playbook file, collection)`` for
        ``ns.coll[.subdir...].name[.yml]``, or None when it is not such a name or not installed."""
        if not is_fqcr(name):
            return None
        extension = ""
        if name.endswith(PLAYBOOK_EXTENSIONS):
            remnant, resource, ext = name.rsplit(".", 2)
            extension = "." + ext
        else:
            remnant, resource = name.rsplit(".", 1)
        namespace, _, rest = remnant.partition(".")
        collection_name, _, subdirs = rest.partition(".")
        if not namespace or not collection_name:
            return None
        collection = f"{namespace}.{collection_name}"
        directory = self.collection_dir(collection)
        if directory is None:
            return None
        base = os.path.join(directory, "playbooks", *(subdirs.split(".") if subdirs else []))
        candidate = os.path.join(base, resource + extension)
        if paths.exists(candidate):
            return candidate, collection
        if not extension:
            for ext in PLAYBOOK_EXTENSIONS:
                if paths.exists(candidate + ext):
                    return candidate + ext, collection
        return None

    def collection_of(self, path: str) -> str | None:
        """``_get_collection_name_from_path``: the collection a file belongs to, when it lies in
        the installed copy of that collection (not in one an earlier root hides), or in the source
        of a collection under edit."""
        path = os.path.abspath(path)
        for name, directory in self.sources.items():
            if path.startswith(directory + os.sep):
                return name
        parts = path.split(os.sep)
        if parts.count("ansible_collections") != 1:
            return None
        at = parts.index("ansible_collections")
        if len(parts) < at + 3:
            return None
        name = f"{parts[at + 1]}.{parts[at + 2]}"
        installed = self.collection_dir(name)
        prefix = os.sep.join(parts[: at + 3])
        return name if installed and os.path.abspath(installed) == prefix else None


def collection_sources(galaxy_files: Iterable[str], read_data: Callable[[str], object]) -> dict[str, str]:
    """``namespace.collection`` -> directory for each ``galaxy.yml`` (read with ``read_data``)
    that names a valid collection; the outermost wins when two declare the same name. A
    ``galaxy.yml`` inside an installed tree (``ansible_collections/``) is left to the roots."""
    found: dict[str, str] = {}
    for path in sorted(galaxy_files, key=lambda p: (p.count(os.sep), p)):
        if "ansible_collections" in os.path.abspath(path).split(os.sep):
            continue
        data = read_data(path)
        if not isinstance(data, dict):
            continue
        namespace, name = data.get("namespace"), data.get("name")
        if isinstance(namespace, str) and isinstance(name, str) and \
                re.fullmatch(r"\w+", namespace) and re.fullmatch(r"\w+", name):
            found.setdefault(f"{namespace}.{name}", os.path.dirname(os.path.abspath(path)))
    return found

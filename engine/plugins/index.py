"""Every module a playbook can reach, with its documentation read statically and cached.

The modules are those module-name resolution (:mod:`engine.plugins.names`) looks in: ansible-core's
``modules/``, each collection's ``plugins/modules`` on every collection root (first root wins,
as for names), and ``library/`` directories. Docs come from :mod:`engine.plugins.docs` (nothing is
imported). Each module directory is one cache shard in the user's cache directory, keyed by the
identity (path, size, mtime) of its files and of every doc fragment file, so installing or
editing a collection rebuilds what changed and nothing else. A shard is two files: the summary
(name, file, short description, deprecation) that module-name completion needs, and the full
docs, read only when a module of that directory is looked at.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine import code_files
from engine.files import is_file, read_bytes
from engine.plugins.collection_search import CollectionFinder
from engine.plugins.docs import DOC_EXTENSIONS, doc_file, plugin_docs
from engine.plugins.names import IGNORED_EXTENSIONS, MAX_REDIRECTS, AnsibleCore
from engine.plugins.routing import routing_entry
from engine.user_cache import cache_subdir, read_entry, write_entry

CACHE_VERSION = "2"  # the shards' format; the code that fills them is in the key too (_code)
MAX_DOC_BYTES = 16 * 1024 * 1024  # a cached doc or summary shard read back: far beyond any module's
BUILTIN = "ansible.builtin"


def _code() -> str:
    """The code that reads docs and summaries: a shard made by other code is read again."""
    return code_files.identity(code_files.MODULE_DOCS, code_files.MODULE_DOCS_LIBRARIES)


@dataclass(frozen=True)
class ModuleFile:
    name: str  # fully qualified, or the bare name of a library/ module
    path: str  # the plugin's own file (what go-to-definition opens)
    directory: str  # the shard it belongs to


def _module_files(directory: str, prefix: str) -> Iterator[ModuleFile]:
    """The modules of one plugin directory, subdirectories giving ``prefix.sub.name`` as in a
    collection; a module and its doc sidecar (``x.ps1`` + ``x.py``/``x.yml``) are one module."""
    for current, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        relative = os.path.relpath(current, directory)
        sub = "" if relative == "." else relative.replace(os.sep, ".") + "."
        for stem, path in _stems(current, files).items():
            yield ModuleFile(f"{prefix}{sub}{stem}", path, directory)


def _stems(directory: str, entries: Iterable[str]) -> dict[str, str]:
    """The modules of one directory's own files, by name: stem -> the module's code."""
    stems: dict[str, list[str]] = {}
    for entry in sorted(entries):
        if entry == "__init__.py" or entry.startswith(".") or \
                (entry.endswith(IGNORED_EXTENSIONS) and not entry.endswith((".yml", ".yaml"))):
            continue
        stems.setdefault(os.path.splitext(entry)[0], []).append(os.path.join(directory, entry))
    found = {}
    for stem, paths in stems.items():
        code = [p for p in paths if not p.endswith(DOC_EXTENSIONS)] or [p for p in paths if p.endswith(".py")]
        if code:  # a lone .yml is data, not a module
            found[stem] = code[0]
    return found


def _directory_stems(directory: str) -> dict[str, str]:
    """:func:`_stems` of a directory's files (not its subdirectories)."""
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries if is_file(entry)]
    except OSError:
        return {}
    return _stems(directory, names)


@dataclass(eq=False)  # one per configuration, hashed by identity (a cache key for its readers)
class ModuleIndex:
    """The modules of one configuration (ansible-core, collection roots, library dirs)."""

    core: AnsibleCore | None
    collections: CollectionFinder
    library_dirs: list[str] = field(default_factory=list)
    _files: dict[str, ModuleFile] | None = None
    _summaries: dict[str, dict[str, Any]] | None = None
    _docs: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> docs
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _building: threading.Thread | None = None

    # -- what exists ---------------------------------------------------------------------------
    def module_dirs(self) -> list[tuple[str, str]]:
        """``(directory, name prefix)`` of each place modules live, in lookup order; looked for
        once per index, as its file list is built once."""
        if "_dirs" not in self.__dict__:
            self.__dict__["_dirs"] = self._find_module_dirs()
        return self.__dict__["_dirs"]  # type: ignore[no-any-return]

    def _find_module_dirs(self) -> list[tuple[str, str]]:
        found = [(d, "") for d in self.library_dirs if os.path.isdir(d)]
        if self.core is not None:
            found.append((self.core.module_dir, f"{BUILTIN}."))
        for name, directory in self.collection_dirs():
            modules = os.path.join(directory, "plugins", "modules")
            if os.path.isdir(modules):
                found.append((modules, f"{name}."))
        return found

    def collection_dirs(self) -> list[tuple[str, str]]:
        """``(namespace.collection, directory)`` of every collection names resolve to."""
        seen: dict[str, str] = dict(self.collections.sources)
        for root in self.collections.roots:
            base = os.path.join(root, "ansible_collections")
            for namespace in _listdir(base):
                for collection in _listdir(os.path.join(base, namespace)):
                    name = f"{namespace}.{collection}"
                    directory = os.path.join(base, namespace, collection)
                    if name not in seen and os.path.isdir(directory):
                        seen[name] = directory
        return sorted(seen.items())

    def file(self, name: str) -> ModuleFile | None:
        """``files().get(name)`` without listing every module: only the directories that could
        hold ``name`` are read (the first one found in, as the whole index keeps the first)."""
        if self._files is not None:
            return self._files.get(name)
        found = self.__dict__.setdefault("_found", {})  # a playbook names a few dozen modules thousands of times
        if name not in found:
            found[name] = self._find_file(name)
        return found[name]  # type: ignore[no-any-return]

    def _find_file(self, name: str) -> ModuleFile | None:
        for directory, prefix in self.module_dirs():
            if not name.startswith(prefix):
                continue
            parts = name[len(prefix):].split(".")
            for depth in range(len(parts)):  # a walk reaches a directory before its subdirectories
                sub = parts[:depth]
                if any(part.startswith((".", "__")) for part in sub):
                    break
                path = self._stems_of(os.path.join(directory, *sub)).get(".".join(parts[depth:]))
                if path is not None:
                    return ModuleFile(name, path, directory)
        return None

    def _stems_of(self, directory: str) -> dict[str, str]:
        """A directory's modules, listed once per index (as the whole index is built once)."""
        listed = self.__dict__.setdefault("_listed", {})
        if directory not in listed:
            listed[directory] = _directory_stems(directory)
        return listed[directory]  # type: ignore[no-any-return]

    def files(self) -> dict[str, ModuleFile]:
        with self._lock:
            if self._files is None:
                files: dict[str, ModuleFile] = {}
                for directory, prefix in self.module_dirs():
                    for module in _module_files(directory, prefix):
                        files.setdefault(module.name, module)
                self._files = files
            return self._files

    # -- names -----------------------------------------------------------------------------------
    def resolve(self, action: str, collection_list: Iterable[str] = ()) -> str | None:
        """The indexed name a task's module key means: library/ modules, then ``ansible.builtin``
        for a short name (or each collection of ``collections:``), routing redirects followed.
        Remembered, as the file list is: a playbook names a few dozen modules thousands of times."""
        key = (action, tuple(collection_list))
        answers = self.__dict__.setdefault("_resolved", {})
        if key not in answers:
            answers[key] = self._resolve(action, key[1])
        return answers[key]  # type: ignore[no-any-return]

    def _resolve(self, action: str, collection_list: tuple[str, ...]) -> str | None:
        name = action.removeprefix("ansible.legacy.")
        if "." not in name:
            if self.file(name) is not None:
                return name
            candidates = [f"{c}.{name}" for c in collection_list if c != "ansible.legacy"] + [f"{BUILTIN}.{name}"]
        else:
            candidates = [name]
        for candidate in candidates:
            found = self._follow(candidate)
            if found is not None:
                return found
        return None

    def _follow(self, name: str) -> str | None:
        for _ in range(MAX_REDIRECTS):
            # routing is read before the file, as ansible does: a redirect wins over a module
            # file the collection still ships under the old name
            entry = self.routing_entry(name) if name.count(".") >= 2 else None
            redirect = entry.get("redirect") if isinstance(entry, dict) else None
            if not isinstance(redirect, str):
                return name if self.file(name) is not None else None
            name = redirect if redirect.count(".") >= 2 else f"{BUILTIN}.{redirect}"
        return None

    def routing_entry(self, name: str) -> Any:
        """The ``plugin_routing.modules`` entry (redirect, deprecation, tombstone) of a FQCN."""
        parts = name.split(".")
        if ".".join(parts[:2]) == BUILTIN:
            runtime = self.core.runtime if self.core else None
        else:
            directory = self.collections.collection_dir(".".join(parts[:2]))
            runtime = os.path.join(directory, "meta", "runtime.yml") if directory else None
        return routing_entry(runtime, "modules", ".".join(parts[2:])) if runtime else None

    # -- deprecations and removals ----------------------------------------------------------------
    def deprecation(self, action: str, collection_list: Iterable[str] = ()) -> str | None:
        """Why ``action`` is deprecated and what to use instead, in a sentence, from its routing
        (``runtime.yml`` ``deprecation``, on the name or a name it redirects through) or its
        documentation (``deprecated``); None when it is not."""
        key = (action, tuple(collection_list))
        answers = self.__dict__.setdefault("_deprecations", {})
        if key not in answers:
            answers[key] = self._deprecation(action, key[1])
        return answers[key]  # type: ignore[no-any-return]

    def _deprecation(self, action: str, collection_list: tuple[str, ...]) -> str | None:
        name = self._qualified(action, collection_list)
        if name is None:
            return None
        for _ in range(MAX_REDIRECTS):
            entry = self.routing_entry(name)
            if not isinstance(entry, dict):
                break
            redirect = entry.get("redirect")
            deprecated = entry.get("deprecation")
            if isinstance(deprecated, dict):
                text = str(deprecated.get("warning_text") or "see the collection").strip().rstrip(".")
                instead = f" It now redirects to {redirect}." if isinstance(redirect, str) else ""
                return f"{name} is deprecated{_removal(deprecated)}: {text}.{instead}"
            if not isinstance(redirect, str):
                break
            name = redirect if redirect.count(".") >= 2 else f"{BUILTIN}.{redirect}"
        resolved = self.resolve(name)
        doc = self.doc(resolved) if resolved else None
        details = doc.get("deprecated") if isinstance(doc, dict) else None
        if not details:
            return None
        details = details if isinstance(details, dict) else {}
        why = str(details.get("why") or "").strip().rstrip(".")
        instead = str(details.get("alternative") or "").strip().rstrip(".")
        return (f"{resolved} is deprecated{_removal(details)}" + (f": {why}" if why else "") + "."
                + (f" Instead: {instead}." if instead else ""))

    def removal(self, action: str, collection_list: Iterable[str] = ()) -> str | None:
        """The ``runtime.yml`` tombstone of ``action`` in a sentence, or None."""
        name = self._qualified(action, collection_list)
        entry = self.routing_entry(name) if name else None
        tombstone = entry.get("tombstone") if isinstance(entry, dict) else None
        if tombstone is None:
            return None
        details = tombstone if isinstance(tombstone, dict) else {}
        text = str(details.get("warning_text") or "").strip()
        when = _when(details)
        return f"{name} was removed" + (f" in {when}" if when else "") + "." + (f" {text}" if text else "")

    def _qualified(self, action: str, collection_list: Iterable[str]) -> str | None:
        """``action`` fully qualified: as written, or as resolved (a short name)."""
        name = action.removeprefix("ansible.legacy.")
        if name.count(".") >= 2:
            return name
        resolved = self.resolve(action, collection_list)
        if resolved is not None and "." in resolved:
            return resolved
        return f"{BUILTIN}.{name}" if "." not in name else None

    # -- documentation --------------------------------------------------------------------------
    def find_fragment(self, name: str) -> str | None:
        """``fragment_loader.get``: the file of a doc fragment named short (ansible-core's) or
        fully qualified (a collection's, runtime.yml redirects followed)."""
        for _ in range(MAX_REDIRECTS):
            short = name.removeprefix(f"{BUILTIN}.").removeprefix("ansible.legacy.")
            if "." not in short:
                if self.core is None:
                    return None
                path = os.path.join(self.core.package, "plugins", "doc_fragments", f"{short}.py")
                if os.path.isfile(path):
                    return path
                # old short names ansible-core's own routing sends to a collection
                runtime, resource = self.core.runtime, short
            else:
                parts = name.split(".")
                directory = self.collections.collection_dir(".".join(parts[:2])) if len(parts) >= 3 else None
                if directory is None:
                    return None
                path = os.path.join(_package_dir(os.path.join(directory, "plugins", "doc_fragments"), parts[2:-1]),
                                    f"{parts[-1]}.py")
                if os.path.isfile(path):
                    return path
                runtime = os.path.join(directory, "meta", "runtime.yml")
                resource = ".".join(parts[2:])
            entry = routing_entry(runtime, "doc_fragments", resource)
            redirect = entry.get("redirect") if isinstance(entry, dict) else None
            if not isinstance(redirect, str):
                return None
            name = redirect
        return None

    def docs(self, name: str) -> dict[str, Any] | None:
        """``{doc, examples, returndocs}`` of an indexed module (``doc`` None when it has none),
        parsed on first use and kept in memory and in the cache directory."""
        module = self.file(name)
        if module is None:
            return None
        with self._lock:
            if name in self._docs:
                return self._docs[name]
        target = self._cache_path(self._file_key(module.path), "doc")
        docs = _read_json(target, _is_docs)
        if docs is None:
            parsed, _files = plugin_docs(module.path, self.find_fragment)
            text = json.dumps(parsed, default=str)
            _write_json(target, text)
            docs = json.loads(text)  # dates as ansible-doc --json writes them
        with self._lock:
            self._docs[name] = docs
        return docs

    def doc(self, name: str) -> dict[str, Any] | None:
        docs = self.docs(name)
        return docs.get("doc") if docs else None

    def summaries(self) -> dict[str, dict[str, Any]]:
        """Name -> ``{path, short_description, deprecated}`` of every module, read off the docs'
        text without parsing them (what module-name completion needs); the first call is the
        cold index, later ones read each directory's summary from the cache."""
        if self._summaries is None:
            # built without the lock: a hover meanwhile reads its one module's doc, not waiting
            summaries: dict[str, dict[str, Any]] = {}
            files: dict[str, ModuleFile] = {}
            for directory, prefix in self.module_dirs():
                target = self._shard_path(directory)
                shard = _read_json(target, _is_shard)
                if shard is None:
                    shard = {m.name: _summary(m.path) for m in _module_files(directory, prefix)}
                    _write_json(target, json.dumps(shard))
                for name, summary in shard.items():
                    summaries.setdefault(name, summary)
                    files.setdefault(name, ModuleFile(name, summary["path"], directory))
            with self._lock:
                if self._files is None:
                    self._files = files  # the shards list the same files as a walk of the directories
            self._summaries = summaries
        return self._summaries

    def _shard_path(self, directory: str) -> str | None:
        """Where a module directory's summary shard is cached (its key computed once)."""
        keys = self.__dict__.setdefault("_shard_keys", {})
        if directory not in keys:
            keys[directory] = self._cache_path(self._directory_key(directory), "summary")
        return keys[directory]  # type: ignore[no-any-return]

    def build_in_background(self) -> threading.Thread:
        """Start the cold index in a thread; the server answers everything else meanwhile."""
        with self._lock:
            if self._building is None:
                self._building = threading.Thread(target=self._build, name="module-index", daemon=True)
                self._building.start()
            return self._building

    def _build(self) -> None:
        # warm (every shard cached), the shards give the file list too; cold, the file list (what
        # a hover's name lookup needs) comes first, from a walk of the directories
        shards = [self._shard_path(directory) for directory, _prefix in self.module_dirs()]
        if not all(shard and os.path.isfile(shard) for shard in shards):
            self.files()
        self.summaries()

    def ready(self) -> bool:
        return self._summaries is not None

    # -- the cache ------------------------------------------------------------------------------
    def _directory_key(self, directory: str) -> str:
        """The identity of a module directory's summary shard. An installed collection (one with
        the ``MANIFEST.json`` ansible-galaxy writes) and ansible-core are only ever changed by
        installing them again, which creates their files anew: the modification times of their
        directories, and the manifest, tell. Anything else (``library/``, a collection under
        edit) is keyed by every file's size and modification time, as edits happen in place."""
        installed = self._installed_root(directory)
        identities = self._directory_times(directory, installed) if installed else self._identities(directory)
        identity = [CACHE_VERSION, _code(), os.path.realpath(directory), *identities]
        return hashlib.sha1("|".join(identity).encode()).hexdigest()

    def _installed_root(self, directory: str) -> str | None:
        """The installed collection (or ansible-core package) ``directory`` belongs to, if any."""
        if self.core is not None and directory == self.core.module_dir:
            return self.core.package
        root = os.path.dirname(os.path.dirname(directory))  # .../ns/coll/plugins/modules
        if os.path.isfile(os.path.join(root, "MANIFEST.json")) and root not in self.collections.sources.values():
            return root
        return None

    @staticmethod
    def _directory_times(directory: str, root: str) -> list[str]:
        found = []
        for place in (os.path.join(root, "MANIFEST.json"), os.path.join(root, "__init__.py")):
            try:
                stat = os.stat(place)
            except OSError:
                continue
            found.append(f"{place}:{stat.st_size}:{stat.st_mtime_ns}")
        for current, dirs, _files in os.walk(directory):
            dirs.sort()
            try:
                found.append(f"{current}:{os.stat(current).st_mtime_ns}")
            except OSError:
                continue
        return found

    def _file_key(self, path: str) -> str:
        try:
            stat = os.stat(path)
        except OSError:
            return ""
        identity = [CACHE_VERSION, _code(), os.path.realpath(path), str(stat.st_size), str(stat.st_mtime_ns),
                    self._fragment_fingerprint()]
        return hashlib.sha1("|".join(identity).encode()).hexdigest()

    def _identities(self, directory: str) -> list[str]:
        found = []
        for current, dirs, files in os.walk(directory):
            dirs.sort()
            for entry in sorted(files):
                try:
                    stat = os.stat(os.path.join(current, entry))
                except OSError:
                    continue
                found.append(f"{current}/{entry}:{stat.st_size}:{stat.st_mtime_ns}")
        return found

    def _fragment_fingerprint(self) -> str:
        if not hasattr(self, "_fingerprint"):
            places = [os.path.join(d, "plugins", "doc_fragments") for _n, d in self.collection_dirs()]
            if self.core is not None:
                places.insert(0, os.path.join(self.core.package, "plugins", "doc_fragments"))
            parts = [identity for place in places for identity in self._identities(place)]
            self._fingerprint = hashlib.sha1("|".join(parts).encode()).hexdigest()
        return self._fingerprint

    @staticmethod
    def _cache_path(key: str, kind: str) -> str | None:
        """Where an entry is cached; None when the cache directory is not the user's own."""
        directory = cache_subdir("modules", create=True)
        return os.path.join(directory, f"{key}.{kind}.json") if directory else None


_SHORT = re.compile(rb"^short_description:[ \t]*(.*)$", re.MULTILINE)
_DEPRECATED = re.compile(rb"^deprecated:", re.MULTILINE)


def _summary(path: str) -> dict[str, Any]:
    """What a module says of itself in one line, found in its text (a docstub, as ansible's
    ``read_docstub`` does for ``ansible-doc -l``): the full doc is parsed only when needed."""
    doc = doc_file(path) or path
    try:
        text = read_bytes(doc)
    except OSError:  # a FIFO or a device among the modules too: no summary, never a wait
        text = b""
    match = _SHORT.search(text)
    short = match.group(1).decode("utf-8", "replace").strip().strip("'\"") if match else ""
    return {"path": path, "short_description": short, "deprecated": bool(_DEPRECATED.search(text))}


def _when(details: dict[str, Any]) -> str:
    """``version 3.0.0`` / ``2024-09-01``: when routing or docs say a module goes, or went."""
    version = details.get("removal_version") or details.get("removed_in")
    date = details.get("removal_date") or details.get("removed_at_date")
    return f"version {version}" if version else str(date) if date else ""


def _removal(details: dict[str, Any]) -> str:
    when = _when(details)
    return f" (removal in {when})" if when else ""


def _package_dir(base: str, subdirs: list[str]) -> str:
    """Where ansible's collection loader looks for ``ns.coll.sub.name``: in ``sub/``, or, when
    ``sub`` is a module file and not a package, beside that file (the package's ``__file__``)."""
    directory = os.path.join(base, *subdirs)
    if subdirs and not os.path.isdir(directory) and os.path.isfile(directory + ".py"):
        return os.path.dirname(directory)
    return directory


def _read_json(path: str | None, valid: Callable[[Any], bool]) -> Any:
    """A cached entry this user's playbook-ls wrote (sealed, see :mod:`engine.user_cache`), if
    ``valid``; None for anything else, which is then made again."""
    data = read_entry(path, MAX_DOC_BYTES) if path else None
    if data is None:
        return None
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return value if valid(value) else None


def _write_json(path: str | None, text: str) -> None:
    if path:
        write_entry(path, text.encode("utf-8", "surrogateescape"))


def _is_docs(value: Any) -> bool:
    """What :func:`engine.plugins.docs.plugin_docs` gives, as JSON."""
    return isinstance(value, dict) and isinstance(value.get("doc"), dict | None) and "doc" in value


def _is_shard(value: Any) -> bool:
    """A summary shard: name -> ``{path, short_description, deprecated}``."""
    return isinstance(value, dict) and all(
        isinstance(summary, dict) and isinstance(summary.get("path"), str)
        and isinstance(summary.get("short_description"), str) and isinstance(summary.get("deprecated"), bool)
        for summary in value.values())


def _listdir(directory: str) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []

"""Whether a task's module or action name resolves, as ansible-playbook decides while loading.

ansible refuses a task whose module key names no module or action plugin ("couldn't resolve
module/action"). This ports that lookup (``ModuleArgsParser.parse`` with action validation,
``PluginLoader._resolve_plugin_step``, ``_find_plugin_legacy``, plugin routing) over the file
system only: the plugins' code is never imported or run. The answer needs ansible-core's own
module list and routing table; where no ansible-core is installed, :class:`PluginNames` answers
``None`` (not known) for every name, and the caller says so once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import cache

from engine.files import is_file
from engine.loading import paths
from engine.plugins.collection_search import SYNTHETIC, CollectionFinder, python_paths
from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What ansible takes as the task's action without looking it up (``BUILTIN_TASKS``).
ALWAYS_VALID = frozenset(f"{prefix}{name}" for prefix in ("", "ansible.builtin.", "ansible.legacy.")
                         for name in ("meta", "include_tasks", "include_role", "import_tasks", "import_role"))
IGNORED_EXTENSIONS = (".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst", ".yaml", ".yml", ".ini")
MAX_REDIRECTS = 20


class PluginRemoved(Exception):
    """A name whose routing says it was removed (a tombstone)."""


class AnsibleCore(NamedTuple):
    """The installed ansible-core's module and action directories and routing table."""

    package: str  # .../site-packages/ansible

    @property
    def module_dir(self) -> str:
        return os.path.join(self.package, "modules")

    @property
    def action_dir(self) -> str:
        return os.path.join(self.package, "plugins", "action")

    @property
    def runtime(self) -> str:
        """ansible-core's own routing table, ``ansible.builtin``'s runtime.yml."""
        return os.path.join(self.package, "config", "ansible_builtin_runtime.yml")


@cache
def find_ansible_core() -> AnsibleCore | None:
    """ansible-core beside playbook-ls or beside the ``ansible-playbook`` on PATH, if any."""
    for path in python_paths():
        package = os.path.join(path, "ansible")
        if os.path.isdir(os.path.join(package, "modules")) and \
                os.path.isfile(os.path.join(package, "config", "ansible_builtin_runtime.yml")):
            return AnsibleCore(package)
    return None


@paths.cleared_with_file_system  # a module added to library/ while the editor is open is found
@cache
def _plugin_files(directory: str, python_only: bool) -> frozenset[str]:
    """The plugin names a directory offers: module files of any extension, action plugins in .py."""
    names: set[str] = set()
    try:
        with os.scandir(directory) as scan:  # the entries' types without a stat each
            entries = [entry for entry in scan if is_file(entry)]
    except OSError:
        return frozenset()
    for entry in (entry.name for entry in entries):
        if entry == "__init__.py" or entry.endswith(IGNORED_EXTENSIONS) or entry.startswith("."):
            continue
        base, extension = os.path.splitext(entry)
        if python_only and extension != ".py":
            continue
        names.update({base, entry})
    return frozenset(names)


class PluginNames:
    """Looks module and action names up for one playbook's resolution."""

    def __init__(self, core: AnsibleCore | None, collections: CollectionFinder,
                 module_paths: list[str] | None = None, action_paths: list[str] | None = None) -> None:
        self.core, self.collections = core, collections
        self.module_paths: list[str] = module_paths if module_paths is not None else []
        """library: configured, then beside playbooks/roles"""
        self.action_paths: list[str] = action_paths if action_paths is not None else []
        self.callback_paths: list[str] = []
        """``callback_plugins/`` beside playbooks and legacy roles (engine.run.callback_declines)"""
        self._answers: dict[tuple[Any, ...], bool | None | PluginRemoved] = {}
        """``resolves`` per name, collection list and plugin directories (a playbook's thousands of
        tasks name a few dozen modules)."""

    def add_plugin_dirs(self, directory: str) -> None:
        """``add_all_plugin_dirs``: a playbook's or a legacy role's ``library/``, ``action_plugins/``
        and ``callback_plugins/``."""
        for sub, found in (("library", self.module_paths), ("action_plugins", self.action_paths),
                           ("callback_plugins", self.callback_paths)):
            candidate = os.path.join(directory, sub)
            if candidate not in found and paths.isdir(candidate):
                found.append(candidate)

    def resolves(self, name: str, collection_list: Sequence[str]) -> bool | None:
        """True when ansible finds a module or an action plugin for ``name``, False when it does
        not, None when that cannot be known here. Raises :class:`PluginRemoved` for a tombstone."""
        key = (name, tuple(collection_list), len(self.module_paths), len(self.action_paths))
        if key not in self._answers:
            try:
                self._answers[key] = self._resolves(name, collection_list)
            except PluginRemoved as removed:
                self._answers[key] = removed
        answer = self._answers[key]
        if isinstance(answer, PluginRemoved):
            raise answer
        return answer

    def _resolves(self, name: str, collection_list: Sequence[str]) -> bool | None:
        if name in ALWAYS_VALID:
            return True
        if self.core is None:
            return None
        found = [self._resolve(name, collection_list, kind) for kind in ("modules", "action")]
        if True in found:
            return True
        return None if None in found else False

    def _resolve(self, name: str, collection_list: Sequence[str], kind: str, depth: int = 0) -> bool | None:
        if depth > MAX_REDIRECTS:
            return None
        fqcr = name.count(".") >= 2
        if fqcr or collection_list:
            candidates = [name] if "." in name or not collection_list else [f"{c}.{name}" for c in collection_list]
            for candidate in candidates:
                if candidate.startswith("ansible.legacy."):
                    found = self._legacy(candidate.removeprefix("ansible.legacy."), kind, depth)
                else:
                    found = self._in_collection(candidate, kind, depth)
                if found is not False:
                    return found
            return False
        return self._legacy(name, kind, depth)

    def _legacy(self, name: str, kind: str, depth: int) -> bool | None:
        """Configured and adjacent plugin directories, ansible-core's own, then builtin routing."""
        assert self.core is not None
        directories = (self.module_paths + [self.core.module_dir] if kind == "modules"
                       else self.action_paths + [self.core.action_dir])
        if any(name in _plugin_files(d, kind == "action") or f"_{name}" in _plugin_files(d, kind == "action")
               for d in directories):
            return True
        if "." not in name:  # last chance: a redirect of ansible.builtin
            return self._in_collection(f"ansible.builtin.{name}", kind, depth)
        return False

    def _in_collection(self, fqcn: str, kind: str, depth: int) -> bool | None:
        collection, _, resource = fqcn.rpartition(".")
        namespace, _, rest = collection.partition(".")
        collection_name, _, subdirs = rest.partition(".")
        collection = f"{namespace}.{collection_name}"
        if collection == "ansible.builtin":
            assert self.core is not None
            directory = self.core.module_dir if kind == "modules" else self.core.action_dir
            if resource in _plugin_files(directory, kind == "action"):
                return True  # ansible-core routes none of its own modules elsewhere: spare reading the table
            runtime = self.core.runtime
        elif collection in SYNTHETIC:
            return False
        else:
            root = self.collections.collection_dir(collection)
            if root is None:
                return False
            directory = os.path.join(root, "plugins", kind, *(subdirs.split(".") if subdirs else []))
            runtime = os.path.join(root, "meta", "runtime.yml")
        from engine.plugins.routing import routing_entry  # only for names not found as files

        entry = routing_entry(runtime, kind, f"{subdirs}.{resource}" if subdirs else resource)
        if isinstance(entry, dict):
            if "tombstone" in entry:
                raise PluginRemoved(_removal_message(fqcn, entry["tombstone"], kind))
            redirect = entry.get("redirect")
            if isinstance(redirect, str) and redirect:
                return self._resolve(redirect, (), kind, depth + 1)
        if resource in _plugin_files(directory, kind == "action"):
            return True
        # the source of a collection under edit: its build may gather the roles' modules into
        # plugins/modules (ansible-freeipa's does), so a role's library/ module is the collection's
        return kind == "modules" and collection in self.collections.sources and any(
            resource in _plugin_files(os.path.join(root, "roles", role, "library"), False)
            for role in _role_names(os.path.join(root, "roles")))


def _role_names(directory: str) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _removal_message(fqcn: str, tombstone: Any, kind: str) -> str:
    """``PluginLoader._find_fq_plugin``'s words for a tombstone: a module, or an action plugin, then
    when it was removed and by whom (``get_deprecation_message_with_plugin_info``, removed, the
    collection as the deprecator: ansible-core for ansible.builtin)."""
    details = tombstone if isinstance(tombstone, dict) else {}
    text = f"The {fqcn!r} {'module' if kind == 'modules' else 'action plugin'} has been removed."
    warning = details.get("warning_text")
    if isinstance(warning, str) and warning:
        text = f"{text} {warning}"
    collection = ".".join(fqcn.split(".")[:2])
    date, version = details.get("removal_date"), details.get("removal_version")
    when = f"in a release after {date}" if date else f"version {version}" if version else ""
    removal = " ".join(part for part in ("This feature was removed from", "ansible-core" if collection ==
                                         "ansible.builtin" else f"collection {collection!r}", when) if part)
    return f"{_sentence(text)} {removal}."


def _sentence(text: str) -> str:
    """``join_sentences``' first part: stripped, ended with a full stop unless it has one."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def plugin_names_for(collections: CollectionFinder, module_paths: Iterable[str], action_paths: Iterable[str],
                     core_finder: Callable[[], AnsibleCore | None] = find_ansible_core) -> PluginNames:
    names = PluginNames(core_finder(), collections)
    names.module_paths += [p for p in module_paths if paths.isdir(p)]
    names.action_paths += [p for p in action_paths if paths.isdir(p)]
    return names

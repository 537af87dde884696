"""What a cached ``check`` result depends on besides the checked files' contents.

A finding can change without any checked file changing: installing the collection a PLS113
finding asked for, an ``ansible-playbook`` put on PATH (its site-packages hold the ``ansible``
package's collections), another ansible.cfg or ``ANSIBLE_*`` variable, a role or a module added
to a search directory. These are looked at by their identity on disk (``stat``: inode, size,
modification and change times), never by reading the trees: installing a collection or a role,
or adding a module file, creates entries and so changes the identity of the directories holding
them, and ansible-galaxy and pip create the files they install anew.

Two kinds of inputs:

- :func:`run_inputs`, part of the whole cache's key: the ``ANSIBLE_*`` environment, the
  ansible.cfg files outside the checked tree, the interpreter paths searched for collections
  (which depend on the ``ansible-playbook`` on PATH) and the ansible-core found there, with its
  version;
- :class:`Probes`, kept with each unit's result (a playbook, or a role no playbook uses): the
  search settings of the ansible.cfg the unit was resolved with, each collection root ansible
  searches for it (present or not), its roles path, its module and action plugin directories
  (configured, beside its playbooks and beside its roles). A cached unit is taken only while
  every one of them is as it was.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable

from engine import files
from engine.config import AnsibleConfig
from engine.plugins import names as plugin_names
from engine.plugins.collection_search import python_paths, root_candidates
from engine.user_cache import blake2b
from playbook_ls.check import discover

# ansible reads only its own variables (the ansible.cfg paths expand others: those are taken
# in their expanded form, see Probes.config); these change what playbook-ls itself reads
OWN_ENVIRONMENT = ("PLAYBOOK_LS_MAX_FILE_SIZE", "HOME")
# the parts of an installed collection whose identity tells its plugins, roles and playbooks
# (a directory's identity changes with its listing) and its routing (redirects, tombstones)
COLLECTION_PARTS = ("MANIFEST.json", "galaxy.yml", os.path.join("meta", "runtime.yml"), "plugins",
                    os.path.join("plugins", "modules"), os.path.join("plugins", "action"),
                    os.path.join("plugins", "doc_fragments"), "roles", "playbooks")
PLUGIN_DIRS = ("library", "action_plugins")
CONFIG_BYTES = 1024 * 1024  # an ansible.cfg is a few kilobytes


def is_ansible_variable(name: str) -> bool:
    return name.startswith("ANSIBLE_")


def identity(path: str) -> str:
    """What tells a file or directory apart from the one that was there before: "" when there
    is none. Through links, as ansible follows them (a collection linked to a checkout): a link
    pointed elsewhere names another directory, with another inode."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return ""
    kind = "d" if stat.S_ISDIR(info.st_mode) else "f" if stat.S_ISREG(info.st_mode) else "o"
    return f"{kind}{info.st_ino:x}.{info.st_size:x}.{info.st_mtime_ns:x}.{info.st_ctime_ns:x}"


def _content(path: str) -> str | None:
    """A small file's content hash (an ansible.cfg, ansible-core's release.py), None when absent."""
    try:
        return blake2b(files.read_bytes(path, CONFIG_BYTES), digest_size=16).hexdigest()
    except OSError:
        return None


def run_inputs(cwd: str) -> list[object]:
    """The inputs every unit of a run shares (see the module's docstring)."""
    environment = sorted((name, value) for name, value in os.environ.items() if is_ansible_variable(name))
    environment += [(name, os.environ.get(name)) for name in OWN_ENVIRONMENT]
    config = os.environ.get("ANSIBLE_CONFIG")
    configs = [os.path.join(cwd, "ansible.cfg"), os.path.expanduser("~/.ansible.cfg"), "/etc/ansible/ansible.cfg"]
    if config:
        config = os.path.abspath(os.path.expanduser(config))
        configs.append(config)
        configs.append(os.path.join(config, "ansible.cfg"))
    core = plugin_names.find_ansible_core()
    core_identity = None
    if core is not None:  # which modules it has, its routing table, and its version
        core_identity = [core.package, identity(core.module_dir), identity(core.action_dir), _content(core.runtime),
                         _content(os.path.join(core.package, "release.py"))]
    return [environment, [(path, _content(path)) for path in configs], python_paths(), core_identity,
            sys.version_info[:2]]


class Probes:
    """The identities of what units depend on outside the checked files, each looked at once per
    run however many units share it (first before a unit is resolved: a change made while it is
    resolved then shows at the next run). A probe is a string: ``stat:PATH`` (a file's or directory's
    :func:`identity`), ``tree:ROOT`` (a collection root's installed collections) or
    ``config:PATH`` (the search settings ``PATH`` is resolved with)."""

    def __init__(self, config_for: object) -> None:
        self._config_for = config_for  # ProjectConfigs.for_path
        self._known: dict[str, str] = {}
        self._places: dict[str, str] = {}

    def value(self, probe: str) -> str:
        known = self._known.get(probe)
        if known is None:
            kind, _, path = probe.partition(":")
            if kind == "stat":
                known = identity(path)
            elif kind == "tree":
                known = self._tree(path)
            elif kind == "config":
                known = self._config(path)
            else:
                known = "?"  # not a probe this version makes: never equal to a stored value
            self._known[probe] = known
        return known

    def unchanged(self, probes: dict[str, str]) -> bool:
        return all(self.value(probe) == value for probe, value in probes.items())

    def of_unit(self, path: str, playbook_dirs: list[str], read: Iterable[str]) -> dict[str, str]:
        """The probes of a unit resolved for ``path`` with ``playbook_dirs`` (whose ``collections/``
        ansible searches), having read ``read``: the roles and the directories of the other files
        read (its playbooks) are where it searched ``library/`` and ``action_plugins/``."""
        config = self._config_for(path)  # type: ignore[operator]
        assert isinstance(config, AnsibleConfig)
        wanted = [f"config:{path}"]
        wanted += [f"tree:{root}" for root in root_candidates(
            playbook_dirs, config.collections_path, config.collections_scan_sys_path)]
        search = [*config.roles_path, *config.library, *config.action_plugins,
                  *(os.path.join(d, "roles") for d in playbook_dirs)]
        places = {*playbook_dirs, *map(self._place, {os.path.dirname(os.path.abspath(p)) for p in read})}
        search += [os.path.join(place, sub) for place in sorted(places) for sub in PLUGIN_DIRS]
        wanted += [f"stat:{entry}" for entry in dict.fromkeys(search)]
        return {probe: self.value(probe) for probe in wanted}

    def _place(self, directory: str) -> str:
        """The role a file of ``directory`` belongs to, else the directory itself."""
        place = self._places.get(directory)
        if place is None:
            place = self._places[directory] = discover.role_of(os.path.join(directory, "file")) or directory
        return place

    def _config(self, path: str) -> str:
        config = self._config_for(path)  # type: ignore[operator]
        assert isinstance(config, AnsibleConfig)
        settings = (config.path, config.roles_path, config.collections_path, config.collections_scan_sys_path,
                    config.library, config.action_plugins)
        return blake2b(repr(settings).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    @staticmethod
    def _tree(root: str) -> str:
        """The installed collections of a root, by the identity of each namespace and collection
        directory and of the parts of each collection that decide what names resolve to."""
        digest = blake2b(digest_size=16)
        base = os.path.join(root, "ansible_collections")
        digest.update(identity(base).encode())
        for namespace in _directories(base):
            digest.update(f"\n{namespace}:{identity(os.path.join(base, namespace))}".encode("utf-8", "surrogateescape"))
            for collection in _directories(os.path.join(base, namespace)):
                directory = os.path.join(base, namespace, collection)
                parts = [identity(directory), *(identity(os.path.join(directory, part)) for part in COLLECTION_PARTS)]
                digest.update(f"\n {collection}:{','.join(parts)}".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()


def _directories(directory: str) -> list[str]:
    """The subdirectories of ``directory`` (through links, as ansible's loader sees them), sorted."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entry.name for entry in entries if _is_dir(entry))
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False

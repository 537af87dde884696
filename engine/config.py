"""The slice of ansible configuration that changes what a playbook resolves to.

Read the way ansible-core reads it: ``ANSIBLE_CONFIG``, then ``./ansible.cfg``, then
``~/.ansible.cfg``, then ``/etc/ansible/ansible.cfg`` (first found wins); environment
variables override the file. Relative ``roles_path`` entries in the file are relative to
the file's directory.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Callable, Iterable


def _split_list(value: str) -> list[str]:
    """ansible's ``list`` config type: comma-separated, stripped, empty items kept."""
    return [item.strip() for item in value.split(",")]


def _expand_paths(value: str, relative_to: str) -> list[str]:
    paths = []
    for item in value.split(os.pathsep):
        item = os.path.expanduser(os.path.expandvars(item.strip()))
        if item:
            paths.append(os.path.normpath(os.path.join(relative_to, item)))
    return paths


def _boolean(value: str) -> bool:
    """ansible's ``boolean`` config type (``convert_bool.boolean`` with strict=False)."""
    return value.strip().lower() in {"y", "yes", "on", "1", "true", "t"}


def find_config_file(cwd: str | None = None) -> str | None:
    cwd = cwd or os.getcwd()
    env = os.environ.get("ANSIBLE_CONFIG")
    candidates = []
    if env is not None:
        env = os.path.abspath(os.path.expanduser(env))
        candidates.append(os.path.join(env, "ansible.cfg") if os.path.isdir(env) else env)
    try:
        if not os.stat(cwd).st_mode & 0o002:  # ansible skips a world-writable cwd
            candidates.append(os.path.join(cwd, "ansible.cfg"))
    except OSError:
        pass
    candidates += [os.path.expanduser("~/.ansible.cfg"), "/etc/ansible/ansible.cfg"]
    return next((path for path in candidates if os.path.isfile(path)), None)


class AnsibleConfig:
    """``roles_path``, ``collections_path``, ``collections_scan_sys_path`` and the ``[tags]``
    defaults, from the config file ``path`` and the environment."""

    def __init__(self, path: str | None = None, roles_path: list[str] | None = None) -> None:
        self.path = path
        self.roles_path: list[str] = roles_path or []
        self.collections_path: list[str] = []
        self.collections_scan_sys_path = True
        self.library: list[str] = []  # module paths searched for short module names
        self.action_plugins: list[str] = []
        self.run_tags: list[str] = []
        self.skip_tags: list[str] = []
        # collections whose source is in the repository being edited or checked (ns.name -> dir);
        # the command line, like ansible, leaves this empty
        self.collection_sources: dict[str, str] = {}

    @classmethod
    def load(cls, cwd: str | None = None) -> AnsibleConfig:
        cwd = os.path.abspath(cwd or os.getcwd())
        path = find_config_file(cwd)
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        if path:
            try:
                parser.read(path, encoding="utf-8")
            except (configparser.Error, OSError, UnicodeDecodeError):
                parser = configparser.ConfigParser(interpolation=None)
        home = os.path.expanduser(os.environ.get("ANSIBLE_HOME", "~/.ansible"))
        default_roles = f"{home}/roles:/usr/share/ansible/roles:/etc/ansible/roles"
        config = cls(path=path)

        def pathspec(env: str, key: str, default: str) -> list[str]:
            """A ``pathspec`` setting: the environment (relative to cwd), else the file (relative
            to its directory), else the default."""
            if env in os.environ:
                return _expand_paths(os.environ[env], cwd)
            if parser.has_option("defaults", key):
                return _expand_paths(parser.get("defaults", key), os.path.dirname(path or cwd))
            return _expand_paths(default, cwd)

        config.roles_path = pathspec("ANSIBLE_ROLES_PATH", "roles_path", default_roles)
        config.collections_path = pathspec("ANSIBLE_COLLECTIONS_PATH", "collections_path",
                                           f"{home}/collections:/usr/share/ansible/collections")
        config.library = pathspec("ANSIBLE_LIBRARY", "library",
                                  f"{home}/plugins/modules:/usr/share/ansible/plugins/modules")
        config.action_plugins = pathspec("ANSIBLE_ACTION_PLUGINS", "action_plugins",
                                         f"{home}/plugins/action:/usr/share/ansible/plugins/action")
        scan = os.environ.get("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH")
        if scan is None and parser.has_option("defaults", "collections_scan_sys_path"):
            scan = parser.get("defaults", "collections_scan_sys_path")
        if scan is not None:
            config.collections_scan_sys_path = _boolean(scan)
        for attr, env, key in (("run_tags", "ANSIBLE_RUN_TAGS", "run"), ("skip_tags", "ANSIBLE_SKIP_TAGS", "skip")):
            if env in os.environ:
                setattr(config, attr, _split_list(os.environ[env]))
            elif parser.has_option("tags", key):
                setattr(config, attr, _split_list(parser.get("tags", key)))
        return config


class ProjectConfigs:
    """The ansible.cfg each file of a tree is resolved with, for the editor and ``check``.

    ansible reads the ``ansible.cfg`` of the directory it is run from, so a repository holding
    several projects (each with its own ansible.cfg, roles and collections) is run from each
    project's directory. A file is therefore resolved with the configuration of the nearest
    directory, from its own up to ``root``, that holds an ``ansible.cfg``; without one, with the
    configuration found from ``root`` (``~/.ansible.cfg``, ...). ``ANSIBLE_CONFIG`` wins for every
    file, as it does in ansible. ``extra_roles_path`` (playbook-ls's own setting) is appended to
    every configuration's ``roles_path``.
    """

    def __init__(self, root: str, extra_roles_path: list[str] | None = None) -> None:
        self.root = os.path.abspath(root)
        self.extra_roles_path = list(extra_roles_path or ())
        self.collection_sources: dict[str, str] = {}
        self._by_dir: dict[str, AnsibleConfig] = {}
        self._project_dir: dict[str, str] = {}
        self.default = self._load(self.root)

    def _load(self, directory: str) -> AnsibleConfig:
        config = self._by_dir.get(directory)
        if config is None:
            config = AnsibleConfig.load(directory)
            config.roles_path = [*config.roles_path, *self.extra_roles_path]
            config.collection_sources = self.collection_sources
            self._by_dir[directory] = config
        return config

    def find_collection_sources(self, files: Iterable[str], read_data: Callable[[str], object],
                                checked: Iterable[str] = ()) -> None:
        """Take the collections whose source lies among ``files`` (their ``galaxy.yml``, read with
        ``read_data``), or holds one of the ``checked`` paths (a ``galaxy.yml`` in a directory
        above it, the nearest), for every configuration, loaded or to come."""
        from engine.collection_search import collection_sources

        galaxy = {f for f in files if os.path.basename(f) == "galaxy.yml"}
        for path in checked:
            directory = os.path.abspath(path)
            while True:
                if os.path.isfile(os.path.join(directory, "galaxy.yml")):
                    galaxy.add(os.path.join(directory, "galaxy.yml"))
                    break
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent
        found = collection_sources(galaxy, read_data)
        self.collection_sources.clear()
        self.collection_sources.update(found)

    def _directories(self, path: str) -> list[str]:
        """``path``'s directory and its parents up to ``root`` (none when outside it)."""
        directory = os.path.dirname(os.path.abspath(path))
        if os.path.commonpath([directory, self.root]) != self.root:
            return []
        chain = [directory]
        while directory != self.root:
            directory = os.path.dirname(directory)
            chain.append(directory)
        return chain

    def candidates(self, path: str) -> list[str]:
        """Every ``ansible.cfg`` that would decide ``path``'s configuration if it existed (a
        cache of results depends on them, present or not)."""
        if "ANSIBLE_CONFIG" in os.environ:
            return []
        return [os.path.join(directory, "ansible.cfg") for directory in self._directories(path)]

    def project_dir(self, path: str) -> str:
        """The directory ansible would be run from for ``path``: the nearest one with an
        ansible.cfg, else ``root``."""
        directory = os.path.dirname(os.path.abspath(path))
        known = self._project_dir.get(directory)
        if known is None:
            known = self.root
            if "ANSIBLE_CONFIG" not in os.environ:
                for candidate in self._directories(path):
                    if os.path.isfile(os.path.join(candidate, "ansible.cfg")):
                        known = candidate
                        break
            self._project_dir[directory] = known
        return known

    def for_path(self, path: str) -> AnsibleConfig:
        return self._load(self.project_dir(path))

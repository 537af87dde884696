"""The slice of ansible configuration that changes what a playbook resolves to.

Read the way ansible-core reads it: ``ANSIBLE_CONFIG``, then ``./ansible.cfg``, then
``~/.ansible.cfg``, then ``/etc/ansible/ansible.cfg`` (first found wins); environment
variables override the file. Relative ``roles_path`` entries in the file are relative to
the file's directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from engine.booleans import boolean

TYPE_CHECKING = False
if TYPE_CHECKING:
    import configparser
    from typing import Any


REJECT_EXTS = (".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst")
DEFAULT_HOST_LIST = "/etc/ansible/hosts"


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


def _unquote(value: str) -> str:
    """ansible's ``unquote``: one pair of matching quotes around the whole value goes."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def split_unquoted(value: str) -> list[str]:
    """ansible's ``list`` config type as ``ensure_type`` reads it: each item stripped and unquoted."""
    return [_unquote(item.strip()) for item in value.split(",")]


def resolve_path(value: str, relative_to: str) -> str:
    """ansible's ``resolve_path`` (``unfrackpath`` without following links)."""
    value = os.path.expanduser(os.path.expandvars(value.replace("{{CWD}}", os.getcwd())))
    return os.path.normpath(os.path.join(relative_to, value))


_Read = tuple["str | None", "configparser.ConfigParser | None"]
_read_once: ContextVar[dict[Any, Any] | None] = ContextVar("config read once", default=None)


@contextmanager
def config_read_once() -> Iterator[None]:
    """Within: the configuration is read once, as ansible reads it once when it starts (a plan
    asks for settings at every task's reading, each a look at four paths): each setting as the
    environment and config file give it at its first reading, the config file found once for each
    working directory given. Scoped to one computation: the next one, after an edit, reads them
    afresh."""
    token = _read_once.set({}) if _read_once.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _read_once.reset(token)


def _config_read(cwd: str | None = None) -> _Read:
    """The config file (None: none) and its parsed sections (None: none, or unreadable)."""
    memo = _read_once.get()
    if memo is None:
        return _config_found(cwd)
    found: _Read | None = memo.get(cwd)
    if found is None:
        found = memo[cwd] = _config_found(cwd)
    return found


def _config_found(cwd: str | None) -> _Read:
    path = _find_config_file(cwd)
    if not path:
        return None, None
    try:
        info = os.stat(path)
    except OSError:
        return path, None
    return path, _parsed_config(path, info.st_mtime_ns, info.st_size)


def find_config_file(cwd: str | None = None) -> str | None:
    """The config file ansible reads (None: none), as :func:`config_read_once` keeps it."""
    return _config_read(cwd)[0]


def _find_config_file(cwd: str | None = None) -> str | None:
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


HASH_BEHAVIOUR_CHOICES = ("replace", "merge")
TRANSFORM_INVALID_GROUP_CHARS_CHOICES = ("always", "never", "ignore", "silently")
"""In ansible's order (its error for another value lists them so)."""


class InventorySettings:
    """The settings that change how ansible reads an inventory (``[defaults]``/``[inventory]``
    in ansible.cfg, each overridden by its ``ANSIBLE_*`` environment variable).

    A plain class rather than a dataclass: importing ``dataclasses`` (with ``inspect``) and building
    the listing's few dataclasses were a sixth of listing a small playbook."""

    def __init__(self, *, sources: list[str] | None = None, enabled_plugins: list[str] | None = None,
                 unparsed_is_failed: bool = False, unparsed_warning: bool = True,
                 any_unparsed_is_failed: bool = False, ignore_extensions: list[str] | None = None,
                 ignore_patterns: list[str] | None = None, host_pattern_mismatch: str = "warning",
                 localhost_warning: bool = True, playbook_dir: str | None = None, export: bool = False,
                 hash_behaviour: str = "replace", transform_invalid_group_chars: str = "never",
                 inject_facts_as_vars: bool = True, inventory_plugin_path: list[str] | None = None,
                 config_file: str | None = None, collections_path: list[str] | None = None,
                 collections_scan_sys_path: bool = True, yaml_extensions: list[str] | None = None,
                 vars_extensions: list[str] | None = None) -> None:
        self.sources = [DEFAULT_HOST_LIST] if sources is None else sources
        """``DEFAULT_HOST_LIST``: the sources read when there is no ``-i``."""
        self.enabled_plugins = ["host_list", "script", "auto", "yaml", "ini", "toml"] if enabled_plugins is None \
            else enabled_plugins
        self.unparsed_is_failed = unparsed_is_failed
        self.unparsed_warning = unparsed_warning
        self.any_unparsed_is_failed = any_unparsed_is_failed
        self.ignore_extensions = [*REJECT_EXTS, ".orig", ".cfg", ".retry"] if ignore_extensions is None \
            else ignore_extensions
        self.ignore_patterns: list[str] = [] if ignore_patterns is None else ignore_patterns
        self.host_pattern_mismatch = host_pattern_mismatch
        self.localhost_warning = localhost_warning
        """``LOCALHOST_WARNING``: warn when the inventory has no hosts (only the implicit localhost)."""
        self.playbook_dir = playbook_dir
        """``PLAYBOOK_DIR``: the default of ``--playbook-dir``."""
        self.export = export
        """``INVENTORY_EXPORT``: the default of ``--export``."""
        self.hash_behaviour = hash_behaviour
        """``DEFAULT_HASH_BEHAVIOUR``: ``merge`` merges dictionaries defined at several levels."""
        self.transform_invalid_group_chars = transform_invalid_group_chars
        """``TRANSFORM_INVALID_GROUP_CHARS`` (``force_valid_group_names``): keep (``never``,
        ``ignore``) or replace (``always``, ``silently``) invalid characters in group names."""
        self.inject_facts_as_vars = inject_facts_as_vars
        """``INJECT_FACTS_AS_VARS``: when false, ansible gives every host ``ansible_local`` from its
        (here always empty) facts."""
        self.inventory_plugin_path: list[str] = [] if inventory_plugin_path is None else inventory_plugin_path
        """``DEFAULT_INVENTORY_PLUGIN_PATH``: where ansible looks for inventory plugins by short name
        (besides ``inventory_plugins/`` in the playbook directory)."""
        self.config_file = config_file
        """The ansible.cfg these settings come from (part of what a plugin's cached result depends on)."""
        self.collections_path: list[str] = [] if collections_path is None else collections_path
        self.collections_scan_sys_path = collections_scan_sys_path
        self.yaml_extensions = [".yaml", ".yml", ".json"] if yaml_extensions is None else yaml_extensions
        """The ``yaml`` plugin's ``yaml_extensions``: the extensions of the files it reads (or none)."""
        self.vars_extensions = [".yml", ".yaml", ".json"] if vars_extensions is None else vars_extensions
        """``YAML_FILENAME_EXTENSIONS``: the extensions of ``group_vars``/``host_vars`` files (or none)."""
        """Where an ``auto`` configuration's collection plugin (``amazon.aws.aws_ec2``) is looked for,
        as ansible's plugin loader looks: only to tell "installed" from "unknown", never to run it."""

    def __eq__(self, other: object) -> bool:
        return type(other) is InventorySettings and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        return f"InventorySettings({', '.join(f'{name}={value!r}' for name, value in vars(self).items())})"


class _NoConfigFile:
    """The settings of no ansible.cfg: none (and configparser is not even imported)."""

    def has_option(self, section: str, option: str) -> bool:
        return False

    def get(self, section: str, option: str) -> str:
        raise KeyError(f"[{section}] {option}")


class _SettingReader:
    """One setting as ansible's config manager finds it: the first environment variable set,
    else the last of its ini keys present in the file."""

    def __init__(self, parser: configparser.ConfigParser | _NoConfigFile, path: str | None, cwd: str) -> None:
        self.parser, self.path, self.cwd = parser, path, cwd
        self.errors: list[str] = []

    def raw(self, env: str, *ini: tuple[str, str]) -> tuple[str | None, str]:
        """The value and the directory relative paths in it are resolved from."""
        if env in os.environ:
            return os.environ[env], self.cwd
        value = None
        for section, key in ini:
            if self.parser.has_option(section, key):
                value = _unquote(self.parser.get(section, key))
        return value, os.path.dirname(self.path or self.cwd)

    def last_list(self, default: list[str], envs: tuple[str, ...], *ini: tuple[str, str]) -> list[str]:
        """A plugin option's list: the last of ``envs`` set (ansible's config loops over all of a
        plugin option's entries, the last found winning), else the last ini key present."""
        for env in reversed(envs[1:]):
            if env in os.environ:
                return split_unquoted(os.environ[env])
        return self.list(default, envs[0], *ini)

    def boolean(self, default: bool, env: str, *ini: tuple[str, str]) -> bool:
        value, _ = self.raw(env, *ini)
        return default if value is None else boolean(value)  # the config's boolean type: not strict

    def list(self, default: list[str], env: str, *ini: tuple[str, str]) -> list[str]:
        value, _ = self.raw(env, *ini)
        return list(default) if value is None else split_unquoted(value)

    def choice(self, default: str, choices: tuple[str, ...], name: str, env: str, *ini: tuple[str, str]) -> str:
        """A setting with ``choices``: a value outside them is ansible's start-up error (kept in
        ``errors``; the default is used meanwhile)."""
        value, _ = self.raw(env, *ini)
        if value is None:
            return default
        if value not in choices:
            self.errors.append(f"Invalid value {value!r} for config {name!r}. Valid values are: {', '.join(choices)}")
            return default
        return value

    def inventory(self) -> InventorySettings:
        settings = InventorySettings()
        sources, relative_to = self.raw("ANSIBLE_INVENTORY", ("defaults", "inventory"))
        if sources:  # pathlist: every item is a path, even in "a,b," (ansible resolves host lists too)
            settings.sources = [resolve_path(item.strip(), relative_to) for item in sources.split(",")]
        settings.enabled_plugins = self.list(settings.enabled_plugins, "ANSIBLE_INVENTORY_ENABLED",
                                             ("inventory", "enable_plugins"))
        settings.unparsed_is_failed = self.boolean(False, "ANSIBLE_INVENTORY_UNPARSED_FAILED",
                                                   ("inventory", "unparsed_is_failed"))
        settings.unparsed_warning = self.boolean(True, "ANSIBLE_INVENTORY_UNPARSED_WARNING",
                                                 ("inventory", "inventory_unparsed_warning"))
        settings.any_unparsed_is_failed = self.boolean(False, "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED",
                                                       ("inventory", "any_unparsed_is_failed"))
        settings.ignore_extensions = self.list(settings.ignore_extensions, "ANSIBLE_INVENTORY_IGNORE",
                                               ("defaults", "inventory_ignore_extensions"),
                                               ("inventory", "ignore_extensions"))
        settings.ignore_patterns = self.list([], "ANSIBLE_INVENTORY_IGNORE_REGEX",
                                             ("defaults", "inventory_ignore_patterns"),
                                             ("inventory", "ignore_patterns"))
        settings.host_pattern_mismatch = self.choice("warning", ("error", "warning", "ignore"), "HOST_PATTERN_MISMATCH",
                                                     "ANSIBLE_HOST_PATTERN_MISMATCH",
                                                     ("inventory", "host_pattern_mismatch"))
        settings.localhost_warning = self.boolean(True, "ANSIBLE_LOCALHOST_WARNING", ("defaults", "localhost_warning"))
        playbook_dir, relative_to = self.raw("ANSIBLE_PLAYBOOK_DIR", ("defaults", "playbook_dir"))
        if playbook_dir:
            settings.playbook_dir = resolve_path(playbook_dir, relative_to)
        settings.export = self.boolean(False, "ANSIBLE_INVENTORY_EXPORT", ("inventory", "export"))
        settings.hash_behaviour = self.choice("replace", HASH_BEHAVIOUR_CHOICES, "DEFAULT_HASH_BEHAVIOUR",
                                              "ANSIBLE_HASH_BEHAVIOUR", ("defaults", "hash_behaviour"))
        settings.transform_invalid_group_chars = self.choice(
            "never", TRANSFORM_INVALID_GROUP_CHARS_CHOICES, "TRANSFORM_INVALID_GROUP_CHARS",
            "ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS", ("defaults", "force_valid_group_names"))
        settings.inject_facts_as_vars = self.boolean(True, "ANSIBLE_INJECT_FACT_VARS",
                                                     ("defaults", "inject_facts_as_vars"))
        settings.yaml_extensions = self.last_list(settings.yaml_extensions,
                                                  ("ANSIBLE_YAML_FILENAME_EXT", "ANSIBLE_INVENTORY_PLUGIN_EXTS"),
                                                  ("defaults", "yaml_valid_extensions"),
                                                  ("inventory_plugin_yaml", "yaml_valid_extensions"))
        settings.vars_extensions = self.list(settings.vars_extensions, "ANSIBLE_YAML_FILENAME_EXT",
                                             ("defaults", "yaml_valid_extensions"))
        return settings


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
        self.callback_plugins: list[str] = []  # DEFAULT_CALLBACK_PLUGIN_PATH
        self.run_tags: list[str] = []
        self.skip_tags: list[str] = []
        # collections whose source is in the repository being edited or checked (ns.name -> dir);
        # the command line, like ansible, leaves this empty
        self.collection_sources: dict[str, str] = {}
        self.inventory = InventorySettings()
        self.fact_caching = "memory"  # CACHE_PLUGIN: another keeps the facts of earlier runs
        self.fact_caching_connection: str | None = None  # the jsonfile cache's directory (absolute)
        self.fact_caching_prefix = ""
        self.fact_caching_timeout = 86400.0
        self.vars_plugins_enabled: list[str] = ["host_group_vars"]
        self.remote_user: str | None = None
        """``DEFAULT_REMOTE_USER``: the play context's user where no ``remote_user`` keyword or ``-u``
        gives one (its ``ansible_user`` then)."""
        self.errors: list[str] = []
        """Values ansible refuses when it starts (every command then stops with exit code 5)."""

    def command_line_tags(self, tags: list[str] | None, skip_tags: list[str] | None) -> tuple[list[str], list[str]]:
        """``--tags`` and ``--skip-tags`` as ansible-playbook takes them: each adds to the
        ``[tags] run`` / ``skip`` setting (argparse appends to the configured default)."""
        return [*self.run_tags, *(tags or [])], [*self.skip_tags, *(skip_tags or [])]

    @classmethod
    def load(cls, cwd: str | None = None) -> AnsibleConfig:
        cwd = os.path.abspath(cwd or os.getcwd())
        path = find_config_file(cwd)
        parser: configparser.ConfigParser | _NoConfigFile = _NoConfigFile()
        if path:
            import configparser

            parser = configparser.ConfigParser(interpolation=None, strict=False)
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
        config.callback_plugins = pathspec("ANSIBLE_CALLBACK_PLUGINS", "callback_plugins",
                                           f"{home}/plugins/callback:/usr/share/ansible/plugins/callback")
        scan = os.environ.get("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH")
        if scan is None and parser.has_option("defaults", "collections_scan_sys_path"):
            scan = parser.get("defaults", "collections_scan_sys_path")
        if scan is not None:
            config.collections_scan_sys_path = boolean(scan)
        for attr, env, key in (("run_tags", "ANSIBLE_RUN_TAGS", "run"), ("skip_tags", "ANSIBLE_SKIP_TAGS", "skip")):
            if env in os.environ:
                setattr(config, attr, _split_list(os.environ[env]))
            elif parser.has_option("tags", key):
                setattr(config, attr, _split_list(parser.get("tags", key)))
        reader = _SettingReader(parser, path, cwd)
        config.inventory = reader.inventory()
        config.fact_caching = reader.raw("ANSIBLE_CACHE_PLUGIN", ("defaults", "fact_caching"))[0] or "memory"
        connection, relative_to = reader.raw("ANSIBLE_CACHE_PLUGIN_CONNECTION", ("defaults", "fact_caching_connection"))
        if connection:
            config.fact_caching_connection = os.path.join(relative_to, os.path.expanduser(connection))
        config.fact_caching_prefix = reader.raw("ANSIBLE_CACHE_PLUGIN_PREFIX", ("defaults", "fact_caching_prefix"))[0] \
            or ""
        timeout = reader.raw("ANSIBLE_CACHE_PLUGIN_TIMEOUT", ("defaults", "fact_caching_timeout"))[0]
        try:
            config.fact_caching_timeout = float(timeout) if timeout else 86400.0
        except ValueError:
            config.fact_caching_timeout = 86400.0
        config.vars_plugins_enabled = reader.list(config.vars_plugins_enabled, "ANSIBLE_VARS_ENABLED",
                                                  ("defaults", "vars_plugins_enabled"))
        config.remote_user = reader.raw("ANSIBLE_REMOTE_USER", ("defaults", "remote_user"))[0] or None
        config.errors = reader.errors
        config.inventory.inventory_plugin_path = pathspec(
            "ANSIBLE_INVENTORY_PLUGINS", "inventory_plugins",
            f"{home}/plugins/inventory:/usr/share/ansible/plugins/inventory")
        config.inventory.config_file = path
        config.inventory.collections_path = config.collections_path
        config.inventory.collections_scan_sys_path = config.collections_scan_sys_path
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
        from engine.plugins.collection_search import collection_sources

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


def named_setting(env: str, section: str, key: str, value: str) -> str:
    """A setting as a message names it: its key and value, and where ansible reads it."""
    return f"the setting {key} = {value.strip()} ([{section}] of ansible.cfg or {env})"


def config_value(env: str | None, section: str, key: str) -> str | None:
    """A setting as ansible reads it: the environment first (``env``; None: a setting no variable
    sets), then the config file (parsed once while it is unchanged: variable levels ask for
    settings at every task)."""
    memo = _read_once.get()
    if memo is None:
        return _config_value(env, section, key)
    setting = (env, section, key)
    if setting not in memo:
        memo[setting] = _config_value(env, section, key)
    return memo[setting]  # type: ignore[no-any-return]


def _config_value(env: str | None, section: str, key: str) -> str | None:
    if env is not None and env in os.environ:
        return os.environ[env]
    parser = _config_read()[1]
    return parser.get(section, key) if parser is not None and parser.has_option(section, key) else None


def config_path(env: str, section: str, key: str, cwd: str | None = None, empty_is_unset: bool = True) -> str | None:
    """A ``path`` setting as ansible resolves it (``resolve_path``): from the environment relative
    to the working directory, from the config file (unquoted) relative to the file's directory;
    None when it is unset, or empty unless ``empty_is_unset`` is false (ansible then resolves it
    to that directory)."""
    cwd = cwd or os.getcwd()
    if env in os.environ:
        value, relative_to = os.environ[env], cwd
    else:
        found = config_value(None, section, key)
        value = None if found is None else _unquote(found.strip())
        relative_to = os.path.dirname(find_config_file(cwd) or cwd)
    if value is None or empty_is_unset and not value.strip():
        return None
    return resolve_path(value.strip(), relative_to)


@lru_cache(maxsize=16)
def _parsed_config(path: str, _mtime_ns: int, _size: int) -> configparser.ConfigParser | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    return parser


def config_flag(env: str, section: str, key: str) -> bool:
    """A boolean setting that is on unless the environment or ansible.cfg turns it off (a value
    that is no boolean leaves it on)."""
    from engine.booleans import boolean

    value = config_value(env, section, key)
    try:
        return value is None or bool(boolean(value))
    except (TypeError, ValueError):
        return True


def inject_facts_as_vars() -> bool:
    """INJECT_FACTS_AS_VARS (default true): facts also become top-level ``ansible_*`` variables."""
    value = config_value("ANSIBLE_INJECT_FACT_VARS", "defaults", "inject_facts_as_vars")
    return True if value is None else boolean(value)


def configured_forks() -> int:
    """DEFAULT_FORKS: ansible.cfg's or the environment's ``forks``, else 5."""
    value = config_value("ANSIBLE_FORKS", "defaults", "forks")
    try:
        return int(value) if value is not None else 5
    except ValueError:
        return 5

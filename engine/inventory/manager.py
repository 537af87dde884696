"""Reading inventory sources in ansible's order: ansible-core's ``InventoryManager.parse_sources``.

Each ``-i`` source is tried, in order, by the enabled inventory plugins (ansible.cfg's
``[inventory] enable_plugins``; by default ``host_list``, ``script``, ``auto``, ``yaml``, ``ini``,
``toml``; ``advanced_host_list`` when enabled; ``generator`` and collections' plugins are not run
here): the first that accepts the source and parses it wins; when all fail, their errors
become warnings and the source is reported as not parsed, or the load stops
(``any_unparsed_is_failed``, ``unparsed_is_failed``), as in ansible. A directory is read entry
by entry (sorted, skipping hidden files, ``group_vars``/``host_vars`` and the configured ignored
extensions and patterns).

What makes an inventory dynamic runs only when the caller passes ``dynamic=True`` (the
``inventory``, ``launch`` and ``run`` commands): executable scripts, and the templates of the
``constructed`` plugin. Otherwise (the server, ``check``, listings) such a source adds nothing
and a note says so.
"""

from __future__ import annotations

import os
import re

from engine import files
from engine.config import DEFAULT_HOST_LIST, InventorySettings
from engine.inventory.combine import combine_vars
from engine.inventory.data import Group, Host, InventoryData, InventoryError, sort_groups
from engine.inventory.plugins import BUILTIN_PLUGINS, enabled_plugins
from engine.inventory.script import ScriptError, ScriptRunner, is_script, parse_script
from engine.inventory.vars_files import (
    YAML_FILENAME_EXTENSIONS,
    VarsFiles,
    playbook_vars_directories,
    source_directories,
)
from engine.parsing.source import SourceCache
from engine.records import NamedTuple
from engine.vault import configured_secrets, is_vaulted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from engine.inventory.plugins import NamedPlugin
    from engine.inventory.unrun import UnrunSource


IGNORED_ALWAYS = (r"^\.", "^host_vars$", "^group_vars$", "^vars_plugins$")
"""Directory entries ansible never reads as inventory, whatever the settings."""

DECLINED = object()
"""What a plugin run by ansible-core returns when it did not want the source: the next one tries."""
CONSTRUCTED_NAMES = ("constructed", "ansible.builtin.constructed")
INTERNAL_STATIC_VARS = frozenset((
    "ansible_async_path", "ansible_collection_name", "ansible_config_file", "ansible_dependent_role_names",
    "ansible_diff_mode", "ansible_facts", "ansible_forks", "ansible_inventory_sources", "ansible_limit",
    "ansible_play_batch", "ansible_play_hosts", "ansible_play_hosts_all", "ansible_play_role_names",
    "ansible_playbook_python", "ansible_role_name", "ansible_role_names", "ansible_run_tags", "ansible_skip_tags",
    "ansible_verbosity", "ansible_version", "inventory_dir", "inventory_file", "inventory_hostname",
    "inventory_hostname_short", "groups", "group_names", "hostvars", "playbook_dir", "play_hosts", "role_name",
    "role_names", "role_path", "role_uuid",
))
"""Variables ansible-inventory leaves out of what it prints (ansible's ``C.INTERNAL_STATIC_VARS``)."""


class SourceFailure(NamedTuple):
    """One plugin's reason for refusing a source (ansible shows them when no plugin succeeded)."""

    source: str
    plugin: str
    message: str
    detail: str = ""


class Inventory:
    """The result of reading inventory sources: the graph plus what happened on the way.

    Vars files come from two places, as in ansible: beside each inventory source
    (``vars_files``) and in the playbook directory (``play_vars_files``), which is
    ``playbook_dir`` when one was given (``--playbook-dir``, or the playbook being run) and
    otherwise ``working_dir``, the directory ansible-inventory runs in.
    """

    def __init__(self, data: InventoryData, sources: list[str], cache: SourceCache, *,
                 shared_from: Inventory | None = None, playbook_dir: str | None = None,
                 working_dir: str | None = None, facts_as_vars: bool = True,
                 vars_extensions: Iterable[str] = YAML_FILENAME_EXTENSIONS) -> None:
        """``shared_from``: the inventory whose notes, failures and warnings this one shares
        (:meth:`with_playbook_dir`)."""
        self.data, self.sources, self.cache = data, sources, cache
        self.notes: list[str] = shared_from.notes if shared_from else []
        self.unrun: list[UnrunSource] = shared_from.unrun if shared_from else []
        """The sources left unread on purpose, each with what it may still change (engine.inventory.unrun)."""
        self.failures: list[SourceFailure] = shared_from.failures if shared_from else []
        self.warnings: list[str] = shared_from.warnings if shared_from else []
        self.parsed = shared_from.parsed if shared_from else False
        self.report: list[SourceFailure | str] = shared_from.report if shared_from else []
        """The failures and warnings in the order ansible displays them (source by source)."""
        self.plugin_warnings: list[str] = shared_from.plugin_warnings if shared_from else []
        """Enabled plugin names that are not plugins: ansible warns about them before anything else."""
        self.playbook_dir = playbook_dir
        self.working_dir = working_dir if working_dir is not None else os.getcwd()
        self.facts_as_vars = facts_as_vars
        self.extra_vars: dict[str, Any] = shared_from.extra_vars if shared_from else {}
        """``-e``: above everything in a host's variables (not exported), as ansible's variable manager
        puts them; ``constructed`` with ``use_extra_vars`` sees them too."""
        """``inject_facts_as_vars``: when false, ansible promotes the host's ``ansible_local`` fact (no
        facts are read here, so ``{}``) over its variables."""
        self._per_playbook_dir: dict[str, Inventory] = {}
        # values others compute from this inventory, kept as long as it is (a cache of their own
        # would keep every inventory read again after a change)
        self.derived: dict[str, Any] = {}
        merge = self.data.merge_hashes
        self.vars_extensions = tuple(vars_extensions)
        self.vars_files = VarsFiles(source_directories(self.sources), self.cache, merge, self.vars_extensions)
        self.play_vars_files = VarsFiles(playbook_vars_directories(self.playbook_dir or self.working_dir), self.cache,
                                         merge, self.vars_extensions)

    def with_playbook_dir(self, playbook_dir: str) -> Inventory:
        """This inventory with ``playbook_dir``'s group_vars/host_vars as the playbook's: a play of
        a playbook imported from another directory reads those beside it. One per directory, so
        that their files are read once."""
        if self.playbook_dir == playbook_dir:
            return self
        found = self._per_playbook_dir.get(playbook_dir)
        if found is None:
            found = self._per_playbook_dir[playbook_dir] = Inventory(
                self.data, self.sources, self.cache, shared_from=self, playbook_dir=playbook_dir,
                working_dir=self.working_dir, facts_as_vars=self.facts_as_vars, vars_extensions=self.vars_extensions)
        return found

    def add_warning(self, message: str) -> None:
        self.warnings.append(message)
        self.report.append(message)

    def _given_play_vars(self, entities: list[Host | Group]) -> dict[str, Any]:
        """ansible-inventory reads the playbook directory's vars for groups and for ``--export``
        only when a playbook directory was given, not the working directory it falls back to."""
        return self.play_vars_files.variables(entities) if self.playbook_dir else {}

    def group_variables(self, group: Group) -> dict[str, Any]:
        """What ``ansible-inventory --graph --vars`` shows for a group: its own vars, then its vars
        files beside the sources, then those of a given playbook directory."""
        result = self._combined(group.get_vars(), self.vars_files.variables([group]), self._given_play_vars([group]))
        if group.priority != 1:
            result["ansible_group_priority"] = group.priority
        return _without_internal(result)

    def host_variables(self, host: Host, export: bool = False) -> dict[str, Any]:
        """A host's variables as ``ansible-inventory --host``/``--list`` print them (ansible's
        ``VariableManager.get_vars`` precedence, without a play, with the default
        ``VARIABLE_PRECEDENCE``): ``all``'s vars, the groups' vars (by depth, priority, name),
        ``all``'s vars files (sources', then the playbook directory's), the groups' vars files
        (the same way), the host's own, its files (the same way).

        ``export`` (``--export``): the host's own vars and its files only, as ansible exports them."""
        if export:
            result = self._combined(host.get_vars(), self.vars_files.variables([host]), self._given_play_vars([host]))
            return _without_internal(result)
        all_group = self.data.groups["all"]
        groups: list[Host | Group] = list(sort_groups([g for g in host.get_groups() if g.name != "all"]))
        # the groups' own vars are combined together first (ansible's get_group_vars), then into
        # the result: with hash_behaviour=merge that grouping can change the outcome
        groups_inventory = self._combined(*(group.get_vars() for group in groups))
        result = self._combined(
            all_group.get_vars(), groups_inventory,
            self.vars_files.variables([all_group]), self.play_vars_files.variables([all_group]),
            self.vars_files.variables(groups), self.play_vars_files.variables(groups),
            host.get_vars(), self.vars_files.variables([host]), self.play_vars_files.variables([host]),
            {} if self.facts_as_vars else {"ansible_local": {}}, self.extra_vars)
        return _without_internal(result)

    def _combined(self, *layers: dict[str, Any]) -> dict[str, Any]:
        """``layers`` combined in order (later wins) as ``hash_behaviour`` says, each into the
        result of the ones before, as ansible's variable manager folds them."""
        result: dict[str, Any] = {}
        for layer in layers:
            result = combine_vars(result, layer, self.data.merge_hashes)
        return result


class InventoryAborted(Exception):
    """ansible stopped reading the inventory with this error (exit code 1); ``inventory`` holds
    what was read and warned about until then."""

    def __init__(self, message: str, inventory: Inventory) -> None:
        super().__init__(message)
        self.inventory = inventory


def ignored_entries(settings: InventorySettings) -> re.Pattern[str]:
    """The directory entries not read as inventory: ansible's ``IGNORED`` from the settings."""
    return re.compile("|".join([*IGNORED_ALWAYS, *settings.ignore_patterns,
                                *(re.escape(ext) + "$" for ext in settings.ignore_extensions)]))


def _without_internal(variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if k not in INTERNAL_STATIC_VARS}


class _SourceReader:
    def __init__(self, inventory: Inventory, dynamic: bool, runner: ScriptRunner,
                 settings: InventorySettings, flush_cache: bool = False, plugin_basedir: str | None = None) -> None:
        self.inventory = inventory
        self.flush_cache = flush_cache
        self.basedir = plugin_basedir or inventory.playbook_dir
        self.data = inventory.data
        self.dynamic = dynamic
        self.runner = runner
        self.settings = settings
        self.plugin_extra_vars: dict[str, Any] | None = None
        """What ``constructed``'s ``use_extra_vars`` sees when not the inventory's ``extra_vars``."""
        self._ignored: re.Pattern[str] | None = None
        self.plugins, self.plugin_warnings, self.external = enabled_plugins(settings, self.basedir)
        self.given: set[str] = set()
        """The sources as given (``-i``, ansible.cfg), not the files of a directory source."""
        self.not_run: set[str] = set()
        """Sources left unread on purpose (code that may not run here): neither parsed nor failed."""

    def parse_source(self, source: str) -> bool:
        if os.path.isdir(source):
            parsed = False
            if self._ignored is None:  # only a directory source needs it
                self._ignored = ignored_entries(self.settings)
            entries = [os.path.join(source, name) for name in sorted(os.listdir(source))
                       if not self._ignored.search(name)]
            for entry in entries:
                parsed = self.parse_source(entry) or parsed
            if not parsed and not self.not_run.intersection(entries):  # as for a file: none could be read
                self._unparsed(source)
            return parsed
        if len(self.plugin_warnings) == len(self.settings.enabled_plugins):  # not one name is a plugin
            raise InventoryAborted("No inventory plugins available to generate inventory, make sure you have at "
                                   "least one enabled.", self.inventory)
        self.data.current_source = source
        failures: list[SourceFailure] = []
        parsed = False
        available = self._plugins(source)
        encrypted = os.path.isfile(source) and is_vaulted(source)
        if encrypted and configured_secrets() is not None:  # ansible decrypts it: what it holds is the run's
            self.data.current_source = None
            self._not_run(source, f"dynamic inventory: {source} is vault-encrypted, and playbook-ls never decrypts",
                          "vault-encrypted")
            return False
        for name, plugin in self.plugins:
            wants, parse = available[name]
            if not wants:
                continue
            if encrypted:  # every plugin's read of it fails: ansible has no vault secrets here
                failures.append(SourceFailure(source, plugin, _no_secrets(name)))
                continue
            before = self.data.variables_set
            try:
                result = parse()
                if result is False:
                    break  # declined on purpose (code that may not run here): neither parsed nor failed
                if result is DECLINED:
                    continue  # a plugin ansible ran did not want the source (its verify_file)
                parsed = True
                break
            except ScriptError as exc:
                failures.append(SourceFailure(source, plugin, str(exc), exc.stderr))
            except InventoryError as exc:
                failures.append(SourceFailure(source, plugin, _located(exc, source)))
            except (TypeError, ValueError, KeyError, AttributeError) as exc:  # malformed data, worded by Python
                failures.append(SourceFailure(source, plugin, str(exc)))
            finally:
                if self.data.trust_by_default is None and self.data.variables_set > before:
                    self.data.trust_by_default = name == "toml"
        self.data.current_source = None
        if parsed:
            self.data.processed_sources.append(source)
        elif source in self.not_run:
            pass  # code not run on purpose is not a failure
        elif source != DEFAULT_HOST_LIST or os.path.exists(source):  # a missing default is no news
            self.inventory.failures.extend(failures)
            self.inventory.report.extend(failures)
            self._unparsed(source)
        return parsed

    def _unparsed(self, source: str) -> None:
        if self.settings.any_unparsed_is_failed:
            raise InventoryAborted(f"Completely failed to parse inventory source {source}", self.inventory)
        self.inventory.add_warning(f"Unable to parse {source} as an inventory source")

    def _plugins(self, source: str) -> dict[str, tuple[bool, Any]]:
        """Each implemented plugin: whether it accepts ``source`` (its ``verify_file``) and its parser."""
        exists = os.path.exists(source)
        readable = exists and os.access(source, os.R_OK)
        ext = os.path.splitext(source)[1]
        return {
            "host_list": (not exists and "," in source, lambda: self._host_list(source)),
            "script": (readable and is_script(source), lambda: self._script(source)),
            "auto": (readable and source.endswith((".yml", ".yaml")), lambda: self._auto(source)),
            "yaml": (readable and (not ext or ext in self.settings.yaml_extensions), lambda: self._yaml(source)),
            "ini": (readable and ext != ".toml", lambda: self._ini(source)),
            "advanced_host_list": (not exists and "," in source, lambda: self._host_list(source, expand_ranges=True)),
            "toml": (readable and ext == ".toml", lambda: self._toml(source)),
            "constructed": (readable and _plugin_config_file(source, self.settings.vars_extensions),
                            lambda: self._by_name(source, "constructed")),
            "generator": (readable and _plugin_config_file(source, self.settings.vars_extensions),
                          lambda: self._by_name(source, "generator")),
            **{name: (True, lambda plugin=plugin, name=name: self._external(source, name, plugin))
               for name, plugin in self.external.items()},
        }

    def _host_list(self, source: str, expand_ranges: bool = False) -> None:
        from engine.inventory.host_list import parse_host_list

        parse_host_list(self.data, source, expand_ranges)

    def _script(self, source: str) -> bool:
        if not self.dynamic:
            self._not_run(source, f"dynamic inventory: {source} not run", "script")
            return False
        parse_script(self.data, source, self.runner)
        return True

    def _load_yaml(self, source: str) -> Any:
        loaded = self.inventory.cache.load(source)
        if loaded.error:
            raise InventoryError(f"YAML parsing failed: {loaded.error}")
        return loaded.data

    def _auto(self, source: str) -> bool | None:
        """The ``auto`` plugin: the configuration's ``plugin:`` names the plugin that reads it."""
        from engine.inventory.plugins import find_plugin

        config = self._load_yaml(source)
        plugin_name = config.get("plugin") if isinstance(config, dict) else None
        if not plugin_name:
            raise InventoryError(f"no root 'plugin' key found, '{source}' is not a valid YAML inventory plugin "
                                 "config file")
        plugin = find_plugin(str(plugin_name), BUILTIN_PLUGINS, self.settings, self.basedir)
        if plugin.load_warning:
            self.inventory.add_warning(plugin.load_warning)
        if plugin.kind == "unknown":
            raise InventoryError(f"inventory config '{source}' specifies unknown plugin '{plugin_name}'")
        if plugin.kind == "installed":
            return self._external(source, "auto", plugin)
        if plugin.name == "auto":  # ansible's auto plugin calls itself until Python's stack runs out
            raise InventoryError("YAML parsing failed: maximum recursion depth exceeded while calling a Python object")
        verified, parse = self._plugins(source)[plugin.name]
        if not verified:
            raise InventoryError(f"inventory source '{source}' could not be verified by inventory plugin "
                                 f"'{plugin_name}'")
        if plugin.name in ("constructed", "generator"):
            self._templated(source, plugin.name, config)
            return None
        return parse()

    def _not_run(self, source: str, note: str, plugin: str, config: Any = None) -> None:
        from engine.inventory.unrun import unrun_source

        self.not_run.add(source)
        self.inventory.notes.append(note)
        self.inventory.unrun.append(unrun_source(source, plugin, config, list(self.data.hosts)))

    def _external(self, source: str, enabled: str, plugin: NamedPlugin) -> Any:
        """A plugin playbook-ls does not implement: ansible-core reads the source with ``enabled``
        (``auto`` or the plugin's name) in a child process, where running code is allowed."""
        from engine.inventory.external import Request, add_to_inventory, read_source
        from engine.inventory.plugins import not_run_note

        if not self.dynamic:
            self._not_run(source, not_run_note(plugin.name, source), plugin.name)
            return False
        request = Request(source, enabled, plugin.path, self.basedir, self.settings.config_file,
                          trust=self.data.trust_by_default)
        document = read_source(request, self.flush_cache)
        meta = document["_meta"]
        if self.data.trust_by_default is None:
            self.data.trust_by_default = meta.get("trust")
        if meta["parsed"]:
            add_to_inventory(self.data, document)
            return True
        if meta["failures"]:
            # the plugin failed part way: ansible keeps the hosts, groups and variables it added before
            add_to_inventory(self.data, document)
            raise InventoryError(meta["failures"][0]["message"])
        return DECLINED

    def _by_name(self, source: str, name: str) -> None:
        """``constructed`` or ``generator`` enabled by name: their ``_read_config_data`` accepts only a
        configuration that names the plugin exactly as it was enabled."""
        config = self._load_yaml(source)
        if not config:
            raise InventoryError(f"{source} is empty")
        if not isinstance(config, dict):
            raise InventoryError(f"'{type(config).__name__}' object has no attribute 'get'")
        written = dict((short, shown) for short, shown in self.plugins)[name]
        if config.get("plugin") != (name if written == name else f"ansible.builtin.{name}"):
            raise InventoryError(f"Incorrect plugin name in file: {config.get('plugin', 'none found')}")
        self._templated(source, name, config)

    def _templated(self, source: str, name: str, config: dict[str, Any]) -> None:
        """The single place ``constructed`` and ``generator`` are applied from: where no code may
        run, only when their templates need none (engine.inventory.templated_sources)."""
        from engine.config import AnsibleConfig
        from engine.inventory import templated_sources

        caching = AnsibleConfig.load().fact_caching
        why = None if self.dynamic else templated_sources.refusal(name, config, bool(self.not_run), caching)
        if why is not None:
            self._not_run(source, f"dynamic inventory: {source} not run: {why}", name, config)
            return
        if name == "generator":
            from engine.inventory.generator import parse_generator

            parse_generator(self.data, config)
            return
        from engine.inventory.constructed import parse_constructed

        parse_constructed(self.data, source, config, self.inventory.vars_files,
                          self.plugin_extra_vars if self.plugin_extra_vars is not None else self.inventory.extra_vars,
                          templated_sources.cached_facts() if caching in templated_sources.JSONFILE_CACHES else None)

    def _toml(self, source: str) -> None:
        from engine.inventory.toml_source import parse_toml_inventory

        parse_toml_inventory(self.data, self._read_text(source), source,
                             untrusted_values=self.data.trust_by_default is False)

    def _yaml(self, source: str) -> None:
        from engine.inventory.yaml_source import parse_yaml_inventory

        parse_yaml_inventory(self.data, self._load_yaml(source))

    def _read_text(self, source: str) -> str:
        try:
            return self.inventory.cache.read_text(source)
        except OSError as exc:
            raise InventoryError(f"cannot read {source}: {exc.strerror or exc}") from None

    def _ini(self, source: str) -> None:
        # ansible-core 2.19 leaves a source with a comma as given (tagged with its origin, relative
        # if it was) and its ini plugin cannot record a tagged or a relative path: the file fails,
        # whatever it holds (so do the files of such a directory, relative too)
        if "," in source and source in self.given:
            raise InventoryError("Failed to parse inventory: Origin.path must be <class 'NoneType'> or <class 'str'> "
                                 "instead of <class 'ansible.module_utils._internal._datatag._AnsibleTaggedStr'>")
        if not os.path.isabs(source):
            raise InventoryError("Failed to parse inventory: The `src` field must be an absolute path.")
        try:
            text = self._read_text(source)
        except UnicodeDecodeError:  # ansible's ini plugin skips undecodable comment lines
            text = "\n".join("" if line[:1] in (b";", b"#") else line.decode("utf-8", "surrogateescape")
                             for line in files.read_bytes(source).splitlines())
        from engine.inventory.ini import parse_ini  # with ast and shlex: only for an INI source

        parse_ini(self.data, text, source)


def _no_secrets(plugin: str) -> str:
    """A plugin's failure on a vault-encrypted source when ansible has no vault secrets."""
    from engine.vault import NO_SECRETS

    return f"Failed to parse inventory: {NO_SECRETS}" if plugin == "ini" else NO_SECRETS


def _plugin_config_file(source: str, extensions: Iterable[str] = YAML_FILENAME_EXTENSIONS) -> bool:
    """``constructed``'s and ``generator``'s ``verify_file``: no extension, ``.config`` or one of
    ``yaml_valid_extensions``."""
    ext = os.path.splitext(source)[1]
    return not ext or ext in (".config", *extensions)


def _located(exc: InventoryError, source: str) -> str:
    line = getattr(exc, "line", None)
    return f"{exc}" if line is None else f"{exc} ({source}:{line})"


def load_inventory(sources: list[str], cache: SourceCache | None = None, dynamic: bool = False,
                   runner: ScriptRunner | None = None, playbook_dir: str | None = None,
                   settings: InventorySettings | None = None, flush_cache: bool = False,
                   plugin_basedir: str | None = None, extra_vars: Mapping[str, Any] | None = None,
                   plugin_extra_vars: Mapping[str, Any] | None = None) -> Inventory:
    """Read ``sources`` (``-i`` values, in order) into one :class:`Inventory`, as ansible does.

    Executable scripts, ``constructed`` and ``generator`` configurations and plugins ansible-core
    runs for us (a user's, a collection's) run only with ``dynamic=True``; otherwise each adds a
    note ``dynamic inventory: <path> not run ...`` and nothing else. ``flush_cache`` reads the
    latter again instead of answering from the cache. ``plugin_basedir`` (default ``playbook_dir``)
    is the directory whose ``inventory_plugins/`` ansible adds, its base directory.
    ``playbook_dir`` is ``--playbook-dir`` or the directory of the playbook being run: its
    ``group_vars``/``host_vars`` apply above those beside the sources. ``settings`` (ansible.cfg's,
    the defaults when not given) choose the plugins, the ignored directory entries and when a
    source that cannot be parsed stops the load: then :class:`InventoryAborted` is raised.
    ``extra_vars`` (``-e``) top every host's variables and reach ``constructed``'s ``use_extra_vars``;
    ``plugin_extra_vars`` only reach the latter (ansible-playbook's ``-e``, which the run's own
    variable precedence puts above the inventory's variables).
    """
    settings = settings or InventorySettings()
    data = InventoryData(merge_hashes=settings.hash_behaviour == "merge",
                         transform_invalid_group_chars=settings.transform_invalid_group_chars)
    inventory = Inventory(data, list(sources), cache or SourceCache(), playbook_dir=playbook_dir,
                          facts_as_vars=settings.inject_facts_as_vars, vars_extensions=settings.vars_extensions)
    inventory.extra_vars = dict(extra_vars or {})
    reader = _SourceReader(inventory, dynamic, runner or ScriptRunner(), settings, flush_cache, plugin_basedir)
    reader.plugin_extra_vars = dict(plugin_extra_vars) if plugin_extra_vars is not None else None
    inventory.plugin_warnings = reader.plugin_warnings
    for source in sources:
        if not source:
            continue
        if "," not in source:
            source = os.path.abspath(os.path.expanduser(source))
        reader.given.add(source)
        inventory.parsed = reader.parse_source(source) or inventory.parsed
    if inventory.parsed:
        inventory.data.reconcile_inventory()
    elif settings.unparsed_is_failed:
        raise InventoryAborted("No inventory was parsed, please check your configuration and options.", inventory)
    elif settings.unparsed_warning:
        inventory.add_warning("No inventory was parsed, only implicit localhost is available")
    return inventory

"""Reading inventory sources in ansible's order: ansible-core's ``InventoryManager.parse_sources``.

Each ``-i`` source is tried, in order, by the inventory plugins ansible enables by default
(``host_list``, ``script``, ``auto``, ``yaml``, ``ini``; ``toml`` is not supported here): the
first that accepts the source and parses it wins; when all fail, their errors become warnings
and the source is reported as not parsed, as ansible does. A directory is read entry by entry
(sorted, skipping hidden files, ``group_vars``/``host_vars`` and ansible's ignored extensions).

What makes an inventory dynamic runs only when the caller passes ``dynamic=True`` (the
``inventory``, ``launch`` and ``run`` commands): executable scripts, and the templates of the
``constructed`` plugin. Otherwise (the server, ``check``, listings) such a source adds nothing
and a note says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from engine import files
from engine.inventory.data import Group, Host, InventoryData, InventoryError, sort_groups
from engine.inventory.ini import parse_ini
from engine.inventory.script import ScriptError, ScriptRunner, is_script, parse_script
from engine.inventory.vars_files import YAML_FILENAME_EXTENSIONS, VarsFiles
from engine.inventory.yaml_source import parse_yaml_inventory
from engine.source import SourceCache

REJECT_EXTS = (".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst")
INVENTORY_IGNORE_EXTS = (*REJECT_EXTS, ".orig", ".cfg", ".retry")
IGNORED = re.compile("|".join([r"^\.", "^host_vars$", "^group_vars$", "^vars_plugins$",
                               *(re.escape(ext) + "$" for ext in INVENTORY_IGNORE_EXTS)]))
"""Directory entries ansible never reads as inventory."""

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


@dataclass(frozen=True)
class SourceFailure:
    """One plugin's reason for refusing a source (ansible shows them when no plugin succeeded)."""

    source: str
    plugin: str
    message: str
    detail: str = ""


@dataclass
class Inventory:
    """The result of reading inventory sources: the graph plus what happened on the way."""

    data: InventoryData
    sources: list[str]
    cache: SourceCache
    notes: list[str] = field(default_factory=list)
    failures: list[SourceFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    parsed: bool = False

    def __post_init__(self) -> None:
        self.vars_files = VarsFiles(self.sources, self.cache)

    def group_variables(self, group: Group) -> dict[str, Any]:
        """What ``ansible-inventory --graph --vars`` shows for a group: its own vars, then its vars files."""
        result = group.get_vars() | self.vars_files.variables([group])
        if group.priority != 1:
            result["ansible_group_priority"] = group.priority
        return _without_internal(result)

    def host_variables(self, host: Host) -> dict[str, Any]:
        """A host's variables as ``ansible-inventory --host``/``--list`` print them (ansible's
        ``VariableManager.get_vars`` precedence, without a play): ``all``'s vars, the groups' vars
        (by depth, priority, name), ``all``'s then the groups' vars files, the host's own, its file."""
        all_group = self.data.groups["all"]
        groups = sort_groups([g for g in host.get_groups() if g.name != "all"])
        result: dict[str, Any] = all_group.get_vars()
        for group in groups:
            result |= group.get_vars()
        result |= self.vars_files.variables([all_group])
        result |= self.vars_files.variables(groups)
        result |= host.get_vars()
        result |= self.vars_files.variables([host])
        return _without_internal(result)


def _without_internal(variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if k not in INTERNAL_STATIC_VARS}


class _SourceReader:
    def __init__(self, inventory: Inventory, dynamic: bool, runner: ScriptRunner) -> None:
        self.inventory = inventory
        self.data = inventory.data
        self.dynamic = dynamic
        self.runner = runner

    def parse_source(self, source: str) -> bool:
        if os.path.isdir(source):
            parsed = False
            for name in sorted(os.listdir(source)):
                if not IGNORED.search(name):
                    parsed = self.parse_source(os.path.join(source, name)) or parsed
            return parsed
        self.data.current_source = source
        failures: list[SourceFailure] = []
        parsed = False
        for plugin, wants, parse in self._plugins(source):
            if not wants:
                continue
            try:
                if parse() is False:
                    break  # declined on purpose (a script that may not run): neither parsed nor failed
                parsed = True
                break
            except ScriptError as exc:
                failures.append(SourceFailure(source, plugin, str(exc), exc.stderr))
            except InventoryError as exc:
                failures.append(SourceFailure(source, plugin, _located(exc, source)))
            except (TypeError, ValueError, KeyError, AttributeError) as exc:  # malformed data, worded by Python
                failures.append(SourceFailure(source, plugin, str(exc)))
        self.data.current_source = None
        if parsed:
            self.data.processed_sources.append(source)
        elif not (self.inventory.notes and self.inventory.notes[-1].endswith(f"{source} not run")):
            self.inventory.failures.extend(failures)
            self.inventory.warnings.append(f"Unable to parse {source} as an inventory source")
        return parsed

    def _plugins(self, source: str) -> list[tuple[str, bool, Any]]:
        exists = os.path.exists(source)
        readable = exists and os.access(source, os.R_OK)
        ext = os.path.splitext(source)[1]
        return [
            ("host_list", not exists and "," in source, lambda: self._host_list(source)),
            ("script", readable and is_script(source), lambda: self._script(source)),
            ("auto", readable and source.endswith((".yml", ".yaml")), lambda: self._auto(source)),
            ("yaml", readable and (not ext or ext in YAML_FILENAME_EXTENSIONS), lambda: self._yaml(source)),
            ("ini", readable and ext != ".toml", lambda: self._ini(source)),
        ]

    def _host_list(self, source: str) -> None:
        from engine.inventory.host_list import parse_host_list

        parse_host_list(self.data, source)

    def _script(self, source: str) -> bool:
        if not self.dynamic:
            self.inventory.notes.append(f"dynamic inventory: {source} not run")
            return False
        parse_script(self.data, source, self.runner)
        return True

    def _load_yaml(self, source: str) -> Any:
        loaded = self.inventory.cache.load(source)
        if loaded.error:
            raise InventoryError(f"YAML parsing failed: {loaded.error}")
        return loaded.data

    def _auto(self, source: str) -> None:
        config = self._load_yaml(source)
        plugin_name = config.get("plugin") if isinstance(config, dict) else None
        if not plugin_name:
            raise InventoryError(f"no root 'plugin' key found, '{source}' is not a valid YAML inventory plugin "
                                 "config file")
        if plugin_name not in CONSTRUCTED_NAMES:
            raise InventoryError(f"inventory config '{source}' specifies unknown plugin '{plugin_name}'")
        self._constructed(source, config)

    def _constructed(self, source: str, config: dict[str, Any]) -> None:
        """The single place the ``constructed`` plugin is called from."""
        if not source.endswith((".config", ".yml", ".yaml")):
            raise InventoryError(f"inventory source '{source}' could not be verified by inventory plugin "
                                 f"'{config.get('plugin')}'")
        if not self.dynamic:
            self.inventory.notes.append(f"dynamic inventory: {source} not run")
            return
        from engine.inventory.constructed import parse_constructed

        parse_constructed(self.data, source, config, self.inventory.vars_files)

    def _yaml(self, source: str) -> None:
        parse_yaml_inventory(self.data, self._load_yaml(source))

    def _ini(self, source: str) -> None:
        try:
            text = self.inventory.cache.read_text(source)
        except UnicodeDecodeError:
            text = "\n".join("" if line[:1] in (b";", b"#") else line.decode("utf-8", "surrogateescape")
                             for line in files.read_bytes(source).splitlines())
        except OSError as exc:
            raise InventoryError(f"cannot read {source}: {exc.strerror or exc}") from None
        parse_ini(self.data, text)


def _located(exc: InventoryError, source: str) -> str:
    line = getattr(exc, "line", None)
    return f"{exc}" if line is None else f"{exc} ({source}:{line})"


def load_inventory(sources: list[str], cache: SourceCache | None = None, dynamic: bool = False,
                   runner: ScriptRunner | None = None) -> Inventory:
    """Read ``sources`` (``-i`` values, in order) into one :class:`Inventory`, as ansible does.

    Executable scripts and ``constructed`` configurations run only with ``dynamic=True``;
    otherwise each adds the note ``dynamic inventory: <path> not run`` and nothing else.
    """
    inventory = Inventory(InventoryData(), list(sources), cache or SourceCache())
    reader = _SourceReader(inventory, dynamic, runner or ScriptRunner())
    for source in sources:
        if not source:
            continue
        if "," not in source:
            source = os.path.abspath(os.path.expanduser(source))
        inventory.parsed = reader.parse_source(source) or inventory.parsed
    if inventory.parsed:
        inventory.data.reconcile_inventory()
    else:
        inventory.warnings.append("No inventory was parsed, only implicit localhost is available")
    return inventory

"""``playbook-ls inventory``: what ``ansible-inventory`` prints (``--list``, ``--graph``, ``--host``),
and ``--list-hosts PATTERN`` as ``ansible PATTERN --list-hosts`` prints it.

This command runs executable inventory scripts and inventory plugins, as ansible-inventory
does: the user asked for the inventory of exactly these sources.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING

from playbook_ls.cli.inventory_output import (
    OutputError,
    dump,
    graph,
    group_values,
    list_inventory,
    toml_inventory,
    yaml_inventory,
)
from playbook_ls.cli.options import HelpFormatter, add_selection_options, add_vault_options

if TYPE_CHECKING:  # the engine is imported when the command runs, to keep start-up lean
    from engine.config import InventorySettings
    from engine.inventory.data import Host
    from engine.inventory.manager import Inventory

EXIT_OPTIONS = 5
"""ansible's exit code for bad options (``AnsibleOptionsError``)."""


EXAMPLES = """\
examples:
  playbook-ls inventory -i inventory.ini --graph
  playbook-ls inventory -i inventory/ --list
  playbook-ls inventory -i inventory/ --list --yaml --export
  playbook-ls inventory -i inventory/hosts --playbook-dir . --host web1
  playbook-ls inventory -i inventory.ini --host web1
  playbook-ls inventory -i inventory.ini --list-hosts 'web:&prod'
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    help_text = "show the inventory like ansible-inventory (--list, --graph, --host) or ansible --list-hosts"
    description = (help_text + ". Runs the inventory's scripts and plugins (code from the repository), as "
                   "ansible-inventory does: that is what it is asked for.")
    parser = sub.add_parser("inventory", help=help_text, description=description, epilog=EXAMPLES,
                            formatter_class=HelpFormatter)
    parser.add_argument("-i", "--inventory", action="append", default=[], metavar="SOURCE",
                        help="inventory host list (a,b,), file, directory or script; repeatable")
    parser.add_argument("--list", action="store_true", help="print the whole inventory as JSON")
    parser.add_argument("--host", metavar="HOST", help="print one host's variables as JSON")
    parser.add_argument("--graph", action="store_true", help="print the group tree (from the GROUP argument, or all)")
    parser.add_argument("--list-hosts", metavar="PATTERN", help="print the hosts a pattern selects")
    parser.add_argument("--vars", action="store_true", dest="show_vars", help="with --graph: show variables")
    parser.add_argument("-y", "--yaml", action="store_true", help="--list and --host as YAML instead of JSON")
    parser.add_argument("--toml", action="store_true",
                        help="--list and --host as TOML (needs the tomli-w library, as ansible-inventory does)")
    parser.add_argument("--export", action="store_true", default=None,
                        help="--list: each group's own variables under 'vars', each host's own under hostvars "
                             "(default: ansible.cfg's [inventory] export)")
    parser.add_argument("--playbook-dir", metavar="DIR", default=None,
                        help="read group_vars/ and host_vars/ here too, above those beside the sources (default: "
                             "ansible.cfg's playbook_dir; for host variables, the current directory)")
    add_selection_options(parser, tags=False)
    add_vault_options(parser)
    parser.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--flush-cache", action="store_true",
                        help="refresh the inventory plugins' own caches (a source with cache: true) instead of "
                             "answering from them, as ansible-inventory --flush-cache does")
    parser.add_argument("group", nargs="?", default="all", metavar="GROUP", help="the group --graph starts at")
    parser.set_defaults(handler=run_inventory)


def _fail(message: str, code: int = EXIT_OPTIONS) -> int:
    print(f"[ERROR]: {message}", file=sys.stderr)
    return code


def _warn(message: str) -> None:
    print(f"[WARNING]: {message}", file=sys.stderr)


def run_inventory(args: argparse.Namespace) -> int:
    actions = [bool(args.list), args.host is not None, bool(args.graph), args.list_hosts is not None]
    if not any(actions):
        return _fail("No action selected, at least one of --host, --graph or --list needs to be specified.")
    if sum(actions) > 1:
        return _fail("Conflicting options used, only one of --host, --graph or --list can be used at the same time.")
    from engine.config import AnsibleConfig
    from engine.inventory.manager import InventoryAborted, load_inventory
    from engine.variables.magic import command_line_sources

    config = AnsibleConfig.load()
    if config.errors:  # ansible refuses such a value before it reads anything
        print(f"ERROR: {config.errors[0]}", file=sys.stderr)
        return EXIT_OPTIONS
    from engine.vault import password_file_error

    if (vault_error := password_file_error()) is not None:  # and its vault secrets, before any source
        print(f"ERROR: {vault_error}", file=sys.stderr)
        return 1
    settings = config.inventory
    sources = command_line_sources(args.inventory, settings.sources)
    playbook_dir = _playbook_dir(args.playbook_dir or settings.playbook_dir)
    export = settings.export if args.export is None else args.export
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.listing import parse_extra_vars

    cache = SourceCache.for_command()
    extra_vars, problem = parse_extra_vars(args.extra_vars or [], cache)
    if problem:
        return _fail(problem, 1)
    try:
        inventory = load_inventory(sources, cache, dynamic=True, playbook_dir=playbook_dir, settings=settings,
                                   flush_cache=args.flush_cache, extra_vars=extra_vars)
    except InventoryAborted as aborted:
        report_problems(aborted.inventory)
        return _fail(str(aborted), 1)
    report_problems(inventory)
    mismatch = settings.host_pattern_mismatch
    try:
        if args.list_hosts is not None:
            return _list_hosts(inventory, args.list_hosts, args.limit, settings)
        if args.host is not None:
            hosts = _select(inventory, args.host, mismatch=mismatch)
            if len(hosts) != 1:
                return _fail("You must pass a single valid host to --host parameter")
            text = dump(inventory.host_variables(hosts[0], export), args.yaml, args.toml)
        elif args.graph:
            start = inventory.data.groups.get(args.group)
            if start is None:
                return _fail("Pattern must be valid group name when using --graph")
            text = "\n".join(graph(inventory, start, args.show_vars, export))
        else:
            available = _select(inventory, "all", args.limit, mismatch)
            shape = yaml_inventory if args.yaml else toml_inventory if args.toml else list_inventory
            text = dump(shape(inventory, available, export), args.yaml, args.toml, listing=True,
                        group_values=group_values(inventory) if args.yaml else frozenset())
    except OutputError as exc:
        return _fail(str(exc), exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - bad vars files and the like: one clear line, no traceback
        return _fail(str(exc), getattr(exc, "exit_code", 1))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            return _fail(f"Unable to write to destination file {args.output!r}: {exc.strerror}", 1)
    else:
        print(_displayed(text), end="" if text.endswith("\n") else "\n")  # as ansible's display: one newline
    return 0


def _playbook_dir(value: str | None) -> str | None:
    """``--playbook-dir`` as ansible reads it (links resolved); a path that is not a directory
    gets ansible's warning and loads nothing."""
    if not value:
        return None
    path = os.path.realpath(os.path.expanduser(os.path.expandvars(value)))
    if not os.path.isdir(path):
        _warn(f"Ignoring invalid path provided to plugin path: '{path}' is not a directory")
    return path


def report_problems(inventory: Inventory) -> None:
    """Warnings on standard error, worded as ansible words them, each once: ansible's display
    drops a message it showed already (a source given twice fails twice, and says it once)."""
    shown: set[object] = set()

    def once(key: object) -> bool:
        if key in shown:
            return False
        shown.add(key)
        return True

    for message in (*inventory.plugin_warnings, *inventory.data.warnings):
        if once(message):
            _warn(message)
    for entry in inventory.report:
        if isinstance(entry, str):
            if once(entry):
                _warn(entry)
            continue
        # ansible's message names the source it failed on: the same words for two sources are two messages
        if once((entry.source, entry.plugin, entry.message, entry.detail)):
            _warn(f"Failed to parse inventory with {entry.plugin!r} plugin: {entry.message}")
            if entry.detail:
                print(f"Standard error from inventory script:\n{entry.detail}", file=sys.stderr, end="")
    for note in inventory.notes:
        if once(note):
            _warn(note)


_SURROGATES = re.compile("[\ud800-\udfff]")


def _displayed(text: str) -> str:
    """``text`` as ansible's display writes it: what came from files that are not UTF-8 (kept as
    surrogate escapes) becomes ``?``, with ansible's warning."""
    if not _SURROGATES.search(text):
        return text
    _warn('Non UTF-8 encoded data replaced with "?" while displaying text to stdout/stderr.')
    return _SURROGATES.sub("?", text)


def _select(inventory: Inventory, pattern: str, limit: str | None = None, mismatch: str = "warning") -> list[Host]:
    from engine.inventory.patterns import select_hosts

    warnings: list[str] = []
    try:
        return select_hosts(inventory.data, pattern, limit, warnings=warnings, mismatch=mismatch)
    finally:
        _warn_once(warnings)


def _list_hosts(inventory: Inventory, pattern: str, limit: str | None, settings: InventorySettings) -> int:
    """``ansible PATTERN --list-hosts [--limit LIMIT]``: a pattern that selects nothing (or fails, a
    subscript out of range) only warns, unless there is a limit: then it is an error (exit 1)."""
    from engine.inventory.patterns import HostPatternError, hosts_to_target

    warnings: list[str] = []
    try:
        hosts = hosts_to_target(inventory.data, pattern, limit, warnings, settings.host_pattern_mismatch,
                                settings.localhost_warning)
    except HostPatternError as problem:
        if limit:
            _warn_once(warnings)
            return _fail(str(problem), 1)
        hosts = []
        warnings.append("No hosts matched, nothing to do")
    _warn_once(warnings)
    print(f"  hosts ({len(hosts)}):")
    for host in hosts:
        print(f"    {_displayed(host.name)}")
    return 0


def _warn_once(warnings: list[str]) -> None:
    """ansible's display shows a repeated warning once."""
    for message in dict.fromkeys(warnings):
        _warn(message)


__all__ = ["add_parser", "dump", "graph", "list_inventory", "run_inventory", "yaml_inventory"]

"""``playbook-ls inventory``: what ``ansible-inventory`` prints (``--list``, ``--graph``, ``--host``),
and ``--list-hosts PATTERN`` as ``ansible PATTERN --list-hosts`` prints it.

This command runs executable inventory scripts, as ansible-inventory does: the user asked for
the inventory of exactly these sources.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from playbook_ls.cli.options import add_selection_options

if TYPE_CHECKING:  # the engine is imported when the command runs, to keep start-up lean
    from engine.inventory.data import Group, Host
    from engine.inventory.manager import Inventory

EXIT_OPTIONS = 5
"""ansible's exit code for bad options (``AnsibleOptionsError``)."""


EXAMPLES = """\
examples:
  playbook-ls inventory -i inventory.ini --graph
  playbook-ls inventory -i inventory/ --list
  playbook-ls inventory -i inventory.ini --host web1
  playbook-ls inventory -i inventory.ini --list-hosts 'web:&prod'
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    help_text = "show the inventory like ansible-inventory (--list, --graph, --host) or ansible --list-hosts"
    parser = sub.add_parser("inventory", help=help_text, description=help_text + ". Runs inventory scripts.",
                            epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-i", "--inventory", action="append", default=[], metavar="SOURCE",
                        help="inventory host list (a,b,), file, directory or script; repeatable")
    parser.add_argument("--list", action="store_true", help="print the whole inventory as JSON")
    parser.add_argument("--host", metavar="HOST", help="print one host's variables as JSON")
    parser.add_argument("--graph", action="store_true", help="print the group tree (from the GROUP argument, or all)")
    parser.add_argument("--list-hosts", metavar="PATTERN", help="print the hosts a pattern selects")
    parser.add_argument("--vars", action="store_true", dest="show_vars", help="with --graph: show variables")
    add_selection_options(parser, tags=False, extra_vars=False)
    parser.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
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
    from engine.inventory.manager import load_inventory

    inventory = load_inventory(args.inventory or ["/etc/ansible/hosts"], dynamic=True)
    report_problems(inventory)
    try:
        if args.list_hosts is not None:
            return _list_hosts(inventory, args.list_hosts, args.limit)
        if args.host is not None:
            hosts = _select(inventory, args.host)
            if len(hosts) != 1:
                return _fail("You must pass a single valid host to --host parameter")
            text = dump(inventory.host_variables(hosts[0]))
        elif args.graph:
            start = inventory.data.groups.get(args.group)
            if start is None:
                return _fail("Pattern must be valid group name when using --graph")
            text = "\n".join(graph(inventory, start, args.show_vars))
        else:
            available = _select(inventory, "all", args.limit)
            text = dump(list_inventory(inventory, available))
    except Exception as exc:  # noqa: BLE001 - bad vars files and the like: one clear line, no traceback
        return _fail(str(exc), 1)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            return _fail(f"Unable to write to destination file {args.output!r}: {exc.strerror}", 1)
    else:
        print(text)
    return 0


def report_problems(inventory: Inventory) -> None:
    """Warnings on standard error, worded as ansible words them."""
    for message in inventory.data.warnings:
        _warn(message)
    for failure in inventory.failures:
        _warn(f"Failed to parse inventory with {failure.plugin!r} plugin: {failure.message}")
        if failure.detail:
            print(f"Standard error from inventory script:\n{failure.detail}", file=sys.stderr, end="")
    for message in inventory.warnings:
        _warn(message)
    for note in inventory.notes:
        _warn(note)


def _select(inventory: Inventory, pattern: str, limit: str | None = None) -> list[Host]:
    from engine.inventory.patterns import select_hosts

    warnings: list[str] = []
    hosts = select_hosts(inventory.data, pattern, limit, warnings=warnings)
    for message in dict.fromkeys(warnings):
        _warn(message)
    return hosts


def _list_hosts(inventory: Inventory, pattern: str, limit: str | None) -> int:
    hosts = _select(inventory, pattern, limit)
    if not hosts:
        _warn("No hosts matched, nothing to do")
    print(f"  hosts ({len(hosts)}):")
    for host in hosts:
        print(f"    {host.name}")
    return 0


def dump(data: Any) -> str:
    """ansible-inventory's JSON: sorted keys, four-space indent."""
    return json.dumps(data, sort_keys=True, indent=4, default=str)


def list_inventory(inventory: Inventory, available: list[Host]) -> dict[str, Any]:
    """``--list``: every group reachable from ``all`` (hosts, children; empty keys and groups left
    out), then ``_meta.hostvars`` for hosts that have variables."""
    names = frozenset(h.name for h in available)
    seen: set[str] = set()

    def format_group(group: Group) -> dict[str, Any]:
        entry: dict[str, Any] = {}
        results = {group.name: entry}
        if group.name != "all":
            entry["hosts"] = [h.name for h in group.hosts if h.name in names]
        entry["children"] = []
        for sub in group.child_groups:
            entry["children"].append(sub.name)
            if sub.name not in seen:
                results.update(format_group(sub))
                seen.add(sub.name)
        for key in ("hosts", "vars", "children"):
            if key in entry and not entry[key]:
                del entry[key]
        if not entry:
            del results[group.name]
        return results

    results = format_group(inventory.data.groups["all"])
    hostvars = {}
    for host in available:
        variables = inventory.host_variables(host)
        if variables:
            hostvars[host.name] = variables
    results["_meta"] = {"hostvars": hostvars, "profile": "inventory_legacy"}
    return results


def _graph_name(name: str, depth: int = 0) -> str:
    return "  |" * depth + "--" + name if depth else name


def _show_vars(variables: dict[str, Any], depth: int) -> list[str]:
    return [_graph_name(f"{{{name} = {value}}}", depth) for name, value in sorted(variables.items())]


def graph(inventory: Inventory, group: Group, show_vars: bool, depth: int = 0) -> list[str]:
    """``--graph``: the group tree, children before hosts, ``--vars`` as ``{name = value}`` lines."""
    lines = [_graph_name(f"@{group.name}:", depth)]
    for kid in group.child_groups:
        lines.extend(graph(inventory, kid, show_vars, depth + 1))
    if group.name != "all":
        for host in group.hosts:
            lines.append(_graph_name(host.name, depth + 1))
            if show_vars:
                lines.extend(_show_vars(inventory.host_variables(host), depth + 2))
    if show_vars:
        lines.extend(_show_vars(inventory.group_variables(group), depth + 1))
    return lines

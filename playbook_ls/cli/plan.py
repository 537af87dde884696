"""``playbook-ls plan``: which task runs on which host, and why not on the others, before
anything runs. Reads files only (see engine.flow.host_plan)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from playbook_ls.cli.options import (
    RUN_INVENTORY_CODE_HINT,
    HelpFormatter,
    add_run_inventory_code,
    add_selection_options,
    add_user_option,
    add_vault_options,
)

EXIT_ERROR = 1
EXIT_USAGE = 2
JSON_VERSION = 2

EXAMPLES = """\
examples:
  playbook-ls plan site.yml -i inventory.ini
  playbook-ls plan site.yml -i inventory.ini --tags deploy --limit web
  playbook-ls plan site.yml -i inventory.ini -e env=prod --format json
  ansible all -i inventory.ini -m setup --tree facts/ && playbook-ls plan site.yml -i inventory.ini --facts facts/

outcomes:
  runs      the task runs on the host (every condition holds)
  skipped   it does not, with the reason (tags, when, run_once, an empty loop, not notified)
  depends   only the run can tell: the value it needs is named (a fact, a registered result...)
  fails     ansible stops the host there (a condition it cannot evaluate)
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("plan", help="show which task runs on which host, and why, before anything runs",
                            description="For every play, task and host: runs, skipped (why), or depends on "
                                        "run-time values (which). Nothing is executed.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("playbook", metavar="PLAYBOOK")
    parser.add_argument("-i", "--inventory", action="append", default=None, help="inventory source (repeatable)")
    add_selection_options(parser)
    add_vault_options(parser)
    parser.add_argument("-C", "--check", action="store_true", help="as in check mode (ansible_check_mode)")
    parser.add_argument("-D", "--diff", action="store_true", help="as with --diff (ansible_diff_mode)")
    add_run_inventory_code(parser)
    add_user_option(parser)
    parser.add_argument("--facts", metavar="DIR",
                        help="facts per host, as `ansible -m setup --tree DIR` writes them (added to those of "
                             "ansible.cfg's jsonfile fact cache, which is read too)")
    parser.add_argument("--gather", action="store_true",
                        help="first gather the facts of the plan's hosts with ansible's setup module, into --facts "
                             "DIR or ansible.cfg's jsonfile cache: this runs ansible, and with it the inventory's "
                             "code and the plugins ansible.cfg enables (code from the repository), and contacts the "
                             "hosts with your connection settings")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run, forks=None, verbose=0)


def run(args: argparse.Namespace) -> int:
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import PlanError, make_plan
    from engine.inventory.data import InventoryError
    from engine.parsing.source import SourceCache
    from engine.variables.fact_cache import known_facts
    from engine.vault import password_script_notes
    from playbook_ls.cli.vars import launch_options

    cache = SourceCache.for_command()
    options, problem = launch_options(args, cache)
    if problem:
        print(f"playbook-ls: error: --extra-vars: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.facts and args.gather:
        os.makedirs(args.facts, exist_ok=True)
    if args.facts and not os.path.isdir(args.facts):
        print(f"playbook-ls: error: --facts {args.facts}: not a directory; give the one `ansible -m setup --tree` "
              "wrote", file=sys.stderr)
        return EXIT_USAGE
    try:
        plan = make_plan(options, cache, dynamic_inventory=args.run_inventory_code)
        if args.gather:
            problem = gather_facts(plan, args.facts)
            if problem:
                print(f"playbook-ls: error: --gather: {problem}", file=sys.stderr)
                return EXIT_USAGE
        plan.facts = known_facts(args.facts)
        plays = plan_hosts(plan)
    except PlanError as exc:
        print(f"playbook-ls: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except InventoryError as exc:  # a group_vars/host_vars file ansible would stop on, too
        print(f"playbook-ls: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    for note in password_script_notes():
        print(f"playbook-ls: note: {note}", file=sys.stderr)
    if not args.run_inventory_code and plan.inventory.notes:  # hosts none or few: say why, as run --dry does
        for note in [*plan.inventory.notes, RUN_INVENTORY_CODE_HINT]:
            print(f"playbook-ls: note: {note}", file=sys.stderr)
    if args.format == "json":
        # one task per line: a plan of a thousand hosts holds a million outcomes, and an indented
        # document is both slow to write (the encoder is not the C one then) and long to read
        sys.stdout.writelines(json_pieces(plays))
        sys.stdout.write("\n")
    else:
        print(as_text(plays), end="")
    return 0


def gather_facts(plan: Any, directory: str | None) -> str | None:
    """Run ``ansible all --limit HOSTS -m ansible.builtin.setup`` on the plan's hosts, as the user
    asked with ``--gather``: into ``directory`` (``--tree``) or ansible.cfg's jsonfile fact cache.
    ansible's own output goes to standard error; hosts it cannot reach keep the facts they had.
    The problem when nothing can be gathered, else None."""
    import subprocess
    import tempfile

    from engine.config import AnsibleConfig
    from playbook_ls.features.ansible_runs import find_ansible_tool

    config = AnsibleConfig.load()
    cached = config.fact_caching in ("jsonfile", "ansible.builtin.jsonfile") and config.fact_caching_connection
    if directory is None and not cached:
        return ("give --facts DIR to keep the facts in, or set fact_caching = jsonfile and fact_caching_connection "
                "in ansible.cfg")
    ansible = find_ansible_tool("ansible")
    if ansible is None:
        return "the ansible command is not installed (pip install ansible-core)"
    hosts = sorted({host.name for play_plan in plan.plays for host in play_plan.hosts})
    if not hosts:
        return "the plan has no hosts to gather facts from"
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as limit:
        limit.write("\n".join(hosts) + "\n")
    try:
        command = [ansible, "all", *(arg for source in plan.options.inventory for arg in ("-i", source)),
                   "--limit", f"@{limit.name}", "-m", "ansible.builtin.setup",
                   *(["--tree", directory] if directory else [])]
        subprocess.run(command, stdout=sys.stderr, stdin=subprocess.DEVNULL, check=False)
    finally:
        os.unlink(limit.name)
    return None


def outcome_groups(task: Any) -> list[tuple[str, str, list[str]]]:
    """The task's hosts grouped by outcome and reason (both exactly as each host has them), each
    group in the order its first host comes, its hosts in the play's order: the plan tells each
    outcome once, not once per host (a fleet's hosts mostly share a few)."""
    from itertools import compress, repeat
    from operator import is_

    from engine.flow.outcomes import distinct

    outcomes = task.hosts
    objects = list(distinct(outcomes))  # each once, in their first host's order (most tasks: one)
    if len(objects) <= 1:
        return [(first.outcome, first.reason, list(outcomes)) for first in objects]
    kinds: dict[tuple[str, str], list[Any]] = {}  # the objects of each outcome and reason, told once
    for outcome in objects:
        kinds.setdefault((outcome.outcome, outcome.reason), []).append(outcome)
    if len(kinds) == 1:
        return [(kind, reason, list(outcomes)) for kind, reason in kinds]
    members = getattr(outcomes, "members", None)  # the hosts of each object, where the plan knows them
    if members is not None and len(kinds) == len(objects):
        return [(outcome.outcome, outcome.reason, hosts) for outcome, hosts in zip(objects, members, strict=True)]
    if len(kinds) > _PASSES:
        return _grouped(outcomes)
    groups = []  # a pass over the hosts per group: by identity where the group is one object (most are)
    idents: list[int] | None = None
    for (kind, reason), members in kinds.items():
        if len(members) == 1:
            flags: Any = map(is_, outcomes.values(), repeat(members[0]))
        else:
            idents = list(map(id, outcomes.values())) if idents is None else idents
            flags = map({id(member) for member in members}.__contains__, idents)
        groups.append((kind, reason, list(compress(outcomes, flags))))
    return groups


def _grouped(outcomes: Any) -> list[tuple[str, str, list[str]]]:
    """:func:`outcome_groups` by one pass over the hosts, for many groups."""
    groups: dict[tuple[str, str], list[str]] = {}
    by_object: dict[int, list[str]] = {}  # most hosts share one outcome object: one lookup of its group
    for host, outcome in outcomes.items():
        hosts = by_object.get(id(outcome))
        if hosts is None:
            hosts = by_object[id(outcome)] = groups.setdefault((outcome.outcome, outcome.reason), [])
        hosts.append(host)
    return [(kind, reason, hosts) for (kind, reason), hosts in groups.items()]


_PASSES = 16
"""Up to how many groups a task's hosts are grouped by a pass over them per group."""


def as_json(plays: list[Any]) -> dict[str, Any]:
    """The documented JSON shape (docs/plan.md)."""
    return {"version": JSON_VERSION, "plays": [
        {"play": play.name, "hosts": play.hosts, **_order(play), "tasks": [
            {"task": task.name, "path": _relative(task.path), "line": task.line, "handler": task.handler,
             "outcomes": [{"outcome": kind, "reason": reason, "hosts": hosts}
                          for kind, reason, hosts in outcome_groups(task)]}
            for task in play.tasks]}
        for play in plays]}


def _order(play: Any) -> dict[str, str]:
    """``order``: why the play's hosts come in an order only the run knows, where they do;
    ``more_hosts``: why the play may run on hosts no source read names, where it may."""
    why, more = getattr(play, "order", None), getattr(play, "more_hosts", None)
    return {**({"order": why} if why else {}), **({"more_hosts": more} if more else {})}


def json_text(plays: list[Any]) -> str:
    """:func:`as_json` as text, each task on a line of its own (:func:`json_pieces`)."""
    return "".join(json_pieces(plays))


def json_pieces(plays: list[Any]) -> Iterator[str]:
    """:func:`json_text` piece by piece, to be written as made: a plan of a thousand hosts holds a
    million outcomes, told once per group of hosts, and its text (100 MB for 2,000 hosts) is not
    joined into one string (nor each play's into one) before it is written."""
    yield f'{{"version": {JSON_VERSION}, "plays": [\n'
    written: dict[Any, Any] = {}  # a list of hosts as text, once: most tasks list the same few
    for index, play in enumerate(plays):
        yield json.dumps({"play": play.name, "hosts": play.hosts, **_order(play)})[:-1] + ', "tasks": [\n'
        for place, task in enumerate(play.tasks):
            head = json.dumps({"task": task.name, "path": _relative(task.path), "line": task.line,
                               "handler": task.handler})
            groups = ", ".join(f'{json.dumps({"outcome": kind, "reason": reason})[:-1]}, '
                               f'"hosts": {_listed(hosts, written)}}}' for kind, reason, hosts in outcome_groups(task))
            yield f'{_BETWEEN if place else ""}{head[:-1]}, "outcomes": [{groups}]}}'
        yield "\n]}" + ("," if index < len(plays) - 1 else "") + "\n"
    yield "]}"


_BETWEEN = ",\n"


def _listed(hosts: list[str], written: dict[Any, Any]) -> str:
    """``hosts`` as JSON, each list written once: the last one of as many hosts is compared first
    (most tasks of a play list its hosts, in its order, or the groups of the task before), then each
    list written so far."""
    last = written.get(len(hosts))
    if last is not None and last[0] == hosts:
        return last[1]  # type: ignore[no-any-return]
    key = tuple(hosts)
    found = written.get(key)
    if found is None:
        found = written[key] = json.dumps(hosts)
    written[len(hosts)] = (hosts, found)
    return found


def as_text(plays: list[Any]) -> str:
    """Per play, each task with where it runs; skipped and depending hosts grouped by reason."""
    from engine.flow.outcome_groups import by_outcome

    lines: list[str] = []
    for play in plays:
        lines.append(f"PLAY [{play.name}]  hosts: {', '.join(play.hosts) or 'none'}"
                     + (f" (in an order only the run knows: {play.order})" if getattr(play, "order", None) else "")
                     + (f" + more: {play.more_hosts.removeprefix(MORE_PREFIX)}" if getattr(play, "more_hosts", None)
                        else ""))
        for task in play.tasks:
            where = f"  {_relative(task.path)}:{task.line}" if task.path else ""
            kind = "HANDLER" if task.handler else "TASK"
            lines.append(f"  {kind} [{task.name}]{where}")
            for (outcome, reason), hosts in by_outcome(task.hosts).items():
                text = f"    {outcome:8} {', '.join(hosts)}"
                lines.append(f"{text}: {reason}" if reason else text)
        lines.append("")
    return "\n".join(lines)


MORE_PREFIX = "the play's hosts: "


def _relative(path: str | None) -> str | None:
    return os.path.relpath(path) if path else None

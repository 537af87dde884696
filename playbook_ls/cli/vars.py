"""``playbook-ls vars``: the variables a task sees on a host, each with its value and where it
was set, the winning definition first. Reads files only: no inventory script, lookup or vault
is run to show a value; what only the run can know is said, not guessed."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from playbook_ls.cli.options import (
    HelpFormatter,
    add_run_inventory_code,
    add_selection_options,
    add_user_option,
    add_vault_options,
)

EXIT_ERROR = 1
EXIT_USAGE = 2

EXAMPLES = """\
examples:
  playbook-ls vars site.yml -i inventory.ini --host web1
  playbook-ls vars site.yml -i inventory.ini --host web1 --task roles/app/tasks/main.yml:12 app_port
  playbook-ls vars site.yml -i inventory.ini --host web1 -e version=2 --format json
  playbook-ls vars site.yml -i inventory.ini --host web1 --check --tags deploy ansible_check_mode ansible_run_tags
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("vars", help="show the variables a task sees on a host, with where each comes from",
                            description="The variables a task sees on a host: value and definitions, the winning "
                                        "one first, in ansible's precedence.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("playbook", metavar="PLAYBOOK", help="the playbook whose tasks are looked at")
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these variables (default: all but magic ones)")
    parser.add_argument("-i", "--inventory", action="append", default=None, help="inventory source (repeatable)")
    parser.add_argument("--host", required=True, help="the inventory host")
    parser.add_argument("--task", metavar="FILE:LINE",
                        help="the task written at this line (default: the first task of each play)")
    add_selection_options(parser)
    add_vault_options(parser)
    parser.add_argument("-C", "--check", action="store_true", help="as in check mode (ansible_check_mode)")
    parser.add_argument("-D", "--diff", action="store_true", help="as with --diff (ansible_diff_mode)")
    parser.add_argument("-f", "--forks", type=int, default=None,
                        help="as with --forks (ansible_forks; default: ansible.cfg's forks, else 5)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="as with -v (ansible_verbosity)")
    add_user_option(parser)
    add_run_inventory_code(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)


def _fail(message: str, code: int = EXIT_ERROR) -> int:
    print(f"playbook-ls: error: {message}", file=sys.stderr)
    return code


def _task_arg(value: str) -> tuple[str, int] | None:
    path, _, line = value.rpartition(":")
    if not path or not line.isdigit() or int(line) < 1:
        return None
    return path, int(line) - 1


def launch_options(args: argparse.Namespace, cache: Any) -> tuple[Any, str | None]:
    """The launch ``args`` describe, as ansible-playbook takes the same options (the tag options
    adding to ansible.cfg's ``[tags]``), or the problem with ``--extra-vars``."""
    from engine.config import AnsibleConfig
    from engine.flow.plan import RunOptions
    from playbook_ls.cli.listing import parse_extra_vars

    extra_vars, problem = parse_extra_vars(args.extra_vars, cache) if args.extra_vars else ({}, None)
    if problem:
        return None, problem
    tags, skip_tags = AnsibleConfig.load().command_line_tags(args.tags, args.skip_tags)
    return RunOptions(playbook=args.playbook, inventory=args.inventory or [], extra_vars=dict(extra_vars or {}),
                      tags=tags, skip_tags=skip_tags,
                      limit=args.limit, check=args.check, diff=args.diff, forks=args.forks,
                      verbosity=args.verbose, remote_user=getattr(args, "remote_user", None)), None



def run(args: argparse.Namespace) -> int:
    from engine.flow.plan import PlanError, make_plan
    from engine.inventory.data import InventoryError
    from engine.parsing.source import SourceCache
    from engine.variables.host_includes import load_host_includes
    from engine.variables.include_runs import loaded_here
    from engine.variables.report import task_runs, tasks_in_order
    from engine.variables.task_variables import variables_at
    from engine.vault import password_script_notes

    cache = SourceCache.for_command()
    options, problem = launch_options(args, cache)
    if problem:
        return _fail(f"--extra-vars: {problem}", EXIT_USAGE)
    where = _task_arg(args.task) if args.task else None
    if args.task and where is None:
        return _fail(f"--task {args.task}: give FILE:LINE with a line number from 1", EXIT_USAGE)
    try:
        plan = make_plan(options, cache, dynamic_inventory=args.run_inventory_code, select_tasks=False)
    except PlanError as exc:
        return _fail(str(exc), exc.exit_code)
    for note in password_script_notes():
        print(f"playbook-ls: note: {note}", file=sys.stderr)
    load_host_includes(plan)  # the tasks of files each host's variables name have values too
    contexts = []
    realpaths: dict[str, str] = {}
    for play_plan in plan.plays:
        host = next((h for h in play_plan.hosts if h.name == args.host), None)
        if host is None:
            continue
        runs = task_runs(play_plan.play, where[0], where[1], realpaths) if where is not None else \
            [(task, 0) for task in [next(tasks_in_order(play_plan.play), None)]]
        try:
            contexts += [variables_at(plan, play_plan, host, task, args.names or None, occurrence)
                         for task, occurrence in runs if task is None or loaded_here(play_plan, task, host)]
        except InventoryError as exc:  # a group_vars/host_vars file ansible would stop on, too
            return _fail(str(exc))
    if not contexts:
        if plan.inventory.data.get_host(args.host) is None:
            partial = "".join(f" {note}." for note in plan.inventory.notes)
            hint = " Pass --run-inventory-code to run it." if plan.inventory.notes else ""
            return _fail(f"no host '{args.host}' in the inventory; give one of its hosts with --host "
                         f"(playbook-ls inventory --list shows them).{partial}{hint}", EXIT_USAGE)
        what = f"no task at {args.task} in a play" if where else "no play"
        return _fail(f"{what} of {args.playbook} runs on '{args.host}'; check the task's line and the play's hosts",
                     EXIT_USAGE)
    if args.format == "json":
        print(json.dumps([as_json(c, bool(args.names)) for c in contexts], indent=2, default=_json_default))
    else:
        sys.stdout.write("\n".join(as_text(c, bool(args.names)) for c in contexts))
    return 0


def _relative(path: str | None) -> str | None:
    if path is None:
        return None
    relative = os.path.relpath(path)
    return path if relative.startswith(".." + os.sep + "..") else relative


def _source(definition: Any, with_value: bool) -> dict[str, Any]:
    found = {"path": _relative(definition.path), "line": definition.line + 1 if definition.line is not None else None,
             "level": definition.level, "label": definition.label}
    if definition.runtime:
        found["runtime"] = True
    if with_value:
        found["value"] = _plain(definition.value)
    return found


def _plain(value: Any) -> Any:
    """The value as the JSON output shows it: one that JSON cannot write (inside itself, a YAML
    alias such as ``&a [*a]``, or nested too deeply) as a sentence saying so."""
    from engine.variables.sources import RUNTIME_RESULT

    if value is RUNTIME_RESULT:
        return None
    if isinstance(value, list | dict):
        unwritable = _unwritable(value)
        if unwritable:
            return unwritable
    return value


def _unwritable(value: Any) -> str | None:
    try:
        json.dumps(value, default=_json_default)
    except ValueError:
        return "(not shown: the value contains itself)"
    except RecursionError:
        return "(not shown: nested too deeply)"
    return None


def _shown(context: Any, named: bool) -> list[Any]:
    return [v for v in context.variables.values() if named or not v.magic]


def as_json(context: Any, named: bool = False) -> dict[str, Any]:
    """One context as the documented JSON object."""
    task = context.task
    variables: dict[str, Any] = {}
    for resolved in _shown(context, named):
        entry: dict[str, Any] = {"value": _plain(resolved.value)}
        if resolved.unknown:
            entry["unknown"] = resolved.unknown
        if resolved.per_item:
            entry["per_item"] = [{"value": _plain(each.value), **({"unknown": each.unknown} if each.unknown else {})}
                                 for each in resolved.per_item]
        if resolved.template is not None:
            entry["template"] = _plain(resolved.template)
        if resolved.definitions:
            entry["source"] = _source(resolved.definitions[0], False)
            entry["overrides"] = [_source(d, True) for d in resolved.definitions[1:]]
        variables[resolved.name] = entry
    return {"host": context.host.name, "play": context.play.name,
            "task": {"name": task.display_name(), "path": _relative(task.span.file) if task.span else None,
                     "line": task.span.line + 1 if task.span else None, "run": context.occurrence + 1}
            if task is not None else None,
            "variables": variables}


def as_text(context: Any, named: bool = False) -> str:
    task = context.task
    where = f" ({_relative(task.span.file)}:{task.span.line + 1})" if task is not None and task.span else ""
    run = f" · run {context.occurrence + 1}" if context.occurrence else ""
    lines = [f"host {context.host.name} · play {context.play.name} · task "
             f"{task.display_name() if task is not None else '(none)'}{where}{run}"]
    for resolved in sorted(_shown(context, named), key=lambda r: r.name):
        if resolved.unknown and not resolved.definitions:
            lines.append(f"  {resolved.name}: (undefined: {resolved.unknown})")
            continue
        value = f"(unknown: {resolved.unknown})" if resolved.unknown else _short(resolved.value)
        if resolved.template is not None and not resolved.unknown:
            value += f"   ← {_short(resolved.template)}"
        lines.append(f"  {resolved.name} = {value}")
        for index, each in enumerate(resolved.per_item or []):
            shown = f"(unknown: {each.unknown})" if each.unknown else _short(each.value)
            lines.append(f"      item {index + 1}: {shown}")
        for index, definition in enumerate(resolved.definitions):
            mark = "set by" if index == 0 else "overrides"
            at = f" {_relative(definition.path)}" if definition.path else ""
            at += f":{definition.line + 1}" if definition.path and definition.line is not None else ""
            runtime = ", at run time if reached" if definition.runtime else ""
            shown = "" if index == 0 else f" = {_short(_plain(definition.value))}"
            lines.append(f"      {mark} {definition.level}: {definition.label}{at}{runtime}{shown}")
    return "\n".join(lines) + "\n"


def _short(value: Any, limit: int = 100) -> str:
    try:
        text = json.dumps(value, default=_json_default, ensure_ascii=False)
    except (ValueError, RecursionError):
        text = _unwritable(value) or ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(getattr(value, "unknown_whole", None), str):
        return None  # known whole only at run time (ansible_failed_task): its reason is the entry's unknown
    return str(value)

"""``playbook-ls launch PROFILE``: what launching a profile would do, without running it.

The launch follows AWX's prompting rules (:mod:`engine.launch.prompting`); the plan reuses the
``list-tasks`` resolution and tag selection, and the inventory loader for the hosts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playbook_ls.cli.options import (
    RUN_INVENTORY_CODE_HINT,
    HelpFormatter,
    add_run_inventory_code,
    add_selection_options,
)

if TYPE_CHECKING:
    from engine.config import InventorySettings
    from engine.launch.profiles import LaunchProfile
    from engine.launch.prompting import Launch, LaunchProblem
    from engine.span import Span

EXIT_LAUNCH_ERROR = 2
EXAMPLES = """\
examples:
  playbook-ls launch nightly
  playbook-ls launch nightly --tags deploy --limit web1 --check
  playbook-ls launch nightly -e '{"replicas": 3}' --format json

To run a profile: playbook-ls run --profile NAME.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("launch", help="show what launching a profile would run (AWX prompting rules)",
                            description="Resolve a launch profile with launch-time overrides, as AWX launches a "
                                        "job template, and show the job: fields, ignored fields, option "
                                        "variables, and per play the hosts and tasks. Nothing is run: not the "
                                        "playbook, nor, without --run-inventory-code, the inventory's scripts and "
                                        "plugins.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("profile", metavar="PROFILE", help="a profile from the playbook-ls settings")
    add_selection_options(parser, launch_fields=True)
    parser.add_argument("-C", "--check", action="store_true", help="job_type: check")
    parser.add_argument("-D", "--diff", action="store_true", help="diff_mode: true")
    parser.add_argument("-v", "--verbose", action="count", default=None, help="verbosity (-v to -vvvvv)")
    parser.add_argument("--job-type", choices=("run", "check"), default=None,
                        help="job_type (run gives run to a template that checks by default)")
    parser.add_argument("--diff-mode", choices=("true", "false"), default=None, help="diff_mode, either way")
    parser.add_argument("--verbosity", type=int, default=None, metavar="N", help="verbosity 0..5, lower too")
    parser.add_argument("--forks", type=int, default=None, metavar="N", help="forks (a field AWX prompts for)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="fields",
                        help="any field of an AWX launch request, VALUE read as YAML (scm_branch=main, "
                             "diff_mode=false, credentials=[vault]); repeatable")
    parser.add_argument("-i", "--inventory", action="append", default=None,
                        help="inventory: a file, directory or host list (a,b,); repeatable, read in order")
    parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .playbook-ls.yml to read profiles from")
    add_run_inventory_code(parser)
    # showing is what launch does (running is `run --profile`); --show is accepted as before
    parser.add_argument("--show", action="store_true", help="print the resolved launch (the default)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)


def launch_fields(values: list[str]) -> dict[str, Any]:
    """``--set FIELD=VALUE`` values: each VALUE read as YAML (``false``, ``3``, ``[a, b]``), as an
    AWX launch request's JSON would carry it. Raises ValueError naming a malformed one."""
    from engine.parsing.source import parse_text

    fields: dict[str, Any] = {}
    for value in values:
        name, equals, text = value.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--set {value!r}: expected FIELD=VALUE")
        loaded = parse_text(text, "<--set>")
        if loaded.error is not None:
            raise ValueError(f"--set {value!r}: {loaded.error.message}")
        # an empty VALUE is the empty string (an empty limit clears it), "null" is null
        fields[name.strip()] = "" if not text.strip() else loaded.data
    return fields


def overrides_from(args: argparse.Namespace, extra_vars: dict[str, Any] | None) -> dict[str, Any]:
    """The AWX launch fields the command line gives; flags left out are not overrides. Raises
    ValueError for a malformed ``--set``."""
    given: dict[str, Any] = {}
    if args.tags is not None:
        given["job_tags"] = ",".join(args.tags)
    if args.skip_tags is not None:
        given["skip_tags"] = ",".join(args.skip_tags)
    if args.limit is not None:
        given["limit"] = args.limit
    if args.check:
        given["job_type"] = "check"
    if args.diff:
        given["diff_mode"] = True
    if args.verbose is not None:
        given["verbosity"] = args.verbose
    if args.inventory is not None:
        given["inventory"] = one_or_several(args.inventory)
    if extra_vars is not None:
        given["extra_vars"] = extra_vars
    # launch's own flags for every other field of a launch request (run --profile has none of them)
    for name in ("job_type", "verbosity", "forks"):
        if getattr(args, name, None) is not None:
            given[name] = getattr(args, name)
    if getattr(args, "diff_mode", None) is not None:
        given["diff_mode"] = args.diff_mode == "true"
    given.update(launch_fields(getattr(args, "fields", None) or []))
    return given


def one_or_several(sources: list[str]) -> str | list[str]:
    """``-i`` given once is the one inventory a launch request carries; several are kept in order."""
    return sources[0] if len(sources) == 1 else sources


def _fail(message: str, span: Span | None = None) -> int:
    from playbook_ls.rules.base import display_path

    where = f"{span._replace(file=display_path(span.file)).human()}: " if span else ""
    print(f"playbook-ls: error: {where}{message}", file=sys.stderr)
    return EXIT_LAUNCH_ERROR


def find_profile(profiles: list[LaunchProfile], name: str) -> LaunchProfile | None:
    return next((profile for profile in profiles if profile.name == name), None)


def named_profile(config: str | None, name: str, profiles_file: str | None = None) -> LaunchProfile:
    """The launch profile ``name`` from the settings (``config``, else found from the current
    directory), or from ``profiles_file`` when given (it replaces the settings' profiles).
    Raises ValueError with what to do when the settings are wrong or lack it."""
    from engine.loading.keywords import did_you_mean
    from playbook_ls.config import ConfigError, load_settings

    try:
        settings = load_settings(profiles_file or config, ".")
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    profile = find_profile(settings.profiles, name)
    if profile is None and name in settings.refused_templates:
        from playbook_ls.rules.base import display_path

        refused = settings.refused_templates[name]
        span = refused.span
        where = f"{span._replace(file=display_path(span.file)).human()}: " if span else ""
        raise ValueError(f"{where}{refused.message}")
    if profile is None:
        names = [p.name for p in settings.profiles]
        where = profiles_file or ".playbook-ls.yml or [tool.playbook-ls.profiles] in pyproject.toml"
        known = f"; the profiles are: {', '.join(names)}" if names else f"; define it under 'profiles' in {where}"
        raise ValueError(f"no launch profile '{name}'{did_you_mean(name, names) or known}")
    return profile


def run(args: argparse.Namespace) -> int:
    from engine.launch.prompting import resolve_launch
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.listing import parse_extra_vars

    try:
        profile = named_profile(args.config, args.profile)
    except ValueError as exc:
        return _fail(str(exc))
    cache = SourceCache.for_command()
    extra_vars, problem = parse_extra_vars(args.extra_vars, cache) if args.extra_vars else (None, None)
    if problem:
        return _fail(f"--extra-vars: {problem}")
    try:
        overrides = overrides_from(args, extra_vars)
    except ValueError as exc:
        return _fail(str(exc))
    launch = resolve_launch(profile, overrides)
    if not launch.ok:
        return _report_errors(launch, args.format)
    if profile.playbook is None:
        return _fail(f"profile '{profile.name}' names no playbook; add 'playbook: <file>'", profile.span)
    plan = build_plan(launch, cache, args.run_inventory_code)
    if plan.problem is not None:
        return _fail(plan.problem.message, plan.problem.span)
    cwd = os.getcwd()
    if args.format == "json":
        print(json.dumps(launch_data(launch, plan, cwd), indent=2, default=str))
    else:
        sys.stdout.write(render_launch(launch, plan, cwd))
    return 0


def _report_errors(launch: Launch, output: str) -> int:
    from playbook_ls.rules.base import display_path

    if output == "json":
        print(json.dumps({"profile": launch.profile.name, "errors": [_problem_data(p) for p in launch.errors],
                          "ignored_fields": launch.ignored_fields}, indent=2, default=str))
    else:
        lines = [f"playbook-ls: error: launch '{launch.profile.name}' cannot start "
                 f"({len(launch.errors)} problem{'s' if len(launch.errors) != 1 else ''}):"]
        lines += [f"  {problem.human(display_path)}" for problem in launch.errors]
        if any("expected to be an integer" in p.message or "a numeric type" in p.message for p in launch.errors):
            lines.append("  hint: -e key=value gives strings; give numbers as YAML/JSON, e.g. -e '{\"count\": 3}'")
        print("\n".join(lines), file=sys.stderr)
    return EXIT_LAUNCH_ERROR


def _problem_data(problem: LaunchProblem) -> dict[str, Any]:
    from playbook_ls.cli.listing import span_data
    from playbook_ls.rules.base import display_path

    span = problem.span._replace(file=display_path(problem.span.file)) if problem.span else None
    return {"field": problem.field, "message": problem.message, "span": span_data(span)}


# -- the plan -------------------------------------------------------------------------------


@dataclass
class PlayPlan:
    index: int
    name: str
    pattern: list[str]
    hosts: list[str] | None  # None: the pattern could not be resolved (see ``note``)
    note: str | None
    tasks: list[Any]
    play: Any


@dataclass
class Plan:
    playbook: str
    inventory_notes: list[str] = field(default_factory=list)
    plays: list[PlayPlan] = field(default_factory=list)
    problem: Any = None


def build_plan(launch: Launch, cache: Any, run_inventory_code: bool = False) -> Plan:
    """Per play: the hosts it targets and the tasks the launch's tag selection runs; the hosts of
    the inventory's scripts and plugins only with ``run_inventory_code``."""
    from engine.config import AnsibleConfig
    from engine.flow.tags import Selection, selected_tasks
    from engine.launch.prompting import LaunchProblem, option_vars
    from engine.loading.resolve import Resolver
    from engine.loading.vaulted_vars import LOAD_TIME_MAGIC, reads_it_may_set
    from playbook_ls.rules.base import display_path, profile_playbook

    path = display_path(profile_playbook(launch.profile) or "")
    plan = Plan(path)
    if not os.path.isfile(path):
        plan.problem = LaunchProblem("playbook", f"the playbook {path} could not be found",
                                     launch.profile.spans.get("playbook"))
        return plan
    config = AnsibleConfig.load()
    if config.errors:  # a value ansible refuses: the job would not start
        plan.problem = LaunchProblem("inventory", config.errors[0])
        return plan
    book = Resolver(sources=cache, config=config, extra_vars=launch.extra_vars).load_playbook(path)
    fatal = book.fatal_problems()
    if fatal:
        plan.problem = LaunchProblem("playbook", str(fatal[0]), None)
        return plan
    selection = Selection.from_options(launch.job_tags, launch.skip_tags)
    targets = HostTargets.load(option_vars(launch, os.getcwd())["ansible_inventory_sources"], config.inventory,
                               run_inventory_code, launch.extra_vars)
    plan.inventory_notes = list(targets.notes)
    known = {*launch.extra_vars, *LOAD_TIME_MAGIC}
    for index, play in enumerate(book.plays):
        hosts, note = targets.select(play.hosts, launch.limit)
        if play.vaulted_vars_files:
            plan.inventory_notes.append(_vaulted_note(index + 1, display_path(play.vaulted_vars_files[0][0])))
            if (read := reads_it_may_set(play, known)) is not None:  # what loading gave it is a guess
                hosts, note = None, f"the play reads {read} while loading, which that file may set"
        plan.plays.append(PlayPlan(index + 1, play.name, list(play.hosts), hosts, note,
                                   selected_tasks(play, selection), play))
    return plan


def _vaulted_note(index: int, path: str) -> str:
    """A play's vault-encrypted vars file: what a job does with it depends on the credentials its
    job template gives it, which a profile does not hold."""
    return (f"play #{index} reads the vault-encrypted vars file {path}: the job decrypts it with a vault credential "
            "of its job template (or the project's vault_password_file), and stops there without one; playbook-ls "
            "never decrypts")


class HostTargets:
    """The one place that talks to the inventory loader (``engine.inventory``).

    Showing a launch runs nothing by default: the inventory's scripts and plugins (code from the
    repository) run only when the user asks (``--run-inventory-code``); until then they add a
    note instead of hosts. When the loader is not available, plays show their host pattern
    unresolved, with a note saying why.
    """

    def __init__(self, inventory: Any, notes: list[str], mismatch: str = "warning") -> None:
        self.inventory, self.notes, self.mismatch = inventory, notes, mismatch

    @classmethod
    def load(cls, sources: list[str], settings: InventorySettings, run_code: bool = False,
             extra_vars: dict[str, Any] | None = None) -> HostTargets:
        """``settings``: ansible.cfg's inventory settings (plugins, failures, pattern mismatch);
        ``run_code``: the user allowed the inventory's scripts and plugins to run; ``extra_vars``:
        the launch's, which ansible-playbook gives ``constructed``'s ``use_extra_vars``."""
        from engine.inventory.manager import load_inventory

        try:
            inventory = load_inventory(sources, dynamic=run_code, settings=settings, plugin_extra_vars=extra_vars or {})
        except Exception as exc:  # noqa: BLE001 - any loader failure is shown; the plan still lists tasks
            return cls(None, [f"hosts are not resolved: {exc}"])
        notes = [*inventory.notes, *inventory.warnings, *map(str, inventory.failures)]
        if not run_code and inventory.notes:
            notes.append(RUN_INVENTORY_CODE_HINT)
        # hosts a script would add are unknown: a pattern naming them is not a mismatch to warn about
        return cls(inventory.data, notes, settings.host_pattern_mismatch if run_code or not inventory.notes
                   else "ignore")

    def select(self, pattern: list[str], limit: str | None) -> tuple[list[str] | None, str | None]:
        if self.inventory is None:
            return None, "hosts not resolved"
        if any("{{" in part for part in pattern):
            return None, "the host pattern is templated; it is resolved only when the play runs"
        from engine.inventory.patterns import HostPatternError, select_hosts

        try:
            hosts = select_hosts(self.inventory, pattern, limit or None, basedir=os.getcwd(), mismatch=self.mismatch)
        except HostPatternError as exc:
            return None, str(exc)
        return [host.get_name() for host in hosts], None


# -- output ---------------------------------------------------------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, default=str)


def render_launch(launch: Launch, plan: Plan, cwd: str) -> str:
    from engine.launch.prompting import option_vars
    from playbook_ls.rules.base import display_path

    span = launch.profile.span
    where = f" ({span._replace(file=display_path(span.file)).human()})" if span else ""
    out = [f"launch: {launch.profile.name}{where}\n", "fields:\n"]
    out += [f"  {name}: {_json(value)}\n" for name, value in launch.fields().items()]
    out.append("prompted:" + (" none\n" if not launch.prompted else "\n"))
    out += [f"  {name}: {_json(value)}\n" for name, value in launch.prompted.items()]
    out.append("ignored_fields:" + (" none\n" if not launch.ignored_fields else "\n"))
    out += [f"  {name}: {_json(value)}\n" for name, value in launch.ignored_fields.items()]
    out.append("option variables:\n")
    out += [f"  {name}: {_json(value)}\n" for name, value in option_vars(launch, cwd).items()]
    out.append(f"plan: {plan.playbook}\n")
    out += [f"  note: {note}\n" for note in plan.inventory_notes]
    for play in plan.plays:
        out.append(f"  play #{play.index} ({','.join(play.pattern)}): {play.name}\n")
        if play.hosts is None:
            out.append(f"    hosts: {','.join(play.pattern)} ({play.note})\n")
        else:
            out.append(f"    hosts ({len(play.hosts)}): {', '.join(play.hosts) or 'none'}\n")
        out.append("    tasks:" + (" none\n" if not play.tasks else "\n"))
        for task in play.tasks:
            tags = sorted({str(tag) for tag in task.tag_set()} | {str(tag) for tag in play.play.tags})
            out.append(f"      {task.display_name()}\tTAGS: [{', '.join(tags)}]\n")
    return "".join(out)


def launch_data(launch: Launch, plan: Plan, cwd: str) -> dict[str, Any]:
    from engine.launch.prompting import option_vars
    from playbook_ls.cli.listing import task_data

    return {
        "profile": launch.profile.name,
        "fields": launch.fields(),
        "prompted": launch.prompted,
        "ignored_fields": launch.ignored_fields,
        "errors": [],
        "option_vars": option_vars(launch, cwd),
        "plan": {
            "playbook": plan.playbook,
            "notes": plan.inventory_notes,
            "plays": [{"name": play.name, "hosts_pattern": play.pattern, "hosts": play.hosts, "note": play.note,
                       "tasks": [task_data(task) for task in play.tasks]} for play in plan.plays],
        },
    }

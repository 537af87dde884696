"""``playbook-ls run``: plan a launch, then execute it with the bundled engine (or hand it to
ansible-playbook with ``--engine ansible``). A run is the user's explicit request to run the
repository's code (its inventory scripts and plugins, lookups, modules). ``--dry`` prints what
will run where (playbook-ls plan) and runs nothing, whatever the engine; the inventory's code
only with ``--run-inventory-code``."""

from __future__ import annotations

import argparse
import json
import os
import sys
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
EXIT_USAGE = 5

EXAMPLES = """\
examples:
  playbook-ls run site.yml -i localhost, --check --diff
  playbook-ls run site.yml -i inventory.ini --tags deploy --dry
  playbook-ls run site.yml -i localhost, --json
  playbook-ls run --profile nightly
  playbook-ls run site.yml -i prod.ini --engine ansible
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="run a playbook on this machine with the bundled engine",
                            description="Plan and run a playbook like ansible-playbook, on the local machine only. "
                                        "A run executes code from the repository as ansible-playbook does (its "
                                        "inventory scripts and plugins, lookups, modules); --dry runs none of it.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("playbook", nargs="?", metavar="PLAYBOOK")
    parser.add_argument("-i", "--inventory", action="append", default=None,
                        help="inventory file, directory or host list (a,b,); repeatable, read in order")
    parser.add_argument("-C", "--check", action="store_true", help="check mode: change nothing")
    parser.add_argument("-D", "--diff", action="store_true", help="show the differences modules make")
    add_selection_options(parser)
    add_vault_options(parser)  # the bundled engine never decrypts: with any, --engine auto hands the run over
    parser.add_argument("--profile", metavar="NAME", help="a launch profile; the other flags override it")
    parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .playbook-ls.yml with the profiles")
    parser.add_argument("--dry", action="store_true",
                        help="print what will run where (as playbook-ls plan) and run nothing, whatever the engine")
    add_run_inventory_code(parser, help="with --dry: run the inventory's scripts and plugins (code from the "
                                        "repository) to know its hosts, as a run does; off by default")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout, the log on stderr")
    parser.add_argument("--engine", choices=("bundled", "ansible", "auto"), default="bundled",
                        help="bundled (default), ansible (hand the run to ansible-playbook), or auto: the bundled "
                             "engine when it supports every selected task and host, else ansible-playbook")
    parser.add_argument("-v", "--verbose", action="count", default=None, help="more output (-v to -vvvv)")
    parser.add_argument("--force-handlers", action="store_true",
                        help="run notified handlers on a host even when it failed")
    parser.add_argument("-f", "--forks", type=int, default=None, metavar="N",
                        help="as ansible-playbook's (ansible_forks; default: ansible.cfg's forks, else 5)")
    add_user_option(parser)
    parser.add_argument("--start-at-task", metavar="NAME",
                        help="start the playbook at the first task of this name (or fnmatch pattern), as "
                             "ansible-playbook does")
    parser.set_defaults(handler=run)


def _engine_cannot(plan: Any, args: argparse.Namespace) -> list[Any]:
    """What the bundled engine cannot run exactly: the plan's unknown modules, and the options it
    does not implement (after the plan, whose includes may add modules)."""
    from engine.run.preflight import unknown_module_problems
    from engine.run.start_at import problems

    return [*unknown_module_problems(plan), *problems(args.start_at_task)]


def _fail(message: str, code: int = EXIT_ERROR) -> int:
    print(f"playbook-ls: error: {message}", file=sys.stderr)
    return code


def _launch(args: argparse.Namespace, cache: Any) -> tuple[Any, str | None]:
    """The resolved launch (a profile with the flags as overrides, or the flags alone)."""
    from engine.launch.profiles import LaunchProfile
    from engine.launch.prompting import resolve_launch
    from playbook_ls.cli.launch import named_profile, one_or_several, overrides_from
    from playbook_ls.cli.listing import parse_extra_vars

    extra_vars, problem = parse_extra_vars(args.extra_vars, cache) if args.extra_vars else (None, None)
    if problem:
        return None, f"--extra-vars: {problem}"
    if args.profile:
        try:
            profile = named_profile(args.config, args.profile)
        except ValueError as exc:
            return None, str(exc)
        launch = resolve_launch(profile, overrides_from(args, extra_vars))
    else:
        profile = LaunchProfile("command line")
        profile.playbook, profile.limit = args.playbook, args.limit
        profile.inventory = one_or_several(args.inventory) if args.inventory else None
        profile.job_type = "check" if args.check else "run"
        profile.job_tags = [t for v in args.tags or [] for t in v.split(",")]
        profile.skip_tags = [t for v in args.skip_tags or [] for t in v.split(",")]
        profile.diff_mode, profile.verbosity = args.diff, args.verbose or 0
        if args.forks is not None:
            profile.forks, profile.forks_given = args.forks, True
        # the command line's own -e values are the job's variables, not launch-time prompts
        # (which AWX's rules would drop, as nothing here asks for variables on launch)
        profile.extra_vars = dict(extra_vars or {})
        launch = resolve_launch(profile, {})
    if not launch.ok:
        return None, "; ".join(problem.human() for problem in launch.errors)
    return launch, None


def run(args: argparse.Namespace) -> int:
    from engine.config import AnsibleConfig
    from engine.flow.plan import PlanError, RunOptions
    from engine.parsing.source import SourceCache
    from engine.run.preflight import make_run_plan

    config = AnsibleConfig.load()
    if config.errors:  # ansible-playbook refuses such a value before it reads anything
        return _fail(config.errors[0], EXIT_USAGE)
    cache = SourceCache.for_command()
    launch, problem = _launch(args, cache)
    if problem:
        return _fail(problem, EXIT_USAGE)
    playbook = args.playbook or launch.profile.playbook_path()
    if not playbook:
        return _fail("give a PLAYBOOK or a --profile that names one", EXIT_USAGE)
    options = RunOptions.from_launch(launch, playbook, os.getcwd())
    options.force_handlers = args.force_handlers
    options.start_at_task = args.start_at_task
    options.remote_user = args.remote_user
    if args.engine == "ansible" and not args.dry:
        return _hand_to_ansible(options)
    from engine.run.modules import get_module

    # a dry run runs nothing of the repository's unless asked to; a run is the request to run it
    dynamic = args.run_inventory_code or not args.dry
    try:
        plan = make_run_plan(options, cache, has_module=lambda action: get_module(action) is not None,
                             dynamic_inventory=dynamic, starts_interpreters=not args.dry)
    except PlanError as exc:
        if args.json:  # still one JSON object: nothing ran, no recap
            print(json.dumps({"recap": None, "tasks": []}))
        if exc.ansible_text is not None:  # ansible's own failure, with the warnings before it
            sys.stderr.write(exc.ansible_text)
            return exc.exit_code
        if exc.problem is not None and exc.problem.chain:  # worded as ansible-playbook words it
            from engine.run.error_block import problem_text

            for warning in [*exc.warnings, *exc.problem.warnings]:
                sys.stderr.write(f"[WARNING]: {warning}\n")
            sys.stderr.write("[ERROR]: " + problem_text(exc.problem))
            return exc.exit_code
        return _fail(str(exc), exc.exit_code)
    not_run = [] if dynamic else [*plan.inventory.notes, RUN_INVENTORY_CODE_HINT] if plan.inventory.notes else []
    no_targets = _no_hosts_to_target(plan.inventory.data, options.limit, config.inventory)
    if no_targets:  # as ansible-playbook says it, warnings first
        for line in [*no_targets, *(f"playbook-ls: note: {note}" for note in not_run)]:
            print(line, file=sys.stderr)
        return EXIT_ERROR
    if args.dry:  # the plan of what will run where (playbook-ls plan), nothing run
        from engine.flow.host_plan import plan_hosts
        from engine.variables.fact_cache import known_facts
        from playbook_ls.cli.plan import as_text

        if args.start_at_task is not None:  # the tasks passed over leave the plan's selection
            from engine.run.start_at import plan_start

            not_run = [*not_run, *plan_start(plan, args.start_at_task)]
        from engine.run.free import order_notes

        not_run = [*not_run, *order_notes(plan.plays)]
        for note in not_run:
            print(f"playbook-ls: note: {note}", file=sys.stderr)
        plan.facts = known_facts()
        mode = [name for name, on in (("check", options.check), ("diff", options.diff)) if on]
        sys.stdout.write(f"playbook: {plan.playbook.path}\n" + (f"mode: {', '.join(mode)}\n" if mode else "") + "\n"
                         + as_text(plan_hosts(plan)))
        for task_problem in _engine_cannot(plan, args):
            print(f"playbook-ls: warning: {task_problem}", file=sys.stderr)
        return 0
    unknown = _engine_cannot(plan, args)
    if args.engine == "auto":
        from playbook_ls.features.ansible_runs import choose_engine, remote_hosts

        engine, reason = choose_engine("auto", [str(p) for p in unknown], remote_hosts(plan))
        if engine == "ansible":
            print(f"playbook-ls: running with ansible-playbook: {reason}", file=sys.stderr)
            return _hand_to_ansible(options)
    if unknown:
        for task_problem in unknown:
            print(f"playbook-ls: error: {task_problem}", file=sys.stderr)
        return EXIT_ERROR
    from engine.run.callback import Callback
    from engine.run.executor import Executor

    callback = Callback(sys.stderr if args.json else sys.stdout, options.verbosity, options.diff)
    for warning in plan.warnings:
        callback.warning(warning)
    code = Executor(plan, callback).run()
    if args.json:
        print(json.dumps(callback.as_json()))
    return code


def _no_hosts_to_target(inventory: Any, limit: str | None, settings: Any) -> list[str]:
    """ansible-playbook's check that ``--limit`` leaves a host to run on (``CLI.get_host_list``):
    when it does not, the lines ansible prints (a warning per pattern that matched nothing, then
    the error); else none."""
    from engine.inventory.patterns import HostPatternError, hosts_to_target

    warnings: list[str] = []
    try:
        hosts_to_target(inventory, "all", limit, warnings, mismatch=settings.host_pattern_mismatch,
                        localhost_warning=settings.localhost_warning)
    except HostPatternError as problem:
        return [*(f"[WARNING]: {warning}" for warning in warnings), f"[ERROR]: {problem}"]
    return []


def _hand_to_ansible(options: Any) -> int:
    from playbook_ls.features.ansible_runs import ansible_command, find_ansible_playbook

    executable = find_ansible_playbook()
    if executable is None:
        return _fail("--engine ansible needs ansible-playbook, which is not installed; "
                     "install ansible-core (pip install ansible-core) or use the bundled engine")
    import subprocess

    return subprocess.call(ansible_command(options, executable))

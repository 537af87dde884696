"""The ``check`` subcommand: settings from the config file and the command line, then output."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from playbook_ls.cli.options import HelpFormatter

FORMATS = ("text", "json", "sarif", "github")  # playbook_ls.check.formats renders each


def add_parser(sub: argparse._SubParsersAction) -> None:
    help_text = "lint playbooks and roles for tag and when traps; exit 1 on findings at or above the fail level"
    parser = sub.add_parser("check", help=help_text, description=help_text,
                            formatter_class=HelpFormatter, epilog="""\
examples:
  playbook-ls check                     check the current directory
  playbook-ls check site.yml roles/     check these files and directories
  playbook-ls check --format sarif > playbook-ls.sarif
  playbook-ls check --select PLS101,PLS107 --fail-level error
  playbook-ls check --diff              show what --fix would change, change nothing
  playbook-ls check --fix               apply the safe fixes, then report what is left

exit status: 0 no findings at or above the fail level, 1 findings, 2 usage or config error
(or no playbook or role found, or module names not checked with --require-module-check).
Silence one line with '# noqa: PLS101' (or a bare '# noqa'); accept today's findings with
--generate-ignore and fail only on new ones.""")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    parser.add_argument("--format", choices=FORMATS, default=None, help="output format (default: text)")
    parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .playbook-ls.yml to use")
    parser.add_argument("--select", action="append", default=[], metavar="CODES",
                        help="only these rules (codes, prefixes such as PLS1, or names); comma-separated")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES", help="skip these rules")
    parser.add_argument("--fail-level", choices=("info", "warning", "error"), default=None,
                        help="lowest severity that makes the exit status 1 (default: warning)")
    parser.add_argument("--statistics", action="store_true", help="print how many findings each rule has")
    parser.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (2 still means a usage or config error)")
    parser.add_argument("--generate-ignore", action="store_true",
                        help="accept every current finding: write them to .playbook-ls-ignore, so that later "
                             "checks report only new ones")
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe fixes (editing only the text they must: comments and layout stay), "
                             "then report the findings left")
    parser.add_argument("--diff", action="store_true",
                        help="print the safe fixes as a unified diff and write nothing (also with --fix); "
                             "exit 1 if there is anything to fix")
    parser.add_argument("--require-module-check", action="store_true", default=None,
                        help="exit 2 when module names cannot be checked (no ansible-core beside playbook-ls or "
                             "on PATH), instead of a notice: a CI job then reports what a machine with "
                             "ansible-core reports")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    parser.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                        help="processes to resolve playbooks with (default: up to 2, as many as there are cores)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from playbook_ls.check.formats import render
    from playbook_ls.check.runner import run_check
    from playbook_ls.config import ConfigError, load_settings

    paths = args.paths or ["."]
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        print(f"playbook-ls: error: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    try:
        settings = load_settings(args.config, paths[0])
    except ConfigError as exc:
        print(f"playbook-ls: config error: {exc}", file=sys.stderr)
        return 2
    for option in ("select", "ignore"):
        items = [item.strip() for value in getattr(args, option) for item in value.split(",") if item.strip()]
        unknown = settings.choose(**{option: items})
        if unknown:
            print(f"playbook-ls: error: --{option}: no rule matches '{unknown[0]}'", file=sys.stderr)
            return 2
    fail_level = args.fail_level or settings.fail_level
    jobs = args.jobs if args.jobs > 0 else min(2, os.cpu_count() or 1)
    baseline = settings.baseline
    if args.generate_ignore and (args.fix or args.diff):
        print("playbook-ls: error: --generate-ignore cannot be combined with --fix or --diff", file=sys.stderr)
        return 2
    if args.diff:
        return show_diff(run_check(paths, settings, use_cache=not args.no_cache, jobs=jobs), paths, settings)
    if args.generate_ignore:
        from playbook_ls.check.baseline import Baseline

        settings.baseline = None  # every finding there is now, those accepted before included
    result = run_check(paths, settings, use_cache=not args.no_cache, jobs=jobs)
    fixed, before = 0, len(result.findings)
    if args.fix:
        result, fixed = apply_fixes(result, paths, settings, lambda: run_check(
            paths, settings, use_cache=not args.no_cache, jobs=jobs))
    if args.generate_ignore:
        written, count = (baseline or Baseline(settings.root)).write(result.findings)
        accepted = len(result.findings)
        print(f"playbook-ls: accepted {accepted} finding{'s' if accepted != 1 else ''} as {count} "
              f"{'entries' if count != 1 else 'entry'} (file and rule) in {written}; check now reports only new "
              "ones", file=sys.stderr)
        return 0
    for error in result.internal_errors:
        print(f"playbook-ls: internal error (please report it): {error}", file=sys.stderr)
    if not (result.playbooks or result.roles or result.findings):
        # passing would tell a CI job that checked the wrong directory that all is well
        print(f"playbook-ls: error: no playbook or role found in {', '.join(paths)} ({result.files} YAML "
              f"file{'s' if result.files != 1 else ''} looked at). Pass the directory or files that hold your "
              "playbooks, or name them with the include setting.", file=sys.stderr)
        return 2
    # NO_COLOR counts when set to a non-empty value (https://no-color.org).
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    report = render(result, args.format or "text", colour=colour and not args.output_file,
                    statistics=args.statistics)
    if args.statistics:  # counts have no room for a note: it goes where errors go
        for notice in result.notices:
            print(f"playbook-ls: note: {notice}", file=sys.stderr)
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            print(f"playbook-ls: error: cannot write {args.output_file}: {exc.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(report)
    if args.fix:
        left = len(result.findings)
        # a fix can settle more than its finding (a renamed keyword's condition is then checked and
        # fixed too, a noqa left unused goes): say what changed, not only what was applied
        others = before - left - fixed
        besides = f", {others} other{'s' if others != 1 else ''} went with them" if others > 0 else ""
        print(f"playbook-ls: fixed {fixed} finding{'s' if fixed != 1 else ''}{besides} ({before} before, {left} "
              "remaining)", file=sys.stderr)
    if not result.modules_checked and (args.require_module_check or settings.require_module_check):
        print("playbook-ls: error: module names could not be checked, and they are required to be: install "
              "ansible-core in the environment playbook-ls runs in (or put ansible-playbook on PATH)",
              file=sys.stderr)
        return 2
    return 1 if result.failed(fail_level) and not args.exit_zero else 0


def show_diff(result: Any, paths: list[str], settings: Any) -> int:
    """``--diff``: the safe fixes as a unified diff on standard output; nothing is written."""
    from playbook_ls.fixes import apply as fixing

    planned = fixing.plan(result.findings, fixing.editable(paths, settings.root))
    sys.stdout.write(fixing.unified_diff(planned))
    sys.stdout.flush()
    count = sum(len(fixed.fixed) for fixed in planned)
    print(f"playbook-ls: would fix {count} finding{'s' if count != 1 else ''} in {len(planned)} "
          f"file{'s' if len(planned) != 1 else ''} (more may follow once these are fixed)" if count
          else "playbook-ls: nothing to fix", file=sys.stderr)
    return 1 if count else 0


def apply_fixes(result: Any, paths: list[str], settings: Any, check_again: Callable[[], Any]) -> tuple[Any, int]:
    """``--fix``: write the safe fixes and check again, until nothing more is fixed; the last
    check's result (the findings left) and how many findings were fixed."""
    from playbook_ls.fixes import apply as fixing

    fixed = 0
    may_edit = fixing.editable(paths, settings.root)
    for _ in range(fixing.PASSES):
        planned = fixing.plan(result.findings, may_edit)
        if not planned:
            break
        fixing.write(planned)
        fixed += sum(len(each.fixed) for each in planned)
        result = check_again()
    return result, fixed

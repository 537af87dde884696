"""``playbook-ls why FILE:LINE``: why the task at that line runs or not under a tag selection (or
a launch profile's), step by step, in each context that reaches it. Nothing is run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from playbook_ls.cli.options import HelpFormatter

EXIT_NOT_ANSWERED = 2
EXAMPLES = """\
examples:
  playbook-ls why roles/web/tasks/main.yml:12 --tags deploy
  playbook-ls why site.yml:30 --tags deploy --skip-tags never
  playbook-ls why roles/web/tasks/main.yml:12 --profile nightly
  playbook-ls why site.yml:30 --tags deploy --format json

Without --tags/--skip-tags the selection is ansible.cfg's (TAGS_RUN, TAGS_SKIP), else all tasks.
With --profile, --tags and --skip-tags are launch-time overrides of the profile's job_tags and
skip_tags (applied only if the profile asks for them on launch, as AWX does).
exit status: 0 answered, 2 nothing at FILE:LINE, a file no playbook reaches, or a usage error.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    help_text = "explain why the task at FILE:LINE runs or not under a tag selection, in each context"
    parser = sub.add_parser("why", help=help_text, description=help_text + ". Follows ansible-core's "
                            "evaluate_tags step by step; when conditions are named, not evaluated.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("location", metavar="FILE:LINE", help="a task's file and line (from 1)")
    parser.add_argument("-t", "--tags", action="append", default=None,
                        help="only tasks tagged with these (repeatable, comma-separated)")
    parser.add_argument("--skip-tags", action="append", default=None,
                        help="skip tasks tagged with these (repeatable, comma-separated)")
    parser.add_argument("--profile", metavar="P", help="the selection of this launch profile")
    parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .playbook-ls.yml to use")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="every context in full (by default, contexts with the same verdict for the same "
                             "reasons are grouped and the others show what differs)")
    parser.set_defaults(handler=run)


def _fail(message: str) -> int:
    print(f"playbook-ls: error: {message}", file=sys.stderr)
    return EXIT_NOT_ANSWERED


def parse_location(location: str) -> tuple[str, int] | None:
    """``FILE:LINE`` with LINE from 1, as (file, 0-based line); None when it is not that shape."""
    path, sep, line = location.rpartition(":")
    if not sep or not path or not line.isdigit() or int(line) < 1:
        return None
    return path, int(line) - 1


def workspace_root(path: str, settings_path: str | None) -> str:
    """Where the playbooks reaching ``path`` are: the settings file's directory, else the current
    directory when ``path`` is in it, else the nearest directory above ``path`` holding an
    ansible.cfg or a .git, else ``path``'s own directory."""
    if settings_path:
        return os.path.dirname(os.path.abspath(settings_path))
    here, target = os.path.abspath("."), os.path.abspath(path)
    if os.path.commonpath([here, target]) == here:
        return here
    directory = os.path.dirname(target)
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in ("ansible.cfg", ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.path.dirname(target)
        directory = parent


def run(args: argparse.Namespace) -> int:
    from playbook_ls.config import ConfigError, load_settings
    from playbook_ls.features import selection
    from playbook_ls.features.workspace import WorkspaceIndex

    parsed = parse_location(args.location)
    if parsed is None:
        return _fail(f"'{args.location}' is not FILE:LINE (a file and a line number from 1)")
    path, line = parsed
    if not os.path.isfile(path):
        return _fail(f"no such file: {path}")
    try:
        settings = load_settings(args.config, path)
    except ConfigError as exc:
        return _fail(f"config error: {exc}")
    profile = None
    if args.profile:
        from playbook_ls.cli.launch import find_profile

        profile = find_profile(settings.profiles, args.profile)
        if profile is None and args.profile in settings.refused_templates:
            return _fail(settings.refused_templates[args.profile].message)
        if profile is None:
            names = ", ".join(p.name for p in settings.profiles) or "none defined"
            return _fail(f"no launch profile '{args.profile}' (the profiles: {names})")
    root = workspace_root(path, settings.path)
    index = WorkspaceIndex(root, settings)
    index.index(check=False)
    target = os.path.abspath(path)
    shown = f"{os.path.relpath(target) if not os.path.isabs(path) else path}:{line + 1}"
    if not index.reaches(target):
        return _fail(f"{shown}: no playbook under {root} reaches this file")
    preview = selection.make_preview(args.tags, args.skip_tags, profile,
                                     (index.ansible.run_tags, index.ansible.skip_tags))
    explanations = selection.explain(index, target, line, preview)
    if not explanations:
        plays = [reach for reach in index.at(target, line) if reach.task is None]
        what = "a play, not a task: give the line of one of its tasks" if plays else "no task is at this line"
        return _fail(f"{shown}: {what}")
    if args.format == "json":
        print(json.dumps(why_json(explanations, preview, path, line), indent=2, default=str))
    else:
        sys.stdout.write(selection.explanation_text(explanations, preview, shown, verbose=args.verbose))
    return 0


def why_json(explanations: list[Any], preview: Any, path: str, line: int) -> dict[str, Any]:
    """The ``--format json`` document (described in docs/selection.md)."""
    from playbook_ls.features.selection import context_json

    task = explanations[0].reach.task
    return {"file": path, "line": line + 1, "task": task.display_name(), "selection": preview.to_json(),
            "runs": any(e.runs for e in explanations), "contexts": [context_json(e) for e in explanations]}

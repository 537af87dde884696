"""``playbook-ls diff``: what a change does to the run, from the files of two revisions."""

from __future__ import annotations

import argparse
import os
import sys

from playbook_ls.cli.options import HelpFormatter, add_selection_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from playbook_ls.review.compare import Listed
    from playbook_ls.review.report import Review

EXIT_DIFFERENCE = 1
EXIT_ERROR = 2

EXAMPLES = """\
examples:
  playbook-ls diff main                          the working tree against main, every playbook the change reaches
  playbook-ls diff main HEAD site.yml            site.yml at main and at HEAD
  playbook-ls diff v1.2 v1.3 -i inventory.ini    also what changes on which host, and why
  playbook-ls diff main --tags deploy            only what --tags deploy runs
  playbook-ls diff old/ new/ --format markdown   two directories; a pull-request comment
  playbook-ls diff origin/main --fail-on never   fail when a `never` task now runs under a selection

what is compared, per playbook:
  tasks        added, removed, renamed (same body), moved (another file), changed (tags, when, notify)
  selections   with no --tags given, the default run and --tags T for each tag the change touches:
               the tasks that now run and no longer run, with the tags that make it so and where
               each comes from (ansible-playbook --list-tasks on each revision lists the same)
  hosts        with -i: outcomes that change per host (runs, skipped, depends, fails), hosts
               changing alike together, with the reason (as playbook-ls plan gives it)
  handlers     handlers whose outcome changes (with -i), notifications no handler answers any more
Nothing from either revision runs: a revision is read out of git's object store.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("diff", help="compare what two revisions do in the run, before anything runs",
                            description="What a change does to the run: tasks, tag selections, per-host outcomes "
                                        "and handlers of two revisions, compared. OLD and NEW are git revisions "
                                        "of the repository the command runs in, or two directories; NEW defaults "
                                        "to the working tree.",
                            epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("old", metavar="OLD", help="a git revision (main, HEAD~1, a commit) or a directory")
    parser.add_argument("rest", nargs="*", metavar="NEW/PLAYBOOK",
                        help="NEW (a revision or directory; default: the working tree), then the playbooks to "
                             "compare (default: every playbook that reads a changed file)")
    parser.add_argument("-i", "--inventory", action="append", default=None,
                        help="inventory source (repeatable), read on each side: adds the per-host outcomes")
    add_selection_options(parser)
    parser.add_argument("-C", "--check", action="store_true", help="as in check mode (ansible_check_mode)")
    parser.add_argument("--format", choices=("text", "json", "markdown", "github"), default="text")
    parser.add_argument("--fail-on", action="append", default=[], metavar="WHAT",
                        help="exit 1 when the change does WHAT: 'any' (any difference), 'never' (a task tagged "
                             "never now runs under a selection), 'hosts' (an outcome changes on a host), "
                             "'group=NAME' (an outcome changes on a host of the group NAME); repeatable")
    parser.set_defaults(handler=run)


def split_sides(rest: list[str]) -> tuple[str, list[str]]:
    """NEW and the playbooks from what follows OLD: the first is NEW unless it is a file."""
    from playbook_ls.review.revisions import WORKING_TREE

    if rest and not os.path.isfile(rest[0]):
        return rest[0], rest[1:]
    return WORKING_TREE, rest


def run(args: argparse.Namespace) -> int:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.listing import parse_extra_vars
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import FORMATS
    from playbook_ls.review.revisions import RevisionError

    problems = [what for what in args.fail_on if what not in ("any", "never", "hosts") and
                not what.startswith("group=")]
    if problems:
        print(f"playbook-ls: error: --fail-on {problems[0]}: give any, never, hosts or group=NAME", file=sys.stderr)
        return EXIT_ERROR
    extra_vars, problem = parse_extra_vars(args.extra_vars, SourceCache()) if args.extra_vars else ({}, None)
    if problem:
        print(f"playbook-ls: error: --extra-vars: {problem}", file=sys.stderr)
        return EXIT_ERROR
    new, playbooks = split_sides(args.rest)
    tags, skip = list(args.tags or []), list(args.skip_tags or [])
    options = RunOptions(playbook="", inventory=args.inventory or [], limit=args.limit, tags=tags, skip_tags=skip,
                         extra_vars=dict(extra_vars or {}), check=args.check)
    selections = None
    if tags or skip:
        from engine.flow.tags import Selection

        label = " ".join([*(f"--tags {t}" for t in tags), *(f"--skip-tags {t}" for t in skip)])
        selections = [(label, Selection.from_options(tags, skip))]
    try:
        review = build_review(args.old, new, playbooks, options, selections)
    except RevisionError as exc:
        print(f"playbook-ls: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(FORMATS[args.format](review))
    return EXIT_DIFFERENCE if failed(review, args.fail_on) else 0


def failed(review: Review, conditions: list[str]) -> bool:
    """Whether the review shows what one of ``--fail-on``'s conditions refuses."""
    for condition in conditions:
        if condition == "any" and review.differs():
            return True
        for playbook in review.playbooks:
            if condition == "never" and any(_tagged_never(entry) for selection in playbook.selections
                                            for entry in selection.now_runs):
                return True
            if condition == "hosts" and playbook.hosts:
                return True
            if condition.startswith("group=") and any(
                    set(change.hosts) & set(review.groups.get(condition[6:], ())) for change in playbook.hosts):
                return True
    return False


def _tagged_never(entry: Listed) -> bool:
    """A task tagged ``never`` in either revision (a task that lost the tag now runs by default)."""
    return "never" in entry.task.tags or (entry.before is not None and "never" in entry.before.tags)

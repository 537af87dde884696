"""The ``playbook-ls`` command line.

``list-tasks`` and ``list-tags`` print what ``ansible-playbook --list-tasks`` /
``--list-tags`` print, computed statically (nothing from the repository is executed).
Heavy imports happen inside the commands to keep start-up lean.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from playbook_ls.cli.option_table import LISTING_COMMANDS, LISTING_OPTIONS, plain_listing_args

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace


# Commands whose parser each module adds, in the order --help lists them (after list-tasks and
# list-tags, before serve). Only the command being run is imported: the others' modules (and
# what they import) are a third of a short command's start-up.
COMMAND_MODULES = ("check", "launch", "inventory", "run", "why", "plan", "vars", "diff")

LISTING_EXAMPLES = """\
examples:
  playbook-ls list-tasks site.yml -i inventory.ini
  playbook-ls list-tasks site.yml --tags deploy --skip-tags never
  playbook-ls list-tags site.yml
  playbook-ls list-tasks site.yml --format json
"""
EXAMPLES = """\
examples:
  playbook-ls list-tasks site.yml --tags deploy    the tasks --tags deploy runs, as ansible-playbook lists them
  playbook-ls list-tags site.yml                   the tags of those tasks
  playbook-ls check                                lint the current directory (text, json, sarif, github)
  playbook-ls inventory -i hosts.ini --graph       the inventory as ansible-inventory shows it
  playbook-ls launch nightly --show                what launching the profile 'nightly' would run
  playbook-ls run site.yml -i localhost, --check   run with the bundled engine, changing nothing
  playbook-ls why roles/web/tasks/main.yml:12 --tags deploy   why that task runs or not, step by step
  playbook-ls vars site.yml -i hosts.ini --host web1 app_port   its value on web1, and where it is set
  playbook-ls plan site.yml -i hosts.ini           which task runs on which host, and why, before running
  playbook-ls diff main -i hosts.ini               what this branch changes in the run, against main
  playbook-ls serve                                the language server, for editors

'playbook-ls COMMAND --help' describes a command and its options.
"""
SERVE_EXAMPLES = """\
examples:
  playbook-ls serve                     LSP over stdin/stdout, as editors start it
  playbook-ls serve --tcp 127.0.0.1:2087
  PLAYBOOK_LS_LOG=info playbook-ls serve 2>server.log

Editor set-up (VS Code, Neovim, Helix, Emacs): see docs/editors.md.
"""


def _add_listing(sub: argparse._SubParsersAction, name: str, help_text: str) -> None:
    from playbook_ls.cli.options import HelpFormatter, add_option

    parser = sub.add_parser(name, help=help_text, description=help_text, epilog=LISTING_EXAMPLES,
                            formatter_class=HelpFormatter)
    parser.add_argument("playbooks", nargs="+", metavar="PLAYBOOK")
    for option in LISTING_OPTIONS:
        add_option(parser, option)
    parser.set_defaults(handler=_run_listing, mode=name)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (``command``) only that command's part of it."""
    import argparse

    from playbook_ls.cli.options import HelpFormatter, VersionAction

    parser = argparse.ArgumentParser(
        prog="playbook-ls",
        description="Effective tags and when for Ansible playbooks: listings identical to ansible-playbook, "
                    "computed statically.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, what in (("list-tasks", "the tasks a run would execute"),
                       ("list-tags", "the tags of the tasks a run would execute")):
        if command in (None, name):
            _add_listing(sub, name, f"list {what}, like ansible-playbook --{name}")
    for name in COMMAND_MODULES:
        if command in (None, name):
            importlib.import_module(f"playbook_ls.cli.{name}").add_parser(sub)
    if command not in (None, "serve"):
        return parser
    serve = sub.add_parser("serve", help="run the language server (LSP over stdio, or --tcp HOST:PORT)",
                           description="Run the language server. Logs go to stderr (PLAYBOOK_LS_LOG=info for more).",
                           epilog=SERVE_EXAMPLES, formatter_class=HelpFormatter)
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", type=_tcp_address,
                       help="listen on a TCP port instead (one client; :PORT for the loopback)")
    serve.set_defaults(handler=_run_serve)
    return parser


def _run_listing(args: argparse.Namespace | SimpleNamespace) -> int:
    from playbook_ls.cli.listing import run_listing

    return run_listing(args)


def _tcp_address(text: str) -> tuple[str, int]:
    from playbook_ls.lsp.tcp import tcp_address

    return tcp_address(text)


def _run_serve(args: argparse.Namespace) -> int:
    from playbook_ls.lsp.setup import serve

    return serve(args.tcp)


def tune_gc() -> None:
    """Collect less often. Resolving builds millions of small objects that all stay alive;
    with the default thresholds the collector re-scans them again and again, which cost 25%
    of a check on ~3,000 tasks and 40% on ~15,000 (and slows the server's index likewise)."""
    import gc

    gc.set_threshold(100_000, 50, 1000)


def _no_gc() -> None:
    """No cyclic collection at all: a listing or a plan keeps nearly everything it builds until it
    prints and exits, so a collection only re-scans live objects (a twentieth of a cold listing even
    with :func:`tune_gc`'s thresholds); the few cycles they leave go with the process (what a plan
    makes per task and host, templars above all, holds none: tests/engine/test_no_reference_cycles.py)."""
    import gc

    gc.disable()


def _command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, when it names a known one before any option."""
    first = argv[0] if argv else ""
    known = {*LISTING_COMMANDS, "serve", *COMMAND_MODULES}
    return first if first in known else None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    args: argparse.Namespace | SimpleNamespace | None = plain_listing_args(words)
    if args is not None:
        args.handler = _run_listing
    else:
        parser = build_parser(_command(words))
        args, rest = parser.parse_known_args(words)
        if rest:  # `vars PLAYBOOK -i INV --host H NAME...`: names after the options are names too
            if getattr(args, "command", None) != "vars" or any(item.startswith("-") for item in rest):
                parser.error(f"unrecognized arguments: {' '.join(rest)}")
            args.names = [*args.names, *rest]
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
    ends_process = args.handler is _run_listing and argv is None  # a process of its own, which ends with the listing
    if ends_process or argv is None and getattr(args, "command", None) == "plan":  # (a plan's too)
        _no_gc()
    else:
        tune_gc()
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 prints as \xff, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    from engine.vault import given_on_command_line

    given_on_command_line(getattr(args, "vault_id", None) or (), getattr(args, "vault_password_file", None) or (),
                          bool(getattr(args, "ask_vault_pass", False)))
    try:
        code = int(args.handler(args))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("playbook-ls: interrupted", file=sys.stderr)
        return 130
    if ends_process or (argv is None and getattr(args, "command", None) in _ONE_SHOT and _alone()):
        _exit_now(code)
    return code


_ONE_SHOT = frozenset({"diff", "plan"})
"""Commands that, run as a process of their own, build a large model, print it and are done: they
end without the interpreter's teardown too (a fifth of a kubespray review's CPU; a second of a
2,000-host plan's)."""


def _alone() -> bool:
    """Whether no other thread is left that the interpreter's exit would wait for (a daemon thread,
    such as the one reading a regular expression helper's replies, it does not wait for), and no
    profiler or tracer watches the process (``python -m cProfile`` writes its figures after the
    command returns)."""
    import threading

    if sys.getprofile() is not None or sys.gettrace() is not None:
        return False
    main_thread = threading.main_thread()
    return all(thread.daemon for thread in threading.enumerate() if thread is not main_thread)


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every object the
    resolution built one by one (a fifth of a cold listing of a large playbook): the exit
    handlers (the parse store's last writes) run first, the output is flushed."""
    import atexit
    import os

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:
        return  # another Python: the ordinary exit
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

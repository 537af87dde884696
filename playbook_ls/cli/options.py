"""Options several commands share, declared once so that they are spelled, defaulted and
explained alike everywhere."""

from __future__ import annotations

import argparse
import os
import sys

from playbook_ls.cli.option_table import EXTRA_VARS, SELECTION_OPTIONS, SKIP_TAGS, TAGS, VAULT_OPTIONS, Option


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; the width as argparse's own formatter finds it, but
    without importing shutil for it (which imports the compression modules): argparse makes a
    formatter for every option it adds, so a listing would pay for it before its first line."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class VersionAction(argparse.Action):
    """``--version``: the version is only looked up when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from playbook_ls import __version__

        parser._print_message(f"playbook-ls {__version__}\n", sys.stdout)
        parser.exit()


def add_selection_options(parser: argparse.ArgumentParser, *, tags: bool = True, extra_vars: bool = True,
                          launch_fields: bool = False) -> None:
    """``-t/--tags``, ``--skip-tags``, ``-l/--limit`` and ``-e/--extra-vars``, as ansible-playbook
    spells them (declared in :mod:`playbook_ls.cli.option_table`).

    ``tags``/``extra_vars``: whether the command takes them (``inventory`` takes only a limit).
    ``launch_fields``: the help names the job template field each option overrides (``launch``).
    """
    for option in SELECTION_OPTIONS:
        if (tags or option not in (TAGS, SKIP_TAGS)) and (extra_vars or option is not EXTRA_VARS):
            add_option(parser, option, launch_fields)


def add_vault_options(parser: argparse.ArgumentParser) -> None:
    """ansible-playbook's ``--vault-id``, ``--vault-password-file`` and ``--ask-vault-pass``: where
    the run gets vault secrets from (engine.vault.given_on_command_line). Nothing here reads them."""
    for option in VAULT_OPTIONS:
        add_option(parser, option)


RUN_INVENTORY_CODE_HELP = ("run the inventory's scripts and plugins (code from the repository) to know its hosts and "
                           "their variables, as ansible does; off by default")


RUN_INVENTORY_CODE_HINT = "pass --run-inventory-code to run the inventory's scripts and plugins for their hosts"


def add_run_inventory_code(parser: argparse.ArgumentParser, help: str = RUN_INVENTORY_CODE_HELP) -> None:
    """``--run-inventory-code``: the one consent a command that only shows something takes to run
    code from the repository (inventory scripts and plugins), off by default."""
    parser.add_argument("--run-inventory-code", action="store_true", help=help)


def add_option(parser: argparse.ArgumentParser, option: Option, launch_fields: bool = False) -> None:
    parser.add_argument(*option.names, **option.argparse_keywords(launch_fields))  # type: ignore[arg-type]


__all__ = ["RUN_INVENTORY_CODE_HINT", "HelpFormatter", "VersionAction", "add_option", "add_run_inventory_code",
           "add_selection_options", "add_vault_options"]


def add_user_option(parser: argparse.ArgumentParser) -> None:
    """``-u``: the play context's user, as ansible-playbook takes it (engine.flow.plan.RunOptions)."""
    parser.add_argument("-u", "--user", dest="remote_user", metavar="REMOTE_USER",
                        help="as ansible-playbook's -u: the connection's user, ansible_user where nothing sets "
                             "it (default: ansible.cfg's remote_user)")

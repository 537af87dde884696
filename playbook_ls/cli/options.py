"""Options several commands share, declared once so that they are spelled, defaulted and
explained alike everywhere."""

from __future__ import annotations

import argparse
import os
import sys


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


def add_selection_options(parser: argparse.ArgumentParser, *, tags: bool = True, extra_vars: bool = True,
                          launch_fields: bool = False) -> None:
    """``-t/--tags``, ``--skip-tags``, ``-l/--limit`` and ``-e/--extra-vars``, as ansible-playbook
    spells them. Unset options stay ``None`` (``[]`` for extra vars) so that a command can tell
    "not given" from "given empty", which a launch profile's own values depend on.

    ``tags``/``extra_vars``: whether the command takes them (``inventory`` takes only a limit).
    ``launch_fields``: the help names the job template field each option overrides (``launch``).
    """
    def explained(field: str, text: str) -> str:
        return f"{field}: {text}" if launch_fields else text

    if tags:
        parser.add_argument("-t", "--tags", action="append", default=None,
                            help=explained("job_tags", "only tasks tagged with these (repeatable, comma-separated)"))
        parser.add_argument("--skip-tags", action="append", default=None,
                            help=explained("skip_tags", "skip tasks tagged with these (repeatable, comma-separated)"))
    parser.add_argument("-l", "--limit", default=None, help=explained("limit", "further limit hosts to a pattern"))
    if extra_vars:
        parser.add_argument("-e", "--extra-vars", action="append", default=[], metavar="VARS",
                            help=explained("extra_vars", "extra variables as key=value, YAML/JSON, or @file "
                                                         "(repeatable)"))


__all__ = ["add_selection_options"]

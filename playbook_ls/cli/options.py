"""Options several commands share, declared once so that they are spelled, defaulted and
explained alike everywhere."""

from __future__ import annotations

import argparse


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

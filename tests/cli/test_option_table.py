"""A plain listing command line is read without argparse; whatever it makes of one must be what
argparse makes of it, and it must leave every other line to argparse."""

from __future__ import annotations

import contextlib
import io
import random

import pytest

from playbook_ls.cli.main import build_parser
from playbook_ls.cli.option_table import LISTING_COMMANDS, LISTING_OPTIONS, plain_listing_args

WORDS = ["site.yml", "b.yml", "", "x=1", "a,b,", "json", "text", "xml", "-", "--", "-x", "--tags", "-t",
         "--tag", "--skip-tags", "-l", "--limit", "-e", "--extra-vars", "-i", "--inventory", "--format",
         "--format=json", "--format=yaml", "--tags=", "--tags=a,b", "-t=a", "-ta", "--limit=web",
         "-h", "--help", "--version", "-1", "list-tasks", "@vars.yml", "web:!db"]


def _argparse_reading(words: list[str]) -> dict[str, object] | None:
    """argparse's namespace for ``words``; None when it refuses them or leaves words over."""
    parser = build_parser(words[0] if words and words[0] in LISTING_COMMANDS else None)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            namespace, rest = parser.parse_known_args(words)
        except SystemExit:
            return None
    if rest:
        return None
    reading = vars(namespace)
    reading.pop("handler", None)
    return reading


@pytest.mark.parametrize("words", [
    ["list-tasks", "site.yml"],
    ["list-tags", "site.yml", "b.yml"],
    ["list-tasks", "-i", "hosts.ini", "site.yml", "--tags", "deploy", "--skip-tags", "never"],
    ["list-tasks", "site.yml", "-i", "localhost,", "-i", "more.ini", "-t", "a,b", "-t", "c"],
    ["list-tasks", "--limit=web", "--format=json", "-e", "x=1", "--extra-vars", "@vars.yml", "site.yml"],
    ["list-tasks", "site.yml", "--tags="],
    ["list-tags", "--format", "json", "site.yml"],
])
def test_the_usual_listing_lines_are_read_without_argparse_as_argparse_reads_them(words: list[str]) -> None:
    plain = plain_listing_args(words)
    assert plain is not None
    assert vars(plain) == _argparse_reading(words)


@pytest.mark.parametrize("words", [
    ["list-tasks"],  # no playbook: argparse says so
    ["list-tasks", "-h"],
    ["list-tasks", "a.yml", "-i", "inv", "b.yml"],  # argparse leaves b.yml over
    ["list-tasks", "--tag", "x", "a.yml"],  # an abbreviation
    ["list-tasks", "a.yml", "--format", "xml"],
    ["list-tasks", "a.yml", "--limit", "-x"],
    ["list-tasks", "-ta", "a.yml"],
    ["list-tasks", "--", "a.yml"],
    ["--version"],
    ["check"],
])
def test_any_other_line_is_left_to_argparse(words: list[str]) -> None:
    assert plain_listing_args(words) is None


def test_on_random_command_lines_the_two_readings_never_differ() -> None:
    rng = random.Random(30)
    read_plainly = 0
    for _ in range(3000):
        words = [rng.choice(["list-tasks", "list-tags"])]
        words += [rng.choice(WORDS) for _ in range(rng.randint(0, 7))]
        plain = plain_listing_args(words)
        if plain is None:
            continue
        read_plainly += 1
        assert vars(plain) == _argparse_reading(words), words
    assert read_plainly > 100  # the comparison really ran


def test_every_listing_option_is_in_the_help_argparse_prints() -> None:
    parser = build_parser("list-tasks")
    with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
        parser.parse_args(["list-tasks", "--help"])
    for option in LISTING_OPTIONS:
        assert all(name in out.getvalue() for name in option.names)

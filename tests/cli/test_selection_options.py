"""-t/--tags, --skip-tags, -l/--limit and -e/--extra-vars mean the same on every command that
takes them: same defaults, same action, same explanation (launch adds the job field's name)."""

from __future__ import annotations

import argparse

import pytest

from playbook_ls.cli.main import build_parser

SELECTION = ("--tags", "--skip-tags", "--limit", "--extra-vars")


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return next((a for a in parser._actions if flag in a.option_strings), None)


def _shape(action: argparse.Action) -> tuple[object, ...]:
    help_text = action.help or ""
    if help_text.split(":")[0] in ("job_tags", "skip_tags", "limit", "extra_vars"):
        help_text = help_text.split(": ", 1)[1]  # launch names the job template field first
    return (tuple(action.option_strings), action.dest, type(action).__name__, repr(action.default), action.metavar,
            help_text)


@pytest.mark.parametrize("flag", SELECTION)
def test_each_selection_option_is_declared_alike(flag: str) -> None:
    commands = _commands()
    shapes = {name: _shape(action) for name, parser in commands.items()
              if (action := _option(parser, flag)) is not None}
    assert {"list-tasks", "list-tags", "run", "launch"} <= set(shapes)
    assert len(set(shapes.values())) == 1, shapes


def test_inventory_takes_a_limit_and_extra_vars_as_ansible_inventory_does() -> None:
    inventory = _commands()["inventory"]
    assert [flag for flag in SELECTION if _option(inventory, flag)] == ["--limit", "--extra-vars"]


def test_unset_tags_are_none_so_a_profile_can_supply_them() -> None:
    args = build_parser().parse_args(["list-tasks", "site.yml"])
    assert (args.tags, args.skip_tags, args.limit, args.extra_vars) == (None, None, None, [])
    args = build_parser().parse_args(["run", "site.yml", "-t", "a,b", "-t", "c", "-e", "x=1"])
    assert (args.tags, args.extra_vars) == (["a,b", "c"], ["x=1"])


def test_inventory_is_repeatable_on_every_command_that_takes_it() -> None:
    """ansible-playbook and ansible-inventory read every ``-i`` in order; none keeps only the last."""
    takers = {name: action for name, parser in _commands().items() if (action := _option(parser, "--inventory"))}
    assert {"inventory", "run", "launch", "plan", "vars", "list-tasks"} <= set(takers)
    assert {name for name, action in takers.items() if not isinstance(action, argparse._AppendAction)} == set()
    args = build_parser().parse_args(["run", "site.yml", "-i", "a.ini", "-i", "b,"])
    assert args.inventory == ["a.ini", "b,"]

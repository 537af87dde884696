"""The command-line reference in docs/ is generated from the real parser and is current."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_cli_docs.py"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return load_script("gen_cli_docs")


def test_cli_reference_is_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def _block(text: str, name: str) -> str:
    match = re.search(rf"<!-- BEGIN generated cli {re.escape(name)} -->\n(.*?)<!-- END generated cli ", text, re.DOTALL)
    assert match, f"docs/cli.md has no generated reference for {name}"
    return match[1]


def test_every_command_and_option_is_in_the_reference(gen: ModuleType) -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    commands = gen.commands()
    assert [c.name for c in commands[1:]] == ["list-tasks", "list-tags", "check", "launch", "inventory", "run", "why",
                                             "plan", "vars", "diff", "serve"]
    for command in commands:
        block = _block(text, command.name)
        for action in command.parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            for flag in action.option_strings:
                assert f"`{flag}`" in block, f"{command.name}: {flag} is not documented"
            if not action.option_strings:
                assert f"`{gen._metavar(action)}" in block, f"{command.name}: {action.dest} is not documented"
        if command.name != gen.PROGRAM:
            assert f"## `playbook-ls {command.name}`" in text
            assert f"[`{command.name}`](#{gen.anchor(command.name)})" in _block(text, gen.PROGRAM)


def test_reference_does_not_depend_on_the_terminal(gen: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    wide = [gen.reference(c) for c in gen.commands()]
    monkeypatch.setenv("COLUMNS", "40")
    assert [gen.reference(c) for c in gen.commands()] == wide
    assert all(len(line) <= gen.WIDTH for c in gen.commands() for line in gen.synopsis(c).splitlines())


def test_unknown_command_in_a_marker_is_reported(gen: ModuleType) -> None:
    known = {c.name: c for c in gen.commands()}
    text = "<!-- BEGIN generated cli-usage nosuch -->\nold\n<!-- END generated cli-usage nosuch -->\n"
    new, problems = gen.render(text, known, "page.md")
    assert new == text
    assert problems and "no command 'nosuch'" in problems[0]


def test_usage_block_is_filled_in(gen: ModuleType) -> None:
    known = {c.name: c for c in gen.commands()}
    text = "before\n<!-- BEGIN generated cli-usage serve -->\nstale\n<!-- END generated cli-usage serve -->\nafter\n"
    new, problems = gen.render(text, known, "page.md")
    assert problems == []
    assert "stale" not in new and "playbook-ls serve [--stdio] [--tcp HOST:PORT]" in new
    assert new.startswith("before\n") and new.endswith("after\n")


def test_markdown_in_help_text_is_escaped(gen: ModuleType) -> None:
    parser = argparse.ArgumentParser(prog="playbook-ls x")
    parser.add_argument("--pick", choices=("a", "b"), help="use a|b with *care* <here>")
    row = [line for line in gen.reference(gen.Command("x", parser, None)).splitlines() if "`--pick`" in line][0]
    assert r"a\|b with \*care\* &lt;here>" in row
    assert "`a` \\| `b`" in row

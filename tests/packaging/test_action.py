"""The GitHub composite action (action.yml) installs playbook-ls from its own checkout and runs
check with options the command really has; its SARIF step keeps exit 2 (a configuration error)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from playbook_ls.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _check_commands(run: str) -> list[list[str]]:
    """The playbook-ls check command lines of a step, with the action's inputs filled in."""
    text = re.sub(r"\\\n\s*", " ", run)
    text = text.replace("${{ inputs.args }}", "--select PLS1").replace("${{ inputs.paths }}", ".")
    commands = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "/bin/playbook-ls\" check" in line:
            commands.append(shlex.split(line.split('playbook-ls" ', 1)[1]))
    return commands


def test_a_composite_action_installing_from_its_own_checkout() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert 'pip" install --quiet "$GITHUB_ACTION_PATH"' in steps[0]["run"]
    assert {"paths", "format", "args", "python"} <= set(action["inputs"])


def test_every_check_command_parses_and_sarif_keeps_exit_2() -> None:
    commands = [c for step in _action()["runs"]["steps"] if "run" in step for c in _check_commands(step["run"])]
    assert len(commands) == 2
    parser = build_parser()
    for argv in commands:
        args = parser.parse_args(argv)
        assert args.paths == ["."]
    sarif = next(c for c in commands if "sarif" in c)
    assert "--exit-zero" in sarif and "--output-file" in sarif and "||" not in " ".join(sarif)

"""Fill the generated command-line reference in docs/ from the real argument parser.

Usage: python scripts/gen_cli_docs.py [--check]   (--check: exit 1 if a page is out of date)

A page asks for generated text with a pair of markers; the script replaces what is between them:

    <!-- BEGIN generated cli COMMAND -->  ...  <!-- END generated cli COMMAND -->
        the synopsis, the description, a table of every argument and option of COMMAND and
        its ``--help`` examples (``playbook-ls`` for the program itself, with the commands)
    <!-- BEGIN generated cli-usage COMMAND -->  ...  <!-- END generated cli-usage COMMAND -->
        the synopsis only, for pages that explain one command in depth

docs/cli.md must hold a ``cli`` block for the program and for every command, so that the
reference lists every command and every option; the script fails when one is missing.
Everything comes from ``playbook_ls.cli.main.build_parser()``, rendered without argparse's help
formatter (whose output depends on the terminal width and the Python version).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playbook_ls.cli.main import build_parser  # noqa: E402
from scripts.generated import sync  # noqa: E402

DOCS = ROOT / "docs"
REFERENCE = DOCS / "cli.md"
PROGRAM = "playbook-ls"
WIDTH = 78  # synopsis lines are wrapped to this many columns (a code block of the site)
_BLOCK = re.compile(
    r"(?P<begin><!-- BEGIN generated (?P<kind>cli|cli-usage) (?P<name>[\w-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<end><!-- END generated (?P=kind) (?P=name) -->)",
    re.DOTALL,
)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_|\[\]])")


@dataclass(frozen=True)
class Command:
    name: str  # "playbook-ls" for the program itself
    parser: argparse.ArgumentParser
    summary: str | None


def commands(parser: argparse.ArgumentParser | None = None) -> list[Command]:
    """The program and each of its commands, in the order ``--help`` lists them."""
    parser = parser or build_parser()
    found = [Command(PROGRAM, parser, parser.description)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            found += [Command(name, sub, helps.get(name)) for name, sub in action.choices.items()]
    return found


def escape(text: str) -> str:
    """Help text as literal Markdown (also inside a table cell)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text.replace("&", "&amp;").replace("<", "&lt;"))


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "|".join(str(choice) for choice in action.choices)
    return action.dest.upper() if action.option_strings else action.dest


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _positional_usage(action: argparse.Action) -> str:
    name = _metavar(action)
    if action.nargs == "+":
        return f"{name}..."
    if action.nargs == "*":
        return f"[{name}...]"
    if action.nargs == "?":
        return f"[{name}]"
    if isinstance(action, argparse._SubParsersAction):
        return f"{name} ..."
    return name


def _option_usage(action: argparse.Action) -> str:
    flag = action.option_strings[0]
    text = f"{flag} {_metavar(action)}" if _takes_value(action) else flag
    return text if action.required else f"[{text}]"


def _shown(action: argparse.Action) -> bool:
    return not isinstance(action, argparse._HelpAction) and action.help is not argparse.SUPPRESS


def synopsis(command: Command) -> str:
    """``playbook-ls check [PATH...] [--format text|json|sarif|github] ...``, wrapped."""
    head = PROGRAM if command.name == PROGRAM else f"{PROGRAM} {command.name}"
    actions = [a for a in command.parser._actions if _shown(a)]
    parts = [_positional_usage(a) for a in actions if not a.option_strings and not _is_subparsers(a)]
    parts += [_option_usage(a) for a in actions if a.option_strings]
    parts += [_positional_usage(a) for a in actions if _is_subparsers(a)]
    lines, line = [], head
    indent = " " * (len(head) + 1)
    for part in parts:
        if len(line) + 1 + len(part) > WIDTH and line.strip() != head:
            lines.append(line)
            line = indent + part
        else:
            line = f"{line} {part}"
    lines.append(line)
    return "\n".join(lines)


def _is_subparsers(action: argparse.Action) -> bool:
    return isinstance(action, argparse._SubParsersAction)


def _description(action: argparse.Action) -> str:
    help_text = (action.help or "").strip()
    sentences = [escape(help_text).rstrip(".") + "." if help_text else ""]
    lowered = help_text.lower()
    if not action.option_strings:
        sentences.append({"+": "One or more.", "*": "Zero or more.", "?": "Optional."}.get(str(action.nargs), ""))
    if action.required and action.option_strings:
        sentences.append("Required.")
    if isinstance(action, argparse._AppendAction) and "repeatable" not in lowered:
        sentences.append("Repeatable.")
    if isinstance(action, argparse._CountAction) and "-v" not in lowered:
        sentences.append("Repeatable.")
    if action.choices is not None and action.metavar is not None and not _is_subparsers(action):
        sentences.append("One of " + ", ".join(f"`{choice}`" for choice in action.choices) + ".")
    default = action.default
    if (default not in (None, False, [], argparse.SUPPRESS) and not isinstance(action, argparse._CountAction)
            and "default" not in lowered and not (action.option_strings and action.nargs == 0)):
        sentences.append(f"Default: `{default}`.")
    return " ".join(sentence for sentence in sentences if sentence)


def _name_cell(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{_positional_usage(action).strip('[]')}`"
    return ", ".join(f"`{flag}`" for flag in action.option_strings)


def _value_cell(action: argparse.Action) -> str:
    if not action.option_strings or not _takes_value(action):
        return ""
    if action.metavar is None and action.choices is not None:
        return " \\| ".join(f"`{choice}`" for choice in action.choices)
    return f"`{_metavar(action)}`"


def reference(command: Command) -> str:
    """The synopsis, the description and the table of arguments and options."""
    out = ["```text", synopsis(command), "```", ""]
    description = command.parser.description or command.summary
    if description:
        out += [escape(description[:1].upper() + description[1:]).rstrip(".") + ".", ""]
    shown = [a for a in command.parser._actions if _shown(a) and not _is_subparsers(a)]
    rows = [a for a in shown if not a.option_strings] + [a for a in shown if a.option_strings]
    if rows:
        out += ["| argument or option | value | meaning |", "| --- | --- | --- |"]
        out += [f"| {_name_cell(a)} | {_value_cell(a)} | {_description(a)} |" for a in rows]
        out.append("")
    subcommands = commands(command.parser)[1:] if command.name == PROGRAM else []
    if subcommands:
        out += ["| command | what it does |", "| --- | --- |"]
        out += [f"| [`{c.name}`](#{anchor(c.name)}) | {escape(c.summary or '')} |" for c in subcommands]
        out.append("")
    if command.parser.epilog:
        out += ["```text", command.parser.epilog.strip("\n"), "```", ""]
    return "\n".join(out)


def anchor(name: str) -> str:
    """The id of the heading ``## `playbook-ls NAME` `` in docs/cli.md (see ``heading``)."""
    return f"{PROGRAM}-{name}".replace(" ", "-")


def usage(command: Command) -> str:
    return "\n".join(["```text", synopsis(command), "```", ""])


def render(text: str, known: dict[str, Command], where: str) -> tuple[str, list[str]]:
    """``text`` with every generated block filled in, and the problems found."""
    problems: list[str] = []

    def fill(match: re.Match[str]) -> str:
        command = known.get(match["name"])
        if command is None:
            problems.append(f"{where}: no command '{match['name']}' (known: {', '.join(known)})")
            return match[0]
        body = reference(command) if match["kind"] == "cli" else usage(command)
        return f"{match['begin']}{body}{match['end']}"

    return _BLOCK.sub(fill, text), problems


def pages() -> tuple[dict[Path, str], list[str]]:
    """Every page holding generated blocks, with its new text; and the problems found."""
    known = {command.name: command for command in commands()}
    result: dict[Path, str] = {}
    problems: list[str] = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if "<!-- BEGIN generated cli" not in text:
            continue
        new, found = render(text, known, str(path.relative_to(ROOT)))
        result[path] = new
        problems += found
    reference_text = result.get(REFERENCE, "")
    listed = {m["name"] for m in _BLOCK.finditer(reference_text) if m["kind"] == "cli"}
    missing = [name for name in known if name not in listed]
    if missing:
        problems.append(f"{REFERENCE.relative_to(ROOT)} has no generated reference for: {', '.join(missing)}; add "
                        f"'<!-- BEGIN generated cli NAME -->' and '<!-- END generated cli NAME -->' for each")
    return result, problems


def main(argv: list[str]) -> int:
    result, problems = pages()
    for problem in problems:
        print(problem, file=sys.stderr)
    code = sync(result, argv if not problems else [*argv, "--check"], "gen_cli_docs.py",
                "pages with generated command-line reference")
    return 1 if problems else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

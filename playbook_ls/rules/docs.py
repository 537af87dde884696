"""Rule documentation from the rule modules' docstrings.

A docstring starts with the rule's name, then ``## What it does``, ``## Why is this bad?``,
``## Example`` (code blocks, each optionally titled with the file it stands for:
```` ```yaml title="roles/x/tasks/main.yml" ````), ``Use instead:`` with the fixed code, and
optional sections such as ``## Options``. The page adds how to silence the rule.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import NamedTuple

REQUIRED = ("## What it does", "## Why is this bad?", "## Example")
_BLOCK = re.compile(r'```(?P<lang>\w+)(?:\s+title="(?P<title>[^"]+)")?\n(?P<body>.*?)```', re.DOTALL)


class CodeBlock(NamedTuple):
    lang: str
    title: str | None
    body: str


SCOPES = {"playbook": "each playbook", "project": "the whole project",
          "noqa": "the `# noqa` comments of the checked files (`check`) and of the files open in the editor"}


def missing_sections(module: ModuleType) -> list[str]:
    doc = module.__doc__ or ""
    return [heading for heading in (*REQUIRED, "Use instead:") if heading not in doc]


def examples(module: ModuleType) -> tuple[list[CodeBlock], list[CodeBlock]]:
    """The code blocks of the Example (bad) and of 'Use instead:' (good)."""
    doc = module.__doc__ or ""
    example = doc.split("## Example", 1)[1] if "## Example" in doc else ""
    bad, _, rest = example.partition("Use instead:")
    good = rest.split("\n## ", 1)[0]
    return _blocks(bad), _blocks(good)


def _blocks(text: str) -> list[CodeBlock]:
    return [CodeBlock(m["lang"], m["title"], m["body"]) for m in _BLOCK.finditer(text)]


def render_page(module: ModuleType) -> str:
    """The Markdown page for docs/rules/CODE.md."""
    doc = (module.__doc__ or "").strip()
    body = doc.split("\n", 1)[1].strip() if "\n" in doc else ""
    options = getattr(module, "OPTIONS", {})
    config = f'[tool.playbook-ls.rules.{module.CODE}]\n' + "".join(
        f"{name} = {str(value).lower() if isinstance(value, bool) else repr(value)}\n"
        for name, value in options.items())
    lines = [
        f"# {module.NAME} ({module.CODE})",
        "",
        f"Default severity: **{module.SEVERITY}**. "
        f"Scope: {SCOPES[module.SCOPE]}.",
        "",
        body,
        "",
        "## How to silence it",
        f"- On one line: append `# noqa: {module.CODE}` to the line the finding points at.",
        f'- Everywhere: `ignore = ["{module.CODE}"]` in `[tool.playbook-ls]` of pyproject.toml '
        f"(or `ignore: [{module.CODE}]` in `.playbook-ls.yml`), or `--ignore {module.CODE}` on the command line.",
        f'- Change its severity: `severity = {{ {module.CODE} = "info" }}`.',
    ]
    if options:
        lines += ["- Options go in their own table:", "", "```toml", config.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def render_index(modules: list[ModuleType]) -> str:
    from playbook_ls.check.formats import first_paragraph

    rows = [f"| [{m.CODE}]({m.CODE}.md) | {m.NAME} | {m.SEVERITY} | {first_paragraph(m.__doc__ or '')} |"
            for m in modules]
    return "\n".join(["# Rules", "", "| code | name | default severity | what it checks |", "|---|---|---|---|",
                      *rows]) + "\n"

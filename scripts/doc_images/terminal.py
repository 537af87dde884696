"""The terminal: playbook-ls check on the example."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from scripts.doc_images.svg import CHAR, Run, Svg, columns, rect, split_runs, text_line

ROOT = Path(__file__).resolve().parents[2]

TERMINAL_CSS = """
.window { fill: #0d1117; stroke: #30363d; }
.titlebar { fill: #161b22; }
.dot-r { fill: #ff5f57; } .dot-y { fill: #febc2e; } .dot-g { fill: #28c840; }
.title { fill: #8b949e; }
.out { fill: #c9d1d9; }
.prompt { fill: #3fb950; }
.bold { font-weight: bold; fill: #f0f6fc; }
.red { fill: #ff7b72; } .yellow { fill: #d29922; } .cyan { fill: #39c5cf; }
"""
TERM_SIZE = 13
TERM_CELL = round(TERM_SIZE * CHAR)
TERM_COLUMNS = 100
_SGR = {"31": "red", "33": "yellow", "36": "cyan"}


def ansi_runs(line: str) -> list[Run]:
    """A line of terminal output with SGR colour codes as styled runs."""
    runs: list[Run] = []
    bold, colour = False, ""
    for token in re.split(r"(\x1b\[[0-9;]*m)", line):
        match = re.fullmatch(r"\x1b\[([0-9;]*)m", token)
        if match:
            for code in (match[1] or "0").split(";"):
                if code == "0":
                    bold, colour = False, ""
                elif code == "1":
                    bold = True
                elif code in _SGR:
                    colour = _SGR[code]
        elif token:
            runs.append(Run(token, " ".join(s for s in ("bold" if bold else "", colour) if s)))
    return runs


def terminal_image() -> str:
    from playbook_ls.cli.main import main

    # --no-cache, --color always and -j 1 only make the picture reproducible; it shows the plain command
    shown = "playbook-ls check examples/tag-inheritance"
    out = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out):
        code = main(["check", "--no-cache", "--color", "always", "-j", "1", "examples/tag-inheritance"])
    rows: list[list[Run]] = [[Run("$ ", "prompt"), Run(shown)]]
    for line in out.getvalue().splitlines():
        rows += _hard_wrap(ansi_runs(line), TERM_COLUMNS)
    rows += [[Run("$ ", "prompt"), Run("echo $?")], [Run(str(code))]]
    width = TERM_COLUMNS * TERM_CELL + 32
    height = 44 + len(rows) * 19 + 14
    title = "playbook-ls check in a terminal"
    description = f"Output of: {shown}. " + " ".join(
        "".join(run.text for run in row) for row in rows)
    svg = Svg(width, height, title, description, TERMINAL_CSS)
    svg.add(rect(0, 0, width, height, "window", radius=8))
    svg.add(f'<path d="M0 8 a8 8 0 0 1 8 -8 H{width - 8} a8 8 0 0 1 8 8 V28 H0 Z" class="titlebar"/>')
    for number, cls in enumerate(("dot-r", "dot-y", "dot-g")):
        svg.add(f'<circle cx="{16 + number * 18}" cy="14" r="5" class="{cls}"/>')
    svg.add(text_line(width // 2 - 9 * TERM_CELL, 18, [Run("terminal — playbook-ls", "title")], 12))
    y = 50
    for row in rows:
        svg.add(text_line(16, y, row, TERM_SIZE, "out"))
        y += 19
    return svg.render()


def _hard_wrap(runs: list[Run], width: int) -> list[list[Run]]:
    """Wrap at ``width`` columns the way a terminal does: anywhere."""
    rows: list[list[Run]] = []
    rest = runs
    while columns(rest) > width:
        head, rest = split_runs(rest, width)
        rows.append(head)
    rows.append(rest)
    return rows

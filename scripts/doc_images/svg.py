"""SVG primitives on a monospace grid: text runs, wrapping, boxes, inline markdown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape as _xml_escape

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace"
CHAR = 0.6  # advance of a monospace character, in em


def xml(text: str) -> str:
    """Text escaped for XML content and attribute values."""
    return _xml_escape(text, {'"': "&quot;", "'": "&apos;"})


@dataclass(frozen=True)
class Run:
    """A piece of text in one style (CSS classes of the image's stylesheet)."""

    text: str
    style: str = ""


def text_line(x: int, y: int, runs: Sequence[Run], size: int, style: str = "") -> str:
    """One line of text on a monospace grid. Every run, and every non-ASCII character (whose
    glyph may come from a fallback font of another width), starts at its grid column, so a
    font with other metrics cannot shift the rest of the line."""
    width = size * CHAR
    spans: list[str] = []
    column = 0
    for run in runs:
        for piece in re.findall(r"[\x00-\x7f]+|[^\x00-\x7f]", run.text):
            if piece.strip():
                cls = f' class="{run.style}"' if run.style else ""
                spans.append(f'<tspan x="{x + round(column * width)}"{cls}>{xml(piece)}</tspan>')
            column += len(piece)
    cls = f' class="{style}"' if style else ""
    return f'<text y="{y}" font-size="{size}"{cls} xml:space="preserve">{"".join(spans)}</text>'


def columns(runs: Sequence[Run]) -> int:
    return sum(len(run.text) for run in runs)


@dataclass
class Svg:
    width: int
    height: int
    title: str
    description: str
    css: str
    body: list[str] = field(default_factory=list)

    def add(self, element: str) -> None:
        self.body.append(element)

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" role="img" aria-labelledby="title desc">')
        style = f"text {{ font-family: {FONT}; }}\n{self.css.strip()}"
        return "\n".join([
            head,
            f'<title id="title">{xml(self.title)}</title>',
            f'<desc id="desc">{xml(self.description)}</desc>',
            f"<style>\n{style}\n</style>",
            *self.body,
            "</svg>",
        ]) + "\n"


def rect(x: int, y: int, w: int, h: int, cls: str, radius: int = 6) -> str:
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{radius}" class="{cls}"/>'


def wrap(runs: Sequence[Run], width: int) -> list[list[Run]]:
    """Word-wrap styled runs into lines of at most ``width`` characters (longer words are cut)."""
    words: list[list[Run]] = [[]]
    for run in runs:
        for piece in re.split(r"( )", run.text):
            if piece == " ":
                words.append([Run(" ", run.style)])
                words.append([])
            elif piece:
                words[-1].append(Run(piece, run.style))
    lines: list[list[Run]] = [[]]
    for word in words:
        if not word:
            continue
        length = columns(word)
        if word[0].text == " ":
            if lines[-1] and columns(lines[-1]) + 1 <= width:
                lines[-1].extend(word)
            continue
        if lines[-1] and columns(lines[-1]) + length > width:
            while lines[-1] and lines[-1][-1].text == " ":
                lines[-1].pop()
            lines.append([])
        while length > width:  # a word longer than a line: cut it
            head, rest = split_runs(word, width - columns(lines[-1]))
            lines[-1].extend(head)
            lines.append([])
            word, length = rest, columns(rest)
        lines[-1].extend(word)
    return [line for line in lines if line] or [[]]


def split_runs(runs: Sequence[Run], at: int) -> tuple[list[Run], list[Run]]:
    head: list[Run] = []
    rest: list[Run] = []
    column = 0
    for run in runs:
        if column >= at:
            rest.append(run)
        elif column + len(run.text) <= at:
            head.append(run)
        else:
            head.append(Run(run.text[: at - column], run.style))
            rest.append(Run(run.text[at - column:], run.style))
        column += len(run.text)
    return head, rest


def inline_markdown(text: str, base: str = "") -> list[Run]:
    """``**bold**`` and ```code``` of a hover's Markdown as runs (styles ``b``, ``code``, ``b code``)."""
    runs: list[Run] = []
    bold = code = False
    for token in re.split(r"(\*\*|`)", text):
        if token == "**" and not code:
            bold = not bold
        elif token == "`":
            code = not code
        elif token:
            style = " ".join(s for s, on in ((base, bool(base)), ("b", bold), ("code", code)) if on)
            runs.append(Run(token, style))
    return runs

"""Render the documentation's pictures, docs/images/*.svg, from the real engine and server.

Usage: python scripts/gen_doc_images.py [--check]   (--check: exit 1 if an image is out of date)

Nothing is drawn by hand: every tag, file position, hover line and finding comes from
playbook-ls run on the bundled example, examples/tag-inheritance:

- ``inheritance-task2.svg``: the inheritance chain of ``sample : task2`` (its frames and the
  origin of each tag, as ``list-tasks --format json`` gives them) and which runs select it;
- ``inheritance-other-sub.svg``: ``other : other_sub``, reached in two contexts;
- ``hover-task2.svg``: the editor on roles/sample/tasks/main.yml with the server's inlay hints,
  diagnostics and the hover for task2 (the pure feature functions of playbook_ls.features);
- ``check-output.svg``: ``playbook-ls check examples/tag-inheritance`` in a terminal.

The output is deterministic: ansible configuration from the environment is ignored, paths are
relative, coordinates are whole numbers, and text is laid out on a monospace grid.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as _xml_escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.generated import sync  # noqa: E402

EXAMPLE = ROOT / "examples" / "tag-inheritance"
IMAGES = ROOT / "docs" / "images"
FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace"
CHAR = 0.6  # advance of a monospace character, in em


# -- SVG primitives ---------------------------------------------------------------------------


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
            head, rest = _split_runs(word, width - columns(lines[-1]))
            lines[-1].extend(head)
            lines.append([])
            word, length = rest, columns(rest)
        lines[-1].extend(word)
    return [line for line in lines if line] or [[]]


def _split_runs(runs: Sequence[Run], at: int) -> tuple[list[Run], list[Run]]:
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


# -- the example, resolved -------------------------------------------------------------------


@contextlib.contextmanager
def neutral_environment() -> Iterator[None]:
    """No ansible configuration but an empty one, and no ANSIBLE_* variables, so that the
    pictures do not depend on the machine they are made on."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as empty:
        config = Path(empty) / "ansible.cfg"
        config.write_text("")
        for name in [name for name in os.environ if name.startswith("ANSIBLE_")]:
            del os.environ[name]
        os.environ["ANSIBLE_CONFIG"] = str(config)
        os.environ["ANSIBLE_HOME"] = str(Path(empty) / "home")
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def example_tasks() -> list[dict[str, Any]]:
    """Every task of the example's playbook as ``list-tasks --format json`` describes it, with
    paths relative to the example directory."""
    from engine.config import AnsibleConfig
    from engine.resolve import Resolver
    from engine.source import SourceCache
    from playbook_ls.cli.listing import task_data
    from playbook_ls.rules.base import display_path

    with contextlib.chdir(EXAMPLE):
        book = Resolver(sources=SourceCache(), config=AnsibleConfig.load(), extra_vars={}).load_playbook(
            "playbook.yml")
        tasks = [task_data(task) for play in book.plays for task in play.all_tasks()]

        def relative(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: display_path(v) if k == "file" else relative(v) for k, v in value.items()}
            if isinstance(value, list):
                return [relative(item) for item in value]
            return value

        return relative(tasks)


def selected(tags: Sequence[str], only: Sequence[str], skip: Sequence[str]) -> bool:
    from engine.model import UNTAGGED
    from engine.tags import Selection, should_run

    return should_run(frozenset(tags) or UNTAGGED, Selection.from_options(only, skip))


# -- inheritance chains ----------------------------------------------------------------------

CHAIN_CSS = """
.bg { fill: #ffffff; stroke: #d0d7de; }
.frame { fill: #f6f8fa; stroke: #8c959f; stroke-width: 1.2; }
.result { fill: #eef6ff; stroke: #0969da; stroke-width: 1.6; }
.kind { fill: #57606a; }
.label { fill: #1f2328; font-weight: bold; }
.where { fill: #57606a; }
.none { fill: #8c959f; font-style: italic; }
.head { fill: #1f2328; font-weight: bold; }
.arrow { stroke: #57606a; stroke-width: 1.6; fill: none; }
.arrowhead { fill: #57606a; }
.edge { fill: #57606a; font-size: 11px; font-style: italic; }
.runs { fill: #1a7f37; font-weight: bold; }
.skipped { fill: #cf222e; font-weight: bold; }
.cmd { fill: #1f2328; }
.chip-text { fill: #ffffff; font-weight: bold; }
.chip-play { fill: #0969da; }
.chip-roles { fill: #1a7f37; }
.chip-import_role { fill: #bc4c00; }
.chip-import_tasks { fill: #6e7781; }
.chip-dependency { fill: #8250df; }
.chip-block { fill: #4d2d00; }
.chip-import_playbook { fill: #0550ae; }
.chip-task { fill: #8250df; }
.chip-never { fill: #cf222e; }
"""

SIZE = 13
CELL = round(SIZE * CHAR)  # px per character at SIZE
KIND_NAMES = {"roles": "ROLES: ENTRY", "import_role": "IMPORT_ROLE", "import_tasks": "IMPORT_TASKS",
              "import_playbook": "IMPORT_PLAYBOOK", "dependency": "ROLE DEPENDENCY", "block": "BLOCK",
              "play": "PLAY", "task": "TASK"}


@dataclass(frozen=True)
class Launch:
    """A tag selection shown under a chain: the command-line flags and what they select."""

    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()

    def flags(self) -> str:
        parts = [f"--tags {','.join(self.only)}"] if self.only else []
        parts += [f"--skip-tags {','.join(self.skip)}"] if self.skip else []
        return " ".join(parts) if parts else "no --tags"


def _chip_class(tag: str, kind: str) -> str:
    return "chip-never" if tag in ("never", "always") else f"chip-{kind}"


def _chips(x: int, y: int, chips: Sequence[tuple[str, str]], svg: Svg) -> int:
    """Tag chips from ``x`` on the text line at ``y``; returns the x after the last."""
    for tag, cls in chips:
        width = len(tag) * CELL + 12
        svg.add(rect(x, y - SIZE, width, SIZE + 7, cls, radius=9))
        svg.add(text_line(x + 6, y, [Run(tag, "chip-text")], SIZE))
        x += width + 6
    return x


def _chain_column(task: dict[str, Any], x: int, y: int, width: int, launches: Sequence[Launch],
                  svg: Svg) -> int:
    """Draw one context of a task: its frames top to bottom, then the effective tags and what
    each launch does with them. Returns the y below the column."""
    origins: dict[str, list[tuple[str, str]]] = {}
    for origin in task["tag_origins"]:
        frame = origin["from"]
        key = f"{frame['kind']}|{frame['label']}|{_where(frame['span'])}"
        origins.setdefault(key, []).append((origin["tag"], frame["kind"]))
    box_h = 3 * 20 + 12
    for number, frame in enumerate(task["chain"]):
        if number:
            svg.add(f'<path d="M{x + 28} {y - 26} V{y - 4}" class="arrow"/>')
            svg.add(f'<path d="M{x + 23} {y - 9} L{x + 28} {y - 1} L{x + 33} {y - 9} Z" class="arrowhead"/>')
            svg.add(text_line(x + 40, y - 10, [Run("inherited by")], 11, "edge"))
        svg.add(rect(x, y, width, box_h, "frame"))
        svg.add(text_line(x + 12, y + 17, [Run(KIND_NAMES.get(frame["kind"], frame["kind"].upper()) + "  "),
                                          Run(_where(frame["span"]), "where")], 11, "kind"))
        svg.add(text_line(x + 12, y + 37, [Run(_short_label(frame), "label")], SIZE))
        key = f"{frame['kind']}|{frame['label']}|{_where(frame['span'])}"
        tags = origins.get(key, [])
        if tags:
            svg.add(text_line(x + 12, y + 60, [Run("tags:", "where")], SIZE))
            _chips(x + 12 + 6 * CELL, y + 60, [(tag, _chip_class(tag, kind)) for tag, kind in tags], svg)
        else:
            svg.add(text_line(x + 12, y + 60, [Run("no tags of its own", "none")], SIZE))
        y += box_h + 34
    # the result: the union of every level's tags, and what each launch does with the task
    svg.add(f'<path d="M{x + 28} {y - 26} V{y - 4}" class="arrow"/>')
    svg.add(f'<path d="M{x + 23} {y - 9} L{x + 28} {y - 1} L{x + 33} {y - 9} Z" class="arrowhead"/>')
    svg.add(text_line(x + 40, y - 10, [Run("union of every level")], 11, "edge"))
    result_h = 20 + 30 + 22 * (len(launches) + 1) + 10
    svg.add(rect(x, y, width, result_h, "result"))
    svg.add(text_line(x + 12, y + 20, [Run("effective tags of "), Run(task["name"], "label")], SIZE, "head"))
    chips = [(o["tag"], _chip_class(o["tag"], o["from"]["kind"])) for o in task["tag_origins"]]
    _chips(x + 12, y + 46, list(dict.fromkeys(chips)), svg)
    line_y = y + 46 + 26
    svg.add(text_line(x + 12, line_y, [Run("ansible-playbook with", "where")], SIZE))
    pad = max(len(launch.flags()) for launch in launches)
    for launch in launches:
        line_y += 22
        runs = selected(task["tags"], launch.only, launch.skip)
        svg.add(text_line(x + 12, line_y, [Run("  " + launch.flags().ljust(pad), "cmd"), Run(" → "),
                                           Run("runs it" if runs else "skips it", "runs" if runs else "skipped")],
                          SIZE))
    return y + result_h


def _short_label(frame: dict[str, Any]) -> str:
    label = str(frame["label"])
    for prefix in ("roles: entry ", "play ", "task "):
        if label.startswith(prefix):
            return label[len(prefix):]
    return label


def _where(span: dict[str, Any] | None) -> str:
    return f"{span['file']}:{span['line']}" if span else ""


def _column_width(task: dict[str, Any], launches: Sequence[Launch]) -> int:
    texts = [len(_short_label(f)) for f in task["chain"]]
    texts.append(len("effective tags of ") + len(task["name"]))
    texts += [2 + len(launch.flags()) + len(" → skips it") for launch in launches]
    small = [len(KIND_NAMES.get(f["kind"], f["kind"])) + 2 + len(_where(f["span"])) for f in task["chain"]]
    chips = sum(len(o["tag"]) * CELL + 18 for o in task["tag_origins"])
    return max(max(texts) * CELL + 24, round(max(small) * 11 * CHAR) + 32, chips + 24, 280)


def chain_image(name: str, launches: Sequence[Launch], title: str, description: str) -> str:
    contexts = [task for task in example_tasks() if task["name"] == name]
    if not contexts:
        raise SystemExit(f"the example has no task {name!r}")
    widths = [_column_width(task, launches) for task in contexts]
    x, top, gap = 16, 16, 28
    body: list[str] = []
    svg = Svg(0, 0, title, description, CHAIN_CSS, body)
    bottom = 0
    heading = 0
    if len(contexts) > 1:
        heading = 26
        for number in range(len(contexts)):
            left = x + sum(widths[:number]) + gap * number
            svg.add(text_line(left, top + 14, [Run(f"context {number + 1} of {len(contexts)}")], SIZE, "head"))
    for number, task in enumerate(contexts):
        left = x + sum(widths[:number]) + gap * number
        bottom = max(bottom, _chain_column(task, left, top + heading, widths[number], launches, svg))
    svg.width = x + sum(widths) + gap * (len(widths) - 1) + 16
    svg.height = bottom + 16
    svg.body.insert(0, rect(0, 0, svg.width, svg.height, "bg", radius=8))
    return svg.render()


# -- the editor: inlay hints, diagnostics and the hover of task2 ---------------------------------

EDITOR_CSS = """
.window { fill: #1e1e1e; stroke: #3c3c3c; }
.tabbar { fill: #252526; }
.tab { fill: #1e1e1e; }
.tabtext { fill: #ffffff; }
.crumb { fill: #a9a9a9; }
.gutter { fill: #858585; }
.current { fill: #c6c6c6; }
.lineband { fill: #282828; }
.plain { fill: #d4d4d4; }
.key { fill: #569cd6; }
.str { fill: #ce9178; }
.punct { fill: #d4d4d4; }
.hint-bg { fill: #2c2c2c; }
.hint { fill: #969696; }
.squiggle { stroke: #cca700; stroke-width: 1.2; fill: none; }
.popup { fill: #252526; stroke: #454545; }
.popup-text { fill: #cccccc; }
.b { font-weight: bold; fill: #e0e0e0; }
.code { fill: #d7ba7d; }
.rule { stroke: #454545; }
.problem { fill: #cca700; }
"""
EDITOR_SIZE = 13
EDITOR_CELL = round(EDITOR_SIZE * CHAR)
LINE_H = 20
POPUP_WIDTH = 76  # characters


def _yaml_runs(line: str) -> list[Run]:
    """Enough YAML colouring for a task file: keys, list dashes, quoted and plain values."""
    match = re.match(r"^(\s*)(- )?([\w.]+)(:)(\s*)(.*)$", line)
    if match:
        indent, dash, key, colon, space, value = match.groups()
        runs = [Run(indent), Run(dash or "", "punct"), Run(key, "key"), Run(colon, "punct"), Run(space)]
        return [*runs, Run(value, "str")] if value else runs
    match = re.match(r"^(\s*)(- )(.*)$", line)
    if match:
        return [Run(match[1]), Run(match[2], "punct"), Run(match[3], "str")]
    return [Run(line, "plain")]


def _squiggle(x: int, y: int, length: int) -> str:
    points = [f"M{x} {y}"]
    for step in range(0, max(length, 4), 4):
        points.append(f"l2 {-2 if (step // 4) % 2 == 0 else 2}")
        points.append(f"l2 {2 if (step // 4) % 2 == 0 else -2}")
    return f'<path d="{" ".join(points)}" class="squiggle"/>'


def hover_blocks(markdown: str) -> list[tuple[str, list[Run]]]:
    """The hover's Markdown as ('p' | 'li' | 'hr', runs) blocks."""
    blocks: list[tuple[str, list[Run]]] = []
    for chunk in markdown.strip().split("\n\n"):
        chunk = chunk.strip()
        if chunk == "---":
            blocks.append(("hr", []))
            continue
        for part in re.split(r"\n(?=- )", chunk):
            if part.startswith("- "):
                blocks.append(("li", inline_markdown(" ".join(part[2:].split()))))
            else:
                blocks.append(("p", inline_markdown(" ".join(part.split()))))
    return blocks


def editor_image() -> str:
    from playbook_ls.features.hover import hover_markdown
    from playbook_ls.features.inlay import inherited_tag_hints
    from playbook_ls.features.workspace import WorkspaceIndex

    relative = "roles/sample/tasks/main.yml"
    with contextlib.chdir(EXAMPLE):
        index = WorkspaceIndex(str(EXAMPLE))
        index.index()
        path = str(EXAMPLE / relative)
        lines = index.text(path).splitlines()
        hover_line = next(number for number, text in enumerate(lines) if text.strip() == "- name: task2")
        hover = hover_markdown(index, path, hover_line)
        hints = inherited_tag_hints(index, path, 0, len(lines))
        findings = [(f.code, f.span) for f in index.findings_for(path) if f.span is not None]
    if hover is None:
        raise SystemExit("no hover for task2")
    gutter_x, code_x, top = 16, 16 + 5 * EDITOR_CELL, 70
    blocks = hover_blocks(hover)
    popup_lines: list[tuple[str, list[Run]]] = []
    for kind, runs in blocks:
        if kind == "hr":
            popup_lines.append(("hr", []))
        elif kind == "li":
            wrapped = wrap(runs, POPUP_WIDTH - 2)
            popup_lines.append(("li", [Run("• "), *wrapped[0]]))
            popup_lines += [("li", [Run("  "), *rest]) for rest in wrapped[1:]]
        else:
            if popup_lines and popup_lines[-1][0] != "hr":
                popup_lines.append(("gap", []))
            popup_lines += [("p", line) for line in wrap(runs, POPUP_WIDTH)]
    longest_code = max(len(text) + len(h.label) for h in hints for text in [lines[h.line]]) if hints else 0
    longest_code = max([longest_code, *(len(text) for text in lines)])
    popup_w = POPUP_WIDTH * EDITOR_CELL + 24
    popup_x = code_x + 2 * EDITOR_CELL
    popup_y = top + (hover_line + 1) * LINE_H + 6
    popup_h = sum(12 if kind in ("hr", "gap") else LINE_H for kind, _ in popup_lines) + 20
    code_bottom = top + len(lines) * LINE_H + 16
    width = max(code_x + longest_code * EDITOR_CELL + 40, popup_x + popup_w + 24)
    height = max(code_bottom, popup_y + popup_h + 16) + 28
    title = "Hover on task2 in the editor"
    description = ("roles/sample/tasks/main.yml of examples/tag-inheritance open in an editor, with the "
                   "language server's inlay hints and warnings, and its hover for task2: "
                   + " ".join("".join(r.text for r in runs) for kind, runs in blocks if kind != "hr"))
    svg = Svg(width, height, title, description, EDITOR_CSS)
    svg.add(rect(0, 0, width, height, "window", radius=8))
    svg.add(f'<path d="M0 8 a8 8 0 0 1 8 -8 H{width - 8} a8 8 0 0 1 8 8 V34 H0 Z" class="tabbar"/>')
    svg.add(f'<rect x="12" y="6" width="{(len("main.yml") + 4) * EDITOR_CELL}" height="28" class="tab"/>')
    svg.add(text_line(24, 25, [Run("main.yml", "tabtext")], EDITOR_SIZE))
    crumb = " › ".join(["tag-inheritance", *relative.split("/")])
    svg.add(text_line(16, 54, [Run(crumb, "crumb")], 12))
    for number, text in enumerate(lines):
        y = top + number * LINE_H
        if number == hover_line:
            svg.add(f'<rect x="1" y="{y - 14}" width="{width - 2}" height="{LINE_H}" class="lineband"/>')
        svg.add(text_line(gutter_x, y, [Run(f"{number + 1:>3}", "current" if number == hover_line else "gutter")],
                          EDITOR_SIZE))
        svg.add(text_line(code_x, y, _yaml_runs(text), EDITOR_SIZE))
    for hint in hints:
        y = top + hint.line * LINE_H
        x = code_x + (len(lines[hint.line]) + 1) * EDITOR_CELL
        label = hint.label.strip()
        svg.add(rect(x - 3, y - 14, len(label) * EDITOR_CELL + 6, LINE_H - 2, "hint-bg", radius=3))
        svg.add(text_line(x, y, [Run(label, "hint")], EDITOR_SIZE))
    for _code, span in findings:
        end = span.end_col if span.end_line == span.line else len(lines[span.line])
        x = code_x + span.col * EDITOR_CELL
        svg.add(_squiggle(x, top + span.line * LINE_H + 4, max(end - span.col, 1) * EDITOR_CELL))
    svg.add(rect(popup_x, popup_y, popup_w, popup_h, "popup", radius=4))
    y = popup_y + 22
    for kind, runs in popup_lines:
        if kind == "hr":
            svg.add(f'<path d="M{popup_x} {y - 10} H{popup_x + popup_w}" class="rule"/>')
            y += 12
        elif kind == "gap":
            y += 12
        else:
            svg.add(text_line(popup_x + 12, y, runs, EDITOR_SIZE, "popup-text"))
            y += LINE_H
    status = f"⚠ {len(findings)}   Ln {hover_line + 1}   YAML   playbook-ls"
    svg.add(text_line(16, height - 10, [Run(status, "problem")], 12))
    return svg.render()


# -- the terminal: playbook-ls check ----------------------------------------------------------

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
        head, rest = _split_runs(rest, width)
        rows.append(head)
    rows.append(rest)
    return rows


# -- main -------------------------------------------------------------------------------------


def images() -> dict[Path, str]:
    with neutral_environment():
        return {
            IMAGES / "inheritance-task2.svg": chain_image(
                "sample : task2",
                [Launch(), Launch(("__role1",)), Launch(("__role1",), ("never",))],
                "The inheritance chain of sample : task2",
                "sample : task2 in examples/tag-inheritance: the play tags __play, the roles: entry tags "
                "__role1, the task itself tags __tag2 and never; its effective tags are the union. "
                "A run without --tags skips it (never), --tags __role1 runs it through the inherited tag, "
                "--tags __role1 --skip-tags never skips it.",
            ),
            IMAGES / "inheritance-other-sub.svg": chain_image(
                "other : other_sub",
                [Launch(), Launch(("__other",)), Launch(("__role2",))],
                "other : other_sub reached in two contexts",
                "The same task file, roles/other/tasks/other_sub.yml, reached through the roles: entry "
                "\"other\" (tagged __role2) and through import_role other (tagged __other): it gets "
                "different tags in each context, so --tags __other runs only the second one and "
                "--tags __role2 only the first.",
            ),
            IMAGES / "hover-task2.svg": editor_image(),
            IMAGES / "check-output.svg": terminal_image(),
        }


def main(argv: list[str]) -> int:
    return sync(images(), argv, "gen_doc_images.py", "images")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

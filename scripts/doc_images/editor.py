"""The editor on a role's tasks: inlay hints, diagnostics and the hover of task2."""

from __future__ import annotations

import contextlib
import re

from scripts.doc_images.example import EXAMPLE
from scripts.doc_images.svg import CHAR, Run, Svg, inline_markdown, rect, text_line, wrap

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

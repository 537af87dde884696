"""The inheritance chain of one task, and which runs select it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scripts.doc_images.example import example_tasks, selected
from scripts.doc_images.svg import CHAR, Run, Svg, rect, text_line

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

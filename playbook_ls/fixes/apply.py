"""``check --fix`` and ``check --diff``: the safe fixes of a check's findings, applied per file.

Per file, the findings' safe fixes are taken in source order, each one that touches no text an
earlier one touches; the file's new text must parse, to the old data changed as those fixes say
(else only the first of them is applied, and the rest wait for the next pass). ``--fix`` writes
the files and checks again, up to :data:`PASSES` times, so the findings reported are those left.
Only files inside the checked paths or the project's root are ever written.
"""

from __future__ import annotations

import copy
import difflib
import os
from collections.abc import Callable
from typing import Any, NamedTuple

from engine.parsing.source import parse_text
from playbook_ls.fixes import safe_fix
from playbook_ls.fixes.base import Edit, Fix, Source, apply_edits, overlaps, plain
from playbook_ls.rules.base import Finding, display_path

PASSES = 4


class FileFix(NamedTuple):
    path: str
    old: str
    new: str
    fixed: list[Finding]


def plan(findings: list[Finding], may_edit: Callable[[str], bool]) -> list[FileFix]:
    """The new text of every file with safe fixes, and the findings they fix."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.span is not None:
            by_file.setdefault(finding.span.file, []).append(finding)
    planned = []
    for path, found in sorted(by_file.items()):
        if not may_edit(path):
            continue
        fixed = _fix_file(path, found)
        if fixed is not None:
            planned.append(fixed)
    return planned


def _fix_file(path: str, findings: list[Finding]) -> FileFix | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    # The positions of findings count neither a byte order mark nor the kind of line break (a
    # lone CR is one, to YAML): the fixes are made on the text without the mark and with LF
    # breaks, and the file keeps its mark and its breaks.
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    cr_only = "\r" in body and "\n" not in body
    if cr_only:
        body = body.replace("\r", "\n")
    source = Source(body, path)
    chosen: list[tuple[Finding, Fix]] = []
    for finding in sorted(findings, key=Finding.sort_key):
        fix = safe_fix(finding, source)
        if fix is not None and not any(overlaps(edit, other) for edit in fix.edits
                                       for _f, taken in chosen for other in taken.edits):
            chosen.append((finding, fix))
    if not chosen:
        return None
    if len(chosen) > 1 and not _together(source, [fix for _f, fix in chosen]):
        chosen = chosen[:1]
    edits: list[Edit] = [edit for _f, fix in chosen for edit in fix.edits]
    new = apply_edits(body, edits)
    return FileFix(path, text, bom + (new.replace("\n", "\r") if cr_only else new),
                   [finding for finding, _fix in chosen])


def _together(source: Source, fixes: list[Fix]) -> bool:
    """Whether the fixes applied at once give what each promises (they edit different data)."""
    after = parse_text(apply_edits(source.text, [edit for fix in fixes for edit in fix.edits]), source.path)
    if after.error is not None:
        return False
    expected: Any = copy.deepcopy(plain(source.data))
    try:
        for fix in fixes:
            expected = fix.expect(expected)
    except (KeyError, IndexError, TypeError, ValueError):
        return False
    return bool(plain(after.data) == expected)


def write(planned: list[FileFix]) -> None:
    for fixed in planned:
        with open(fixed.path, "wb") as handle:
            handle.write(fixed.new.encode("utf-8"))


def unified_diff(planned: list[FileFix]) -> str:
    chunks = []
    for fixed in planned:
        name = display_path(fixed.path)
        for line in difflib.unified_diff(fixed.old.splitlines(keepends=True), fixed.new.splitlines(keepends=True),
                                         f"a/{name}", f"b/{name}"):
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def editable(paths: list[str], root: str) -> Callable[[str], bool]:
    """Whether a file may be written by ``--fix``: inside a checked directory or the project root
    (never a role or collection found on a search path elsewhere), or a checked file itself."""
    places = [os.path.realpath(p) for p in [*paths, root]]

    def inside(path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == place or real.startswith(place.rstrip(os.sep) + os.sep) for place in places)

    return inside

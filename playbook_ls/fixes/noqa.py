""""Add ``# noqa: CODE``": offered for every finding, on the line it points at and, when that is
not the first line of its task, on the task's first line (which silences the rule in the whole
task). A ``# noqa:`` already on the line gets the code appended to its list."""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.fixes.base import Edit, Fix, Source
from playbook_ls.rules.base import Finding
from playbook_ls.rules.ruleset import _noqa, noqa_lines


def add_noqa(finding: Finding, source: Source) -> Iterator[Fix]:
    span = finding.span
    if span is None or not finding.code:
        return
    code = finding.code
    lines = list(noqa_lines(span, lambda _file, number: source.line(number)))
    for order, (number, line) in enumerate(lines):
        edit = noqa_edit(number, line, code)
        if edit is None:
            continue
        where = "this line" if order == 0 else f"line {number + 1}, the first line of the task (whole task)"
        yield Fix(f"Silence {code} with '# noqa: {code}' on {where}", [edit], False)


def noqa_edit(number: int, line: str, code: str) -> Edit | None:
    """The edit adding ``code`` to line ``number``'s ``# noqa``, or a new ``# noqa: code``."""
    found = _noqa(line)
    if found is not None:
        match, names = found
        if not names or code.lower() in (name.lower() for name in names):
            return None  # already silenced there
        separator = ", " if "," in match["codes"] else " "
        end = match.end("codes")
        return Edit(number, end, number, end, f"{separator}{code}")
    content = line.rstrip()
    if not content.strip():
        return None
    return Edit(number, len(content), number, len(line), f"  # noqa: {code}")

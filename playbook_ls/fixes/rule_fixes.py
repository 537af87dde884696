"""One small function per rule with an obvious correction: ``fix(finding, source)`` yields
:class:`~playbook_ls.fixes.base.Fix` es. They read only the finding (its span and message) and
the file's text, so they work on findings from the cache and on the editor's buffer alike.

PLS102 (never with always) and PLS117 (duplicate role skipped) have no fix: each has two
corrections that change what runs in opposite ways (drop ``never`` or drop ``always``; run the
role twice with other parameters, or drop the second listing), and only the author knows which.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from engine.loading import keywords as kw
from playbook_ls.fixes.base import Edit, Fix, Source, indent_of, mapping_with, scalar, setter, value_at
from playbook_ls.rules.base import Finding


def pls103(finding: Finding, source: Source) -> Iterator[Fix]:
    """Add ``apply: {tags: [...]}`` (or ``apply: {when: ...}``) to the include's arguments."""
    span = finding.span
    assert span is not None
    found = mapping_with(source.data, span, "value_spans")
    if found is None:
        return
    path, task, keyword = found
    action = next((key for key in task if key in kw.INCLUDE_TASKS or key in kw.INCLUDE_ROLE), None)
    if action is None or "args" in task:
        return
    if keyword == "tags":
        wanted = re.search(r"add 'apply: \{tags: \[(.*)\]\}'", finding.message)
        if wanted is None:
            return
        tags = wanted[1].split(", ")
        written = _tags_written(task["tags"])
        if not all(tag in written for tag in tags):
            return
        value: Any = tags
        lines = [f"tags: [{', '.join(scalar(tag) for tag in tags)}]"]
        title, safe = f"Add 'apply: {{tags: [{', '.join(tags)}]}}' so that the included tasks get the tags", True
    elif keyword == "when":
        when_span = task.value_spans["when"]
        if when_span.line != when_span.end_line:
            return
        value = task["when"]
        lines = [f"when: {source.slice(when_span)}"]
        title, safe = "Add 'apply: {when: ...}' so that the included tasks re-check the condition", False
    else:
        return
    edits = _add_apply(source, task, action, lines)
    if edits:
        yield Fix(title, edits, safe, setter((*path, action), lambda args: _applied(args, keyword, value)))


def _tags_written(value: Any) -> set[str]:
    items = value if isinstance(value, list) else [value]
    return {part.strip() for item in items for part in str(item).split(",")}


def _applied(args: Any, keyword: str, value: Any) -> dict[str, Any]:
    if isinstance(args, str):
        args = {"file": args}
    if not isinstance(args, dict) or "apply" in args:
        raise ValueError("no place for apply")
    return {**args, "apply": {keyword: value}}


def _add_apply(source: Source, task: Any, action: str, lines: list[str]) -> list[Edit]:
    """Edits that add ``apply:`` with ``lines`` under the include's arguments, in the style the
    arguments are written in (free-form, block mapping or flow mapping)."""
    args = task[action]
    key_span, value_span = task.key_spans[action], task.value_spans.get(action)
    if value_span is None:
        return []
    newline = source.newline
    if isinstance(args, str):
        if value_span.line != key_span.line or value_span.end_line != key_span.line or "=" in args:
            return []  # a free-form 'file.yml a=b', or a value on a line of its own
        if action not in kw.INCLUDE_TASKS:
            return []
        indent = " " * (key_span.col + 2)
        line = source.line(key_span.line)
        after_colon = source.slice(Edit(key_span.line, key_span.end_col, key_span.line, value_span.col, ""))
        if after_colon.strip() != ":":
            return []
        block = "".join(f"{newline}{indent}  {text}" for text in lines)
        return [Edit(key_span.line, key_span.end_col, key_span.line, value_span.col, f":{newline}{indent}file: "),
                Edit(key_span.line, len(line), key_span.line, len(line), f"{newline}{indent}apply:{block}")]
    if not isinstance(args, dict) or "apply" in args or not args:
        return []
    text = source.slice(value_span)
    if text.startswith("{"):
        if value_span.line != value_span.end_line or not text.endswith("}"):
            return []
        inner = text[:-1].rstrip()
        col = value_span.col + len(inner)
        return [Edit(value_span.line, col, value_span.line, col, f", apply: {{{', '.join(lines)}}}")]
    first = next(iter(args.key_spans.values()))
    last = _last_line(source, args, value_span)
    if last is None:
        return []
    indent = " " * first.col
    block = "".join(f"{indent}  {text}{newline}" for text in lines)
    return [Edit(last + 1, 0, last + 1, 0, f"{indent}apply:{newline}{block}")]


def _last_line(source: Source, args: Any, span: Any) -> int | None:
    """The last line of a block mapping's own content: the end of its last value, when that
    value ends on a line of its own (not a block scalar, whose end is the next key's line)."""
    last_key = next(reversed(args.key_spans))
    end = args.value_spans.get(last_key, args.key_spans[last_key])
    if isinstance(args[last_key], str) and source.slice(end).lstrip()[:1] in ("|", ">"):
        return None
    line = end.end_line if end.end_col > 0 else end.end_line - 1
    if isinstance(args[last_key], dict | list):
        # a nested collection's span runs to the next key: its last non-blank, non-comment line
        while line > end.line and (not source.line(line).strip() or source.line(line).lstrip().startswith("#")):
            line -= 1
    if indent_of(source.line(line)) < next(iter(args.key_spans.values())).col and line != end.line:
        return None
    return line if line < len(source.lines) - 1 or source.text.endswith("\n") else None


def pls105(finding: Finding, source: Source) -> Iterator[Fix]:
    """Write the condition without ``{{ }}``: applied by ``--fix`` only when the expression is a
    boolean whatever its variables hold; otherwise offered, saying what changes."""
    from playbook_ls.rules.pls105_when_with_jinja_delimiters import _bare, boolean_by_construction

    span = finding.span
    assert span is not None
    found = value_at(source.data, span)
    if found is None or span.line != span.end_line:
        return
    path, value = found
    if not isinstance(value, str):
        return
    bare = _bare(value)
    if bare == _bare("not a template"):
        return
    key = next((part for part in reversed(path) if isinstance(part, str)), "when")
    safe = boolean_by_construction(bare)
    title = f"Write {key}: {bare} (without the Jinja2 delimiters)" if safe else (
        f"Write {key}: {bare} (without the Jinja2 delimiters; a string value such as 'true' then fails the "
        "task, where the templated form ran it)")
    yield Fix(title, [Edit(span.line, span.col, span.end_line, span.end_col, scalar(bare))], safe,
              setter(path, lambda _old: bare))


def pls112(finding: Finding, source: Source) -> Iterator[Fix]:
    """Rename the unknown key to the one keyword it is closest to."""
    suggestion = re.search(r"did you mean '([\w.]+)'\?", finding.message)
    if suggestion is not None:
        yield from _rename_key(finding, source, suggestion[1])


def _rename_key(finding: Finding, source: Source, new: str, old: str | None = None) -> Iterator[Fix]:
    """Rename the mapping key at the finding (only ``old``, when given) to ``new``, unless the
    mapping has ``new`` already."""
    span = finding.span
    assert span is not None
    found = mapping_with(source.data, span, "key_spans")
    if found is None:
        return
    path, node, key = found
    if new in node or span.line != span.end_line or (old is not None and key != old):
        return

    def rename(mapping: dict[Any, Any]) -> dict[Any, Any]:
        return {new if k == key else k: v for k, v in mapping.items()}

    yield Fix(f"Rename '{key}' to '{new}'", [Edit(span.line, span.col, span.end_line, span.end_col, new)],
              True, setter(path, rename))


def pls124(finding: Finding, source: Source) -> Iterator[Fix]:
    """Rename a misspelt option to the one option name it is close to."""
    found = re.match(r"'([^']+)' is not an option of [\w.]+; did you mean '([^']+)'\?", finding.message)
    if found is not None:
        yield from _rename_key(finding, source, found[2], found[1])


def pls128(finding: Finding, source: Source) -> Iterator[Fix]:
    """Rename a deprecated module to the module its collection redirects it to (the same code
    runs, without the deprecation)."""
    found = re.search(r"It now redirects to ([\w.]+)\.$", finding.message)
    if found is not None:
        yield from _rename_key(finding, source, found[1])


def pls114(finding: Finding, source: Source) -> Iterator[Fix]:
    """Replace ``all`` with ``always``, or remove the reserved tag. Offered only: ``always`` runs
    the task under any ``--tags``, which ``all`` did not, and removing the tag changes what
    ``--tags tagged`` / ``untagged`` select; which one is meant is the author's call."""
    span = finding.span
    assert span is not None
    tag_match = re.match(r"'(\w+)' is a reserved", finding.message)
    found = value_at(source.data, span)
    if tag_match is None or found is None:
        return
    tag = tag_match[1]
    path, value = found
    if isinstance(value, str) and value.strip() == tag:
        if tag == "all":
            yield Fix("Replace tag 'all' with 'always'", [Edit(*span[1:], "always")], False,
                      setter(path, lambda _old: "always"))
        yield from _drop_key(source, span, path)
    elif isinstance(value, list) and tag in value:
        index = value.index(tag)
        item = value.item_spans[index]
        if tag == "all":
            yield Fix("Replace tag 'all' with 'always'", [Edit(*item[1:], "always")], False,
                      setter((*path, index), lambda _old: "always"))
        edit = _drop_item(source, value, index)
        if edit is not None:
            yield Fix(f"Remove tag '{tag}'", [edit], False, setter(path, lambda old: old[:index] + old[index + 1:]))


def _drop_key(source: Source, span: Any, path: tuple[Any, ...]) -> Iterator[Fix]:
    """Remove a ``tags: all`` line as a whole (only when it is a line of its own)."""
    found = mapping_with(source.data, span, "value_spans")
    if found is None or span.line != span.end_line:
        return
    _path, node, key = found
    key_span = node.key_spans[key]
    line = source.line(key_span.line)
    rest = line[span.end_col:].strip()
    if key_span.line != span.line or line[:key_span.col].strip() or (rest and not rest.startswith("#")) \
            or len(node) < 2 or span.line + 1 >= len(source.lines):
        return

    def drop(mapping: dict[Any, Any]) -> dict[Any, Any]:
        return {k: v for k, v in mapping.items() if k != key}

    yield Fix(f"Remove 'tags: {node[key]}'", [Edit(span.line, 0, span.line + 1, 0, "")], False,
              setter(path[:-1], drop))


def _drop_item(source: Source, seq: Any, index: int) -> Edit | None:
    spans = seq.item_spans
    item = spans[index]
    if item.line != item.end_line or len(spans) < 2:
        return None
    line = source.line(item.line)
    if line[:item.col].rstrip().endswith("-") and not line[:item.col].rstrip()[:-1].strip():
        rest = line[item.end_col:].strip()  # a block sequence item: its line goes
        return Edit(item.line, 0, item.line + 1, 0, "") if not rest or rest.startswith("#") else None
    if index + 1 < len(spans):  # flow: the item and the separator after it
        after = spans[index + 1]
        return Edit(item.line, item.col, after.line, after.col, "")
    before = spans[index - 1]
    return Edit(before.end_line, before.end_col, item.end_line, item.end_col, "")


def pls118(finding: Finding, source: Source) -> Iterator[Fix]:
    """Remove the unused or unknown code from the ``# noqa`` comment (the comment, if it was
    its only code)."""
    from playbook_ls.rules.ruleset import _noqa

    span = finding.span
    assert span is not None
    name = re.match(r"'# noqa: ([\w-]+)'", finding.message)
    line = source.line(span.line)
    found = _noqa(line)
    if name is None or found is None or name[1] not in found[1]:
        return
    match, names = found
    rest = [n for n in names if n != name[1]]
    if rest:
        separator = ", " if "," in match["codes"] else " "
        start, end = match.span("codes")
        edit = Edit(span.line, start, span.line, end, separator.join(rest))
    elif line[match.end():].strip():
        return  # words after the codes: the comment stays as it is
    else:
        before = line[:match.start()]
        if not before.strip() and span.line + 1 >= len(source.lines):
            return
        edit = Edit(span.line, 0, span.line + 1, 0, "") if not before.strip() else \
            Edit(span.line, len(before.rstrip()), span.line, len(line), "")
    yield Fix(f"Remove '{name[1]}' from the # noqa comment", [edit], True)


FIXERS = {"PLS103": pls103, "PLS105": pls105, "PLS112": pls112, "PLS114": pls114, "PLS118": pls118, "PLS124": pls124,
          "PLS128": pls128}

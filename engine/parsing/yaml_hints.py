"""The message ansible gives a YAML file that does not parse (``AnsibleYAMLParserError``).

ansible looks at the line the parser stopped on for a few common mistakes (a tab, an unquoted
template, an unquoted colon, a badly quoted value) and says so in place of the parser's own
words, which it otherwise keeps as one capitalised sentence. ``include_vars`` shows this message
as its result's ``message``.
"""

from __future__ import annotations

import re

from engine.parsing.loaded import YamlProblem
from engine.records import NamedTuple
from engine.span import Span

_PREFIX = "YAML parsing failed: "
_TEMPLATE = re.compile(r"^\s*(?:-\s+)*(?:[\w\s]+:\s+)?(?P<value>\{\{.*}})")
_AFTER_KEY = re.compile(r"^\s*(?:-\s+)*(?:[\w\s\[\]{}]+:\s+)?(?P<value>.*)$")
_QUOTED = re.compile(r"^\s*(?:-\s+)*(?:[\w\s]+:\s+)?(?P<value>[\"\'].*?\s*)$")
_WHOLLY_QUOTED = re.compile(r"""^\s*('[^']*'|"[^"]*")\s*$""")

_TEMPLATE_HELP = """
For example:

    raw: {{ some_var }}

Should be:

    raw: "{{ some_var }}"
"""
_COLON_HELP = """
For example:

    raw: echo 'name: ansible'

Should be:

    raw: "echo 'name: ansible'"
"""
_QUOTE_HELP = """
For example:

    raw: "foo" in bar

Should be:

    raw: '"foo" in bar'
"""
_QUOTES_HELP = """
For example:

    raw: "foo" in "bar"

Should be:

    raw: '"foo" in "bar"'
"""


class YamlFailure(NamedTuple):
    """An ``AnsibleYAMLParserError``: its message, where it points and its help text."""

    message: str
    span: Span
    help: str | None = None

    def __str__(self) -> str:
        return f"{_PREFIX}{self.message}"


def _hint(line: str) -> tuple[str, int, str | None] | None:
    """The mistake ansible names for the line a parse stopped on, if it recognises one: its
    message, the column (from 0) it points at and its help text."""
    if (tab := line.find("\t")) >= 0:
        return "Tabs are usually invalid in YAML.", tab, None
    if template := _TEMPLATE.search(line):
        return "This may be an issue with missing quotes around a template block.", template.start("value"), \
            _TEMPLATE_HELP
    value = _AFTER_KEY.search(line)
    if not line.lstrip().startswith(":") and value is not None:
        fragment = _WHOLLY_QUOTED.sub(lambda match: "." * len(match.group(0)), value.group("value"))
        if fragment and (colon := re.search(r":($| )", fragment)):
            return ("Colons in unquoted values must be followed by a non-space character.",
                    value.start("value") + colon.start(), _COLON_HELP)
    quoted = _QUOTED.search(line)
    if quoted is not None:
        suspected = quoted.group("value")
        if suspected[0] != suspected[-1]:
            return "Values starting with a quote must end with the same quote.", quoted.start("value"), _QUOTE_HELP
        if line.count(suspected[0]) > 2:
            return ("Values starting with a quote must end with the same quote, and not contain that quote.",
                    quoted.start("value"), _QUOTES_HELP)
    return None


def ansible_yaml_failure(problem: YamlProblem, text: str | None) -> YamlFailure:
    """ansible's error for ``problem``, found in a file of content ``text`` (None: not read)."""
    own = problem.message
    positioned = problem.span.line or problem.span.col or own.startswith(_PREFIX)
    own = own.removeprefix(_PREFIX)
    span = problem.span._replace(end_line=problem.span.line, end_col=problem.span.col)
    if positioned and text is not None:
        lines = text.splitlines()
        hint = _hint(lines[span.line] if span.line < len(lines) else "")
        if hint is not None:
            message, col, help = hint
            return YamlFailure(message, span._replace(col=col, end_col=col), help)
    own = " ".join(own.split())
    own = own[:1].upper() + own[1:]
    return YamlFailure(own if own.endswith(".") else own + ".", span)


class VarsFileUnparsable(Exception):
    """A file of an ``include_vars`` directory that does not parse: the action raises its error."""

    def __init__(self, failure: YamlFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure

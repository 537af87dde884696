"""ansible's regex and ternary filters and regex tests, for the Jinja2 environments that evaluate
playbook templates: the bundled engine's run-time templar and the ``constructed`` inventory plugin."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.template_bounds import static_evaluation_in_progress


def _flags(ignorecase: bool, multiline: bool) -> int:
    return (re.I if ignorecase else 0) | (re.M if multiline else 0)


def regex_replace(value: Any = "", pattern: str = "", replacement: str = "", ignorecase: bool = False,
                  multiline: bool = False, count: int = 0) -> str:
    regex, text = re.compile(pattern, _flags(ignorecase, multiline)), str(value)
    if static_evaluation_in_progress():  # a run may legitimately rewrite a large file's content
        _refuse_large_replacement(regex, text, replacement, count)
    return regex.sub(replacement, text, count=count)


def _refuse_large_replacement(regex: re.Pattern[str], text: str, replacement: str, count: int) -> None:
    """Refuse a substitution whose result would exceed the templating size limit, before making it:
    an empty pattern over a long string with a long replacement multiplies the two."""
    from engine.template_bounds import MAX_SIZE, TooLarge

    references = len(re.findall(r"\\(?:\d|g<)", replacement))
    size = len(text)
    for found, match in enumerate(regex.finditer(text), start=1):
        size += len(replacement) + references * (match.end() - match.start())
        if size > MAX_SIZE:
            raise TooLarge(f"regex_replace would make more than {MAX_SIZE:,} characters")
        if found == count:
            break


def regex_search(value: Any, pattern: str, *groups: str, ignorecase: bool = False, multiline: bool = False) -> Any:
    """The match, or with groups (``'\\\\1'``, ``'\\\\g<name>'``) the list of those groups; None if no match."""
    match = re.compile(pattern, _flags(ignorecase, multiline)).search(str(value))
    if match is None:
        return None
    if not groups:
        return match.group()
    return [match.group(int(g[1:])) if g.startswith("\\") else match.group(g[2:-1] if g.startswith("?P<") else g)
            for g in groups]


def ternary(value: Any, true_val: Any, false_val: Any, none_val: Any = None) -> Any:
    if value is None and none_val is not None:
        return none_val
    return true_val if value else false_val


def regex_test(finder: str) -> Callable[..., bool]:
    """The ``match`` (finder "match") and ``search`` / ``regex`` (finder "search") tests."""

    def test(value: Any, pattern: str = "", ignorecase: bool = False, multiline: bool = False) -> bool:
        return getattr(re.compile(pattern, _flags(ignorecase, multiline)), finder)(str(value)) is not None

    return test

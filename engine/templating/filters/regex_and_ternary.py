"""ansible's regex and ternary filters and regex tests, for the Jinja2 environments that evaluate
playbook templates: the bundled engine's run-time templar and the ``constructed`` inventory plugin.

The matching itself is :mod:`engine.templating.filters.regex_ops`'s, through
:mod:`engine.templating.filters.regex_guard`: in-process in a run, in a helper process that can be
stopped while evaluating statically."""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.templating.bounds import MAX_SIZE, static_evaluation_in_progress
from engine.templating.errors import PluginFailure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def guarded(plugin: tuple[str, str], operation: str, *args: Any) -> Any:
    """``operation`` of the regex guard for the ansible-core ``plugin`` (its kind and name): a
    pattern that does not compile fails as that plugin does (``AnsibleTemplatePluginRuntimeError``)."""
    # imported when a template first matches a regex: the guard's helper processes, threads and
    # queues are more than most commands ever need
    from engine.templating.filters import regex_guard

    try:
        return regex_guard.call(operation, *args)
    except re.error as exc:
        kind, name = plugin
        raise PluginFailure(f"ansible.builtin.{name}", str(exc), kind=kind) from exc


def _flags(ignorecase: bool, multiline: bool) -> int:
    return (re.I if ignorecase else 0) | (re.M if multiline else 0)


def regex_replace(value: Any = "", pattern: str = "", replacement: str = "", ignorecase: bool = False,
                  multiline: bool = False, count: int = 0) -> str:
    # refused beyond the size limit while evaluating statically: a run may rewrite a large file's content
    limit = MAX_SIZE if static_evaluation_in_progress() else None
    return guarded(("filter", "regex_replace"), "regex_replace", str(value), pattern, replacement,
                   _flags(ignorecase, multiline), count, limit)


def regex_search(value: Any, regex: str, *groups: str, ignorecase: bool = False, multiline: bool = False) -> Any:
    """The match, or with groups (``'\\\\1'``, ``'\\\\g<name>'``) the list of those groups; None if no match."""
    return guarded(("filter", "regex_search"), "regex_search", str(value), regex, groups,
                   _flags(ignorecase, multiline))


def ternary(value: Any, true_val: Any, false_val: Any, none_val: Any = None) -> Any:
    if value is None and none_val is not None:
        return none_val
    return true_val if value else false_val


def regex_test(finder: str, name: str | None = None) -> Callable[..., bool]:
    """The ``match`` (finder "match") and ``search`` / ``regex`` (finder "search") tests, ``name``
    the test's when it is not the finder's."""

    def test(value: Any, pattern: str = "", ignorecase: bool = False, multiline: bool = False,
             match_type: str | None = None) -> bool:
        # the regex test's match_type names the re method ansible calls
        method = finder if match_type is None else match_type
        if method not in ("match", "fullmatch", "search"):
            raise PluginFailure(f"ansible.builtin.{name or finder}", "'str' object is not callable", kind="test")
        return guarded(("test", name or finder), "regex_test", method, str(value), pattern,
                       _flags(ignorecase, multiline))

    return test

"""An ``unarchive`` whose ``src`` a template gives, with ``remote_src``: ansible's module downloads
a URL ``src`` (``fetch_file``), which the engine does not (engine/run/modules/unarchive.py refuses
it when it meets it, halfway through the run). A URL written as it is is declined with the other
arguments (engine.run.declines); one a template may give is declined here, before the run: the
template begins with an expression, and a variable it reads is defined with a URL in what the
run's values may come from (:func:`engine.run.declines.value_texts`), or those could not all be
read. A template that begins with a path (``/tmp/{{ name }}.tgz``) is never a URL."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.booleans import NotABoolean, boolean
from engine.loading import keywords as kw
from engine.loading.model import Playbook, Task
from engine.span import Span

UNARCHIVE = kw._family("unarchive")
DECLINED = "unarchive: a src a template gives that may be a URL, with remote_src (the module would download it)"
_SCHEME_START = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*(:/{0,2})?")  # text a URL may begin with


def remote_url_declines(book: Playbook, tasks: list[Task], inventory_sources: Sequence[str],
                        extra_vars: Mapping[str, Any]) -> list[tuple[str, Span | None]]:
    """Each such ``unarchive`` task (at most one finding, where it is first written)."""
    candidates = [(task, names) for task in tasks if task.action in UNARCHIVE
                  and _remote(task.args) and (names := _leading_names(task.args.get("src"))) is not None]
    if not candidates:
        return []
    from engine.run.declines import value_texts

    texts, unread = value_texts(book, tasks, inventory_sources, extra_vars)
    for task, names in candidates:
        if unread or not names or any(_defines_url(text, name) for text in texts for name in names):
            return [(DECLINED, task.span)]
    return []


def _remote(args: Any) -> bool:
    """Whether ``remote_src`` may be true as written (a template may make it so); the action's
    legacy ``copy: no`` says it too."""
    if not isinstance(args, Mapping):
        return False
    written = args.get("remote_src")
    if written is None and "copy" in args:
        try:
            return not boolean(args["copy"])
        except NotABoolean:
            return True
    if isinstance(written, str) and ("{{" in written or "{%" in written):
        return True
    try:
        return boolean(written) if written is not None else False
    except NotABoolean:
        return False


def _leading_names(src: Any) -> frozenset[str] | None:
    """The variables the expression a templated ``src`` begins with reads (empty: it reads none,
    or the template cannot be read), or None when the value cannot be a URL given by a template:
    no template, or one that begins with text that starts no URL."""
    if not isinstance(src, str) or ("{{" not in src and "{%" not in src):
        return None
    prefix = src[:min(i for i in (src.find("{{"), src.find("{%")) if i >= 0)].strip()
    if "://" in src:  # a URL whatever the template gives
        return frozenset()
    if prefix and not _SCHEME_START.fullmatch(prefix):  # a path, or other text no URL begins with
        return None
    from jinja2 import TemplateSyntaxError, nodes

    from engine.run.filter_check import _parser

    try:
        tree = _parser().parse(src)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return frozenset()
    return frozenset(node.name for node in tree.find_all(nodes.Name))


def _defines_url(text: str, name: str) -> bool:
    """Whether ``text`` gives ``name`` a value with a URL in it: on its line, or on the next of a
    YAML block scalar (``name: >-``) or an empty value."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\s*[:=][ \t]*(?:[^\n]*://|(?:[>|][-+]?)?[ \t]*\n[ \t]+[^\n]*://)",
                     text) is not None

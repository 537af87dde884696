"""The Jinja filters a playbook's tasks use that the bundled engine lacks, found before anything
runs: a template that names one would fail its task halfway through the run ("No filter
named ..."), where ansible-playbook (with the collection installed) runs it. The plan lists
them as it lists missing modules, so that a run refuses them up front and ``--engine auto``
hands the playbook to ansible-playbook, with the reason.

Filters are found by Jinja's own parser (a ``|`` inside a string literal is no filter), in the
task's arguments and keywords and in its bare conditions (``when``, ``changed_when``,
``failed_when``, ``until``), which are templates too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from typing import Any

from engine.model import Task

CONDITION_KEYWORDS = ("when", "changed_when", "failed_when", "until")


@cache
def _parser() -> Any:
    from jinja2 import Environment

    return Environment()


@lru_cache(maxsize=4096)
def template_filters(text: str) -> tuple[str, ...]:
    """The filter names ``text``'s templates use, in order; none when it is no valid template."""
    if "|" not in text or ("{{" not in text and "{%" not in text):  # no filter: not worth parsing
        return ()
    from jinja2 import TemplateSyntaxError, nodes

    try:
        tree = _parser().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return ()
    return tuple(node.name for node in tree.find_all(nodes.Filter))


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def task_filters(task: Task) -> list[str]:
    """The filters ``task`` (its arguments and keywords, as written) uses."""
    data = task.data if isinstance(task.data, Mapping) else {}
    found: list[str] = []
    for key, value in data.items():
        for text in strings(value):
            if key in CONDITION_KEYWORDS and "{{" not in text:
                text = "{{ " + text + " }}"
            found += template_filters(text)
    return found


@cache
def engine_filters() -> frozenset[str]:
    """Every filter name the engine's templates know (Jinja's own included)."""
    from engine.templar import _build_environment

    return frozenset(_build_environment(False).filters)


def lacking_filters(tasks: list[Task]) -> list[tuple[str, Task]]:
    """Each filter the engine lacks with the first task that uses it."""
    known = engine_filters()
    found: dict[str, Task] = {}
    for task in tasks:
        for name in task_filters(task):
            if name not in known:
                found.setdefault(name, task)
    return list(found.items())

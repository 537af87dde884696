"""What the variable rules read: a role's ``defaults/`` and ``vars/`` files and the variables a
play sets, each name with where it is written. Files are read through one cache that re-reads
a file when it changes on disk."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from engine.span import Span

if TYPE_CHECKING:
    from engine.loading.model import Play, RoleInstance
    from engine.parsing.source import SourceCache


@cache
def _sources() -> SourceCache:
    from engine.parsing.source import SourceCache

    return SourceCache()


def named_spans(path: str | None) -> dict[str, tuple[Any, Span | None]]:
    """``name -> (value, span of the name)`` of a YAML mapping file ({} when unreadable)."""
    if not path:
        return {}
    data = _sources().load(path).data
    if not isinstance(data, Mapping):
        return {}
    spans = getattr(data, "key_spans", {})
    return {str(name): (value, spans.get(name)) for name, value in data.items()}


def role_files(role: RoleInstance, sub: str) -> list[str]:
    """The role's ``defaults`` or ``vars`` files ansible reads, in order (``vars_from`` /
    ``defaults_from`` too; every file of a ``main/`` directory)."""
    from engine.loading.paths import find_role_var_files

    return find_role_var_files(role.path, sub, role.from_files.get(sub)) if role.path else []


def named_spans_of(paths: list[str]) -> dict[str, tuple[Any, Span | None]]:
    """:func:`named_spans` of several files combined, the last file's name winning."""
    found: dict[str, tuple[Any, Span | None]] = {}
    for path in paths:
        found.update(named_spans(path))
    return found


def roles_of(play: Play) -> Iterator[RoleInstance]:
    """Each role instance of the play (the statically known tasks of includes too, and roles
    with no tasks, such as a dependency that only holds variables), once, with the roles that
    pulled it in."""
    from engine.variables.sources import tasks_with_includers

    seen: set[int] = set()
    for task, _includers in tasks_with_includers(play):  # implicit tasks stand for task-less roles
        role = task.role
        while role is not None and id(role) not in seen:
            seen.add(id(role))
            yield role
            role = role.parent


def play_definitions(play: Play) -> Iterator[tuple[str, str, Span | None]]:
    """``(name, where, span)`` of every variable the play sets in ``vars`` and in the
    ``vars_files`` it names statically."""
    data = play.data if isinstance(play.data, Mapping) else {}
    variables = data.get("vars")
    if isinstance(variables, Mapping):
        spans = getattr(variables, "key_spans", {})
        for name in variables:
            yield str(name), "play vars", spans.get(name)
    from engine.variables.sources import vars_files_found

    for path in vars_files_found(data.get("vars_files"), play.basedir, {}):  # names written as they are
        for name, (_value, span) in named_spans(path).items():
            yield name, "vars_files", span

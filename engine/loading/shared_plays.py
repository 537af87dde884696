"""Plays resolved once for every playbook that imports them.

A repository's entry playbooks often import the same playbooks (kubespray's ``cluster.yml``,
``scale.yml`` and ``upgrade-cluster.yml`` each import ``playbooks/boilerplate.yml`` and
``internal_facts.yml``; ``recover-control-plane.yml`` imports the whole of ``cluster.yml``).
A command that resolves many playbooks of one tree (``check``, ``diff``) resolves such a play
once and hands the same blocks and tasks to every playbook that reaches it in the same context.

The context is what can change the play's resolution: the file and the play's place in it,
the import_playbook levels above it that set anything (their keywords and where they are
written: a tag's origin names them), the variables they pass, the variables and settings of
the resolver (extra vars, magic variables, ansible.cfg, whether includes are followed), the
collections and plugin directories seen at that point and the requirements files a missing
role's hint would name. Import levels that set nothing are inert: the tasks of a shared play
keep the chain of the first playbook that resolved it, whose keyword-less import frames differ
from another's only in their label and span. Only imported plays are kept (a playbook's own
are resolved with it), the latest few hundred.

What resolving the play did to the resolver is replayed on every later use: the problems met,
the files read (recorded by every enclosing ``SourceCache.tracking``), the variable names its
templates read (for every enclosing ``names_recorded``), the plugin directories
its roles added, and the task entries and role uses counted against the playbook's limits.
Kept by :func:`engine.parsing.source.files_state`: any change of the files starts it over.
"""

from __future__ import annotations

import copy

from engine.parsing.source import files_state
from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.model import Frame, Play, Problem


class SharedPlay(NamedTuple):  # no dataclasses: a listing imports nothing it does not need
    play: Play
    reads: tuple[str, ...]
    """The files resolving the play read (not the playbooks that lead to it)."""
    problems: tuple[Problem, ...]
    module_paths: tuple[str, ...]
    """The resolver's plugin directories once the play was resolved (its roles' library/ added)."""
    action_paths: tuple[str, ...]
    entries: int
    role_uses: int
    unchecked_modules: bool
    names: frozenset[str]
    """The variable names its templates read (:class:`engine.templating.load_time.names_recorded`)."""


class SharedPlays:
    """One command's shared resolutions, for the resolvers reading one :class:`SourceCache`."""

    def __init__(self, limit: int = 512) -> None:
        self._plays: dict[tuple[Any, ...], SharedPlay] = {}
        self.limit = limit
        """The plays kept (the latest): each keeps its tasks alive while a command moves on."""
        self._state = files_state()
        self.hits = 0

    def get(self, key: tuple[Any, ...]) -> SharedPlay | None:
        if self._state != files_state():
            self._plays.clear()
            self._state = files_state()
        found = self._plays.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: tuple[Any, ...], shared: SharedPlay) -> None:
        if self._state == files_state():
            self._plays[key] = shared
            if len(self._plays) > self.limit:
                del self._plays[next(iter(self._plays))]


def frames_key(outer: tuple[Frame, ...]) -> tuple[Any, ...]:
    """The import levels above a play as far as they change it: a level that sets a keyword or
    variables by what it sets and where; one that sets nothing by its kind alone."""
    key: list[Any] = []
    for frame in outer:
        if not frame.keywords:
            key.append(frame.kind)
            continue
        span = frame.span
        key.append((frame.kind, frame.label, (span.file, span.line, span.col) if span is not None else None,
                    repr(sorted((name, repr(value)) for name, value in frame.keywords.items()))))
    return tuple(key)


def used_again(shared: SharedPlay, position: tuple[tuple[str, int], ...], reads: frozenset[str]) -> Play:
    """The shared play at another place: its own position and reads, the same blocks and tasks
    (and what analyses derived from them)."""
    play = copy.copy(shared.play)
    play.position = position
    play.reads = reads
    return play

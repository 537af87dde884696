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
are resolved with it), the latest few hundred; ``playbook-ls diff`` keeps every play of the new
revision, which the old revision's resolvers take where nothing they read differs
(:class:`PartnerPlays`).

What resolving the play did to the resolver is replayed on every later use: the problems met,
the files read (recorded by every enclosing ``SourceCache.tracking``), the variable names its
templates read (for every enclosing ``names_recorded``), the plugin directories
its roles added, and the task entries and role uses counted against the playbook's limits.
Kept by :func:`engine.parsing.source.files_state`: any change of the files starts it over.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

from engine.loading.kept import KeptWhileFilesStay
from engine.loading.shared_roles import SharedRoles
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


class SharedPlays(KeptWhileFilesStay):
    """One command's shared resolutions, for the resolvers reading one :class:`SourceCache`."""

    def __init__(self, limit: int = 512, every_play: bool = False) -> None:
        super().__init__(limit)
        self.every_play = every_play
        """Keep a playbook's own plays too: another revision's resolver may take them
        (:class:`PartnerPlays`)."""
        self.roles = SharedRoles(limit=256)
        """The ``roles:`` entries its resolvers compiled (:mod:`engine.loading.shared_roles`)."""

    def get(self, key: tuple[Any, ...]) -> SharedPlay | None:
        return super().get(key)


class PartnerPlays:
    """The plays another tree's resolvers resolved (``playbook-ls diff``: the new revision's),
    for a resolver reading this tree (the old revision) to take instead of resolving them again.

    The keys of ``plays`` name the other tree's directory where this tree's name this one; a play
    is taken when its key, with the directories swapped, is there, and ``usable`` says that none
    of the files it read and none of the variables its templates read differ between the trees.
    Its tasks keep the other tree's file names (a reader tells them by ``there``); the files it
    read and the plugin directories its roles added are given in this tree."""

    def __init__(self, plays: SharedPlays, here: tuple[str, ...], there: tuple[str, ...],
                 usable: Callable[[SharedPlay, tuple[tuple[str, int], ...]], bool]) -> None:
        self._plays = dict(plays._kept)  # as they are now: the other tree's files stay as read
        self.here, self.there, self.usable = here, there, usable

    def get(self, key: tuple[Any, ...], position: tuple[tuple[str, int], ...]) -> SharedPlay | None:
        found = self._plays.get(_swapped(key, self.here, self.there))
        if found is None or not self.usable(found, position):
            return None
        return found._replace(reads=_swapped(found.reads, self.there, self.here),
                              module_paths=_swapped(found.module_paths, self.there, self.here),
                              action_paths=_swapped(found.action_paths, self.there, self.here))


def _swapped(value: Any, roots: tuple[str, ...], others: tuple[str, ...]) -> Any:
    """``value`` (strings in nested tuples) with each directory of ``roots`` written as the one
    at its place in ``others``, where it stands as a whole path component."""
    if isinstance(value, str):
        for root, other in zip(roots, others, strict=True):
            if root in value:
                value = re.sub(re.escape(root) + r"(?![\w.-])", lambda _match, other=other: other, value)
        return value
    if isinstance(value, tuple):
        return tuple(_swapped(item, roots, others) for item in value)
    return value


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

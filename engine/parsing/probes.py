"""What a reading asked the file system about: every path it tested, opened or listed.

A resolution's result is a function of the files it reads and of the answers the file system
gave it: whether a path exists, what kind it is, what a directory lists. Comparing two revisions,
a file only one of them has changes the run only if some resolution asked about it (an
``include_vars`` of a first found file, a role's ``tasks/main.yml``, a listing of ``group_vars/``
or ``library/``); the loader asks in a hundred places, through ``os.path``, ``os.scandir``, ``glob``
and ``open``. Recording at those few primitives while a reading goes on sees every question
whichever place asks it, as long as nothing was answered from a memo filled before the recording:
:func:`recording` forgets the memoised file-system answers as it starts.
"""

from __future__ import annotations

import builtins
import io
import os
from _thread import allocate_lock
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported by the loader of every listing, which typing would slow
    from collections.abc import Callable, Iterator
    from typing import Any

_LOCK = allocate_lock()
_ACTIVE: list[Probes] = []
_PATH_CALLS = ("stat", "lstat", "access", "readlink")
"""``os`` functions that test one path (``os.path.exists``, ``isfile``, ``isdir``, ``islink`` and
``realpath`` ask through them, looking them up in ``os`` on each call)."""
_LIST_CALLS = ("listdir", "scandir")
"""``os`` functions that list a directory (``os.walk`` and ``glob`` list through them)."""


class Probes:
    """The paths a reading tested or opened, and the directories it listed, below ``root``
    (reached by its given or its real path; others are not kept), relative to it."""

    def __init__(self, root: str) -> None:
        self.roots = tuple(dict.fromkeys((os.path.abspath(root), os.path.realpath(root))))
        self.tested: set[str] = set()
        self.listed: dict[str, list[Callable[[str], Any] | None]] = {}
        """Each directory listed, with what its lister looked for in it (None: any name)."""

    def _keep(self, path: Any, into: set[str] | dict[str, list[Any]], wanted: Callable[[str], Any] | None = None) \
            -> None:
        if isinstance(path, int):
            return  # a descriptor: its file was opened by path first
        try:
            text = os.fsdecode(os.fspath(path)) if path is not None else "."
        except TypeError:
            return
        absolute = os.path.normpath(text if text.startswith(os.sep) else os.path.join(os.getcwd(), text))
        for root in self.roots:
            if absolute == root or absolute.startswith(root + os.sep):
                # both normalised and absolute: what follows the root is the relative path
                # (os.path.relpath, which makes both absolute again and splits them, costs ten times more)
                relative = absolute[len(root) + 1:] or "."
                if isinstance(into, set):
                    into.add(relative)
                else:
                    into.setdefault(relative, []).append(wanted)
                return

    def asked_about(self, relative: str) -> bool:
        """Whether the reading tested or opened ``relative`` (a path below the root), or listed
        the directory holding it: an answer that depends on whether it exists."""
        path = os.path.normpath(relative)
        if path in self.tested:
            return True
        name = os.path.basename(path)
        return any(wanted is None or wanted(name) for wanted in self.listed.get(os.path.dirname(path) or ".", ()))


_ORIGINAL: dict[str, Any] = {**{name: getattr(os, name) for name in (*_PATH_CALLS, *_LIST_CALLS)},
                             "open": builtins.open}


def listdir_for(directory: str, wanted: Callable[[str], Any]) -> list[str]:
    """``os.listdir(directory)``, for a caller that uses only the names ``wanted`` accepts: a
    recording takes the listing as asking about those names alone (a search for requirements
    files lists the repository's top directory, whose other files it never looks at)."""
    for probes in tuple(_ACTIVE):
        probes._keep(directory, probes.listed, wanted)
    return _ORIGINAL["listdir"](directory)


def _tested(name: str) -> Any:
    original = _ORIGINAL[name]

    def call(path: Any, *args: Any, **kwargs: Any) -> Any:
        for probes in tuple(_ACTIVE):
            probes._keep(path, probes.tested)
        return original(path, *args, **kwargs)

    return call


def _listed(name: str) -> Any:
    original = _ORIGINAL[name]

    def call(path: Any = None, *args: Any, **kwargs: Any) -> Any:
        for probes in tuple(_ACTIVE):
            probes._keep(path, probes.listed)
        return original(path, *args, **kwargs) if path is not None else original(*args, **kwargs)

    return call


def _opened(file: Any, *args: Any, **kwargs: Any) -> Any:
    for probes in tuple(_ACTIVE):
        probes._keep(file, probes.tested)
    return _ORIGINAL["open"](file, *args, **kwargs)


def _install() -> None:
    for name in _PATH_CALLS:
        setattr(os, name, _tested(name))
    for name in _LIST_CALLS:
        setattr(os, name, _listed(name))
    builtins.open = io.open = _opened  # type: ignore[assignment]


def _uninstall() -> None:
    for name in (*_PATH_CALLS, *_LIST_CALLS):
        setattr(os, name, _ORIGINAL[name])
    builtins.open = io.open = _ORIGINAL["open"]


@contextmanager
def recording(root: str) -> Iterator[Probes]:
    """The questions asked about paths below ``root`` while the block runs (in any thread).
    The memoised file-system answers are forgotten first, so that each question is asked."""
    from engine.loading import paths
    from engine.parsing.source import files_changed

    probes = Probes(root)
    with _LOCK:
        if not _ACTIVE:
            _install()
        _ACTIVE.append(probes)
    paths.clear_cache()
    files_changed()
    try:
        yield probes
    finally:
        with _LOCK:
            _ACTIVE.remove(probes)
            if not _ACTIVE:
                _uninstall()

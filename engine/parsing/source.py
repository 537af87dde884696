"""Positioned YAML loading.

Files are parsed by :mod:`engine.parsing.yaml_compose` (ruamel.yaml's C-backed composer, about ten
times faster than the round-trip loader, with start/end marks) into plain Python values:
mappings become :class:`YMap`, sequences :class:`YSeq`, both remembering where every key and
value sits. Scalars are resolved the way ansible-core resolves them (it loads with PyYAML,
i.e. YAML 1.1: ``yes``/``on`` are booleans).

Errors are values: :func:`parse_text` and :meth:`SourceCache.load` return a :class:`Loaded`
whose ``error`` names the file, line and column; nothing raised by the YAML library escapes.
"""

from __future__ import annotations

import io
import os
from _thread import _local as ThreadLocal  # threading.local, without importing threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from engine import files
from engine.parsing.loaded import Loaded, YamlProblem
from engine.span import Span, YMap, YSeq
from engine.values import UnsafeText, VaultText

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.parsing.parse_store import ParseStore


__all__ = ["Loaded", "SourceCache", "Span", "UnsafeText", "VaultText", "YMap", "YSeq", "YamlProblem",
           "dump_round_trip", "load_round_trip", "parse_text"]


def parse_text(text: str, file: str) -> Loaded:
    """Parse YAML text; a syntax error comes back as ``Loaded.error`` with its position."""
    from engine.parsing.yaml_compose import parse_yaml

    return parse_yaml(text, file)


def _not_utf8(path: str, exc: UnicodeDecodeError) -> YamlProblem:
    """Where the first byte that is not UTF-8 is, in words a person can act on."""
    data = exc.object if isinstance(exc.object, bytes) else b""
    before = data[:exc.start]
    line = before.count(b"\n")
    column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace"))  # valid up to exc.start
    byte = f"0x{data[exc.start]:02x}" if exc.start < len(data) else "a byte"
    what = "a binary file" if b"\0" in data[:8192] else "not UTF-8 text"
    return YamlProblem(f"cannot read file: it is {what} ({byte} at line {line + 1}, column {column + 1} is not "
                       "UTF-8); save it as UTF-8, or exclude it if it is not Ansible's",
                       Span(path, line, column, line, column + 1))


class Overlay(dict[str, str]):
    """Unsaved editor buffers, keyed by real path: the loader may reach a file by another name than
    the one the editor opened it by (debops' ``roles -> ansible/roles``), and reads the buffer
    whichever it uses."""

    def _key(self, path: str) -> str:
        if not self or dict.__contains__(self, path):
            return path
        from engine.loading.paths import realpath  # memoised: the loader asks for every file it reads

        return realpath(path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and dict.__contains__(self, self._key(path))

    def __getitem__(self, path: str) -> str:
        return dict.__getitem__(self, self._key(path))

    def __setitem__(self, path: str, text: str) -> None:
        dict.__setitem__(self, os.path.realpath(path), text)

    def __delitem__(self, path: str) -> None:
        dict.__delitem__(self, self._key(path))

    def get(self, path: str, default: Any = None) -> Any:  # type: ignore[override]
        return dict.get(self, self._key(path), default)

    def pop(self, path: str, *default: Any) -> Any:  # type: ignore[override]
        return dict.pop(self, self._key(path), *default)


_files_state = 0


def files_state() -> int:
    """A number that changes whenever the files may have changed since it was read (an edit, a
    change on disk the workspace index was told of): what a cache of values worked out from files
    is kept by. Kept for a moment instead, a cache would show a changed file's old values for that
    moment; kept by this, one command reads each file once, as ansible-playbook does in one run."""
    return _files_state


def files_changed() -> None:
    """The files may have changed: every cache kept by :func:`files_state` starts over."""
    global _files_state
    _files_state += 1


class SourceCache:
    """Parsed files keyed by path and content, so unchanged files are parsed once.

    ``overlay`` holds unsaved editor buffers, which win over the disk. ``store``, given to
    one-shot commands, also keeps parses on disk between runs (never an unsaved buffer's).
    """

    @classmethod
    def for_command(cls) -> SourceCache:
        """For one command-line run: parses come from, and go to, the user's parse store."""
        from engine.parsing.parse_store import ParseStore

        return cls(ParseStore())

    def __init__(self, store: ParseStore | None = None) -> None:
        self.store = store
        self._by_content: dict[str, tuple[str, Loaded]] = {}  # path -> its last parsed text (one each)
        self._by_path: dict[str, tuple[float, int, Loaded]] = {}
        self.overlay = Overlay()
        self._tracking = ThreadLocal()
        self.parsed = 0  # how many times a text was actually parsed
        self._outside: tuple[dict[str, tuple[str, Loaded]], tuple[str, ...]] | None = None
        """Parses kept with another cache, of the absolute paths under none of the roots (:meth:`share_parses`)."""
        self.shared_plays: Any = None
        """An :class:`engine.loading.shared_plays.SharedPlays` when a command resolves many
        playbooks of one tree with this cache: a play imported by several is resolved once."""
        self.partner_plays: Any = None
        """An :class:`engine.loading.shared_plays.PartnerPlays`: plays another revision of the
        tree resolved, taken where they cannot differ (``playbook-ls diff``)."""
        self.parsed_actions: dict[int, tuple[Any, Any]] = {}
        """id(a task's mapping) -> (the mapping, its :class:`engine.loading.actions.ParsedAction`):
        a role's tasks are loaded again at each use of the role, from the same parse."""

    def share_parses(self, other: SourceCache, roots: tuple[str, ...]) -> None:
        """Parse once with ``other`` the files outside every one of ``roots``: two trees planned
        side by side (``playbook-ls diff``) read the same inventory and collections. A file of
        either tree stays with its own cache, whatever path names it (a relative one names a file
        of either)."""
        shared = other._outside if other._outside is not None else ({}, ())
        self._outside = other._outside = (shared[0], tuple({*shared[1], *(os.path.join(root, "") for root in roots)}))

    @contextmanager
    def tracking(self) -> Iterator[list[str]]:
        """Record the paths this thread loads meanwhile (what a resolution depends on);
        loads from other threads, such as editor requests, are not recorded. Nests: a load
        is recorded by every enclosing ``tracking`` (a playbook's and its play's)."""
        stack = getattr(self._tracking, "stack", None)
        if stack is None:
            stack = self._tracking.stack = []
        paths: list[str] = []
        stack.append(paths)
        try:
            yield paths
        finally:
            stack.pop()

    def record(self, paths: Iterable[str]) -> None:
        """Count ``paths`` as loaded by every enclosing ``tracking`` (a resolution taken over
        from an earlier one reads what that one read)."""
        for tracked in getattr(self._tracking, "stack", ()):
            tracked.extend(paths)

    def read_text(self, path: str) -> str:
        if path in self.overlay:
            return self.overlay[path]
        return files.read_text(path)

    def load(self, path: str) -> Loaded:
        """Load ``path``. Missing or unreadable files come back as errors too."""
        for tracked in getattr(self._tracking, "stack", ()):
            tracked.append(path)
        if path not in self.overlay:
            try:
                stat = os.stat(path)
            except OSError as exc:
                return Loaded(path, error=YamlProblem(f"cannot read file: {exc.strerror}", Span(path, 0, 0, 0, 0)))
            cached = self._by_path.get(path)
            if cached and cached[0] == stat.st_mtime and cached[1] == stat.st_size:
                return cached[2]
        try:
            text = self.read_text(path)
        except files.UnreadableFile as exc:
            return Loaded(path, error=YamlProblem(f"cannot read file: {exc}", Span(path, 0, 0, 0, 0)))
        except UnicodeDecodeError as exc:
            return Loaded(path, error=_not_utf8(path, exc))
        except OSError as exc:
            return Loaded(path, error=YamlProblem(f"cannot read file: {exc.strerror or exc}", Span(path, 0, 0, 0, 0)))
        loaded = self.parse(path, text)
        if path not in self.overlay:
            self._by_path[path] = (stat.st_mtime, stat.st_size, loaded)
        return loaded

    def forget_buffer(self, path: str) -> None:
        """An editor buffer of ``path`` (a real path) was closed: forget the parse of its last text,
        under whatever name it was parsed, unless the disk's is the one kept. The disk's parse is
        kept apart (by modification time); a buffer's stayed until the file was edited again, one
        parse per file ever opened and changed."""
        from engine.loading.paths import realpath

        for name in list(self._by_content):
            known = self._by_content.get(name)
            cached = self._by_path.get(name)
            if known is not None and (name == path or realpath(name) == path) and \
                    (cached is None or cached[2] is not known[1]):
                self._by_content.pop(name, None)

    def parse(self, path: str, text: str) -> Loaded:
        """``text`` parsed as the content of ``path``; the last parse of each path is reused."""
        table = self._by_content
        if self._outside is not None and os.path.isabs(path) and not path.startswith(self._outside[1]):
            table = self._outside[0]
        known = table.get(path)
        if known is not None and known[0] == text:
            return known[1]
        loaded = self.store.get(path, text) if self.store is not None and path not in self.overlay else None
        if loaded is None:
            loaded = parse_text(text, path)
            self.parsed += 1
            if self.store is not None and path not in self.overlay:
                self.store.put(path, text, loaded)
        table[path] = (text, loaded)
        return loaded


def load_round_trip(text: str) -> Any:
    """Load with ruamel.yaml's round-trip loader, which keeps comments and formatting.

    Much slower than :func:`parse_text`; meant only for edits that must be written back
    without losing comments (code actions, fixes). Raises ruamel's YAMLError on bad input.
    """
    from ruamel.yaml import YAML

    return YAML(typ="rt").load(text)


def dump_round_trip(data: Any) -> str:
    """Write back what :func:`load_round_trip` loaded, comments included."""
    from ruamel.yaml import YAML

    stream = io.StringIO()
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.dump(data, stream)
    return stream.getvalue()

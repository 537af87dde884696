"""Parsed YAML files kept on disk between runs of the command line, keyed by content.

A command such as ``playbook-ls vars`` reads a playbook's hundred-odd files on every run;
parsing them (and importing the YAML libraries to do it) is most of its time. The store
keeps each parse as plain JSON in one SQLite database in the user's cache directory
(``parsed/parsed.sqlite3`` below :func:`engine.user_cache.cache_dir`), keyed by a hash of the
parser's own files, the path and the text, so a file is parsed again exactly when it, or
playbook-ls's parser, changed. One database, written in one transaction per run, rather than
a file per parse: creating hundreds of small files cost a cold run more than parsing them.

A parse is stored the second time a text is parsed: the first time only its key is noted (in a
plain file, :data:`NOTES`, until there is a database).
Encoding and writing a playbook's parses costs a third of parsing them, and a run on a fresh
machine (a CI job) never reads them back.

Each entry is JSON, decoded into :class:`YMap` / :class:`YSeq` / :class:`Span` by this module:
loading it can never run code, even from a planted entry. A damaged or foreign entry is
ignored and parsed again; a cache that cannot be opened or written only means no store.
"""

from __future__ import annotations

import atexit
import os

from engine.loaded import Loaded, YamlProblem
from engine.span import Span, YMap, YSeq
from engine.user_cache import blake2b
from engine.values import UnsafeText, VaultText

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any


FORMAT = 1
MAX_ENTRIES = 20_000  # past this, the older half goes (a few tens of MB at most)
DATABASE = "parsed.sqlite3"
NOTES = "noted"
"""Keys of texts parsed once while there is no database yet, a line each: a cold run (a CI job,
which never runs again) notes its parses without importing SQLite or creating a database."""
_NOTES_READ = MAX_ENTRIES * 41  # bytes of NOTES read, MAX_ENTRIES keys: a larger file is started again
_BATCH = 512  # parses written per transaction
_PARSER_FILES = ("yaml_compose.py", "span.py", "values.py", "loaded.py")


class _Shared(Exception):
    """A value is reached twice (a YAML alias): stored twice it could grow without bound."""


def _parser_fingerprint() -> str:
    """The parser's own files by size and modification time: a changed parser parses again."""
    here = os.path.dirname(os.path.abspath(__file__))
    parts = [str(FORMAT)]
    for name in _PARSER_FILES:
        try:
            stat = os.stat(os.path.join(here, name))
            parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:?")
    return "|".join(parts)


def _encode(value: Any, seen: set[int]) -> Any:
    """Containers as ``["m", span, [[key, value, key_span, value_span], ...]]`` and
    ``["s", span, [[item, item_span], ...]]``, tagged strings as ``["u"|"v", text]``; spans as
    their four numbers (every span of a file names that file)."""
    if isinstance(value, YMap):
        if id(value) in seen:
            raise _Shared
        seen.add(id(value))
        keys, values = value.key_spans, value.value_spans
        return ["m", _span(value.span), [[_encode(k, seen), _encode(v, seen), _span(keys.get(k)), _span(values.get(k))]
                                         for k, v in value.items()]]
    if isinstance(value, YSeq):
        if id(value) in seen:
            raise _Shared
        seen.add(id(value))
        spans = value.item_spans
        return ["s", _span(value.span),
                [[_encode(item, seen), _span(spans[i] if i < len(spans) else None)] for i, item in enumerate(value)]]
    if isinstance(value, UnsafeText):
        return ["u", str(value)]
    if isinstance(value, VaultText):
        return ["v", str(value)]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise _Shared  # nothing else comes out of the parser; refuse rather than store it wrongly


def _span(span: Span | None) -> list[int] | None:
    return None if span is None else [span.line, span.col, span.end_line, span.end_col]


class _Decoder:
    """Builds the values back; written for speed (a playbook's files hold tens of thousands of
    values and spans), so scalars are not passed through a call and spans are made directly."""

    def __init__(self, file: str) -> None:
        self.file = file

    def span(self, numbers: list[int] | None) -> Span | None:
        if numbers is None:
            return None
        line, col, end_line, end_col = numbers
        return _new_span(Span, (self.file, line, col, end_line, end_col))

    def value(self, data: Any) -> Any:
        if type(data) is not list:
            return data
        kind = data[0]
        span, value = self.span, self.value
        if kind == "m":
            result = YMap(span(data[1]))
            key_spans, value_spans = result.key_spans, result.value_spans
            for key, item, key_span, item_span in data[2]:
                if type(key) is list:
                    key = value(key)
                result[key] = value(item) if type(item) is list else item
                key_spans[key] = span(key_span)
                value_spans[key] = span(item_span)
            return result
        if kind == "s":
            seq = YSeq(span(data[1]))
            items = seq.item_spans
            for item, item_span in data[2]:
                seq.append(value(item) if type(item) is list else item)
                items.append(span(item_span))
            return seq
        if kind == "u":
            return UnsafeText(data[1])
        if kind == "v":
            return VaultText(data[1])
        raise ValueError(f"unknown stored kind {kind!r}")


_new_span = tuple.__new__  # Span's fields in order, without NamedTuple's generated __new__


def encode_loaded(loaded: Loaded) -> str | None:
    """``loaded`` as the store's JSON text, or None when it cannot be stored faithfully."""
    try:
        data = _encode(loaded.data, set())
    except (_Shared, RecursionError):
        return None
    error = None if loaded.error is None else [loaded.error.message, _span(loaded.error.span)]
    import json  # only where parses are stored or read: a cold run needs neither

    try:
        return json.dumps({"data": data, "error": error}, separators=(",", ":"), allow_nan=True)
    except RecursionError:  # nested deeper than json's encoder goes, though not than the parser's limit
        return None


def decode_loaded(path: str, text: str) -> Loaded:
    """The :class:`Loaded` of ``path`` that :func:`encode_loaded` wrote; raises ValueError,
    KeyError, TypeError or IndexError on anything else."""
    import json

    stored = json.loads(text)
    decoder = _Decoder(path)
    error = stored["error"]
    problem = None if error is None else YamlProblem(str(error[0]), decoder.span(error[1]) or Span(path, 0, 0, 0, 0))
    return Loaded(path, data=decoder.value(stored["data"]), error=problem)


class ParseStore:
    """The on-disk store; ``get``, ``put`` and ``flush`` never raise. New entries are written
    together, when the batch is full and when the process ends (or on :meth:`flush`)."""

    def __init__(self, directory: str | None = None, store_first_parse: bool = False) -> None:
        """``store_first_parse``: store a text the first time it is parsed (a long-running
        process such as the language server, whose parses are reused by its next start)."""
        if directory is None:
            from engine.user_cache import cache_dir

            directory = os.path.join(cache_dir(), "parsed")
        self.directory = directory
        self._fingerprint = _parser_fingerprint()
        self._database: sqlite3.Connection | None = None
        self._pid = 0  # the process that opened it
        self._pending_owner = 0  # the process whose parses are pending
        self._unusable = False
        self._absent = False  # no database was found: none is read during this process
        self._pending: dict[str, str | None] = {}  # key -> the parse, or None: seen once
        self._seen_before: set[str] = set()  # keys noted by an earlier run, not stored yet
        self._file_notes: set[str] | None = None  # the NOTES file's keys, once read
        self._store_first_parse = store_first_parse
        self._pruned = False
        self.hits = 0

    def _entry(self, path: str, text: str) -> str:
        digest = blake2b(digest_size=20)
        for part in (self._fingerprint, path, text):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        return digest.hexdigest()

    def get(self, path: str, text: str) -> Loaded | None:
        database = self._open(create=False)
        if database is None:
            return None
        key = self._entry(path, text)
        try:
            row = database.execute("SELECT value FROM parsed WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            if row[0] is None:
                self._seen_before.add(key)
                return None
            loaded = decode_loaded(path, row[0])
        except (_database_errors() + (ValueError, KeyError, TypeError, IndexError, RecursionError)):
            return None
        self.hits += 1
        return loaded

    def put(self, path: str, text: str, loaded: Loaded) -> None:
        """Note that ``text`` was parsed; store the parse if an earlier run noted it too."""
        if self._unusable:
            return
        key = self._entry(path, text)
        storing = self._store_first_parse or key in self._seen_before or key in self._noted_in_file()
        encoded = encode_loaded(loaded) if storing else None
        if encoded is None and storing:
            return  # cannot be stored faithfully (aliases): stays noted only
        if not self._pending:
            atexit.register(self.flush)
            self._pending_owner = os.getpid()
        self._pending[key] = encoded
        if len(self._pending) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the parses not yet written, in one transaction."""
        pending, self._pending = self._pending, {}
        if self._pending_owner != os.getpid():
            return  # a forked child's copy of its parent's pending parses: the parent writes them
        atexit.unregister(self.flush)
        if pending and self._database is None and all(value is None for value in pending.values()) \
                and not os.path.isfile(os.path.join(self.directory, DATABASE)):
            self._note_in_file(list(pending))
            return
        database = self._open(create=True) if pending else None
        if database is None:
            return
        stored = [(key, value) for key, value in pending.items() if value is not None]
        noted = [(key,) for key, value in pending.items() if value is None]
        noted += [(key,) for key in self._noted_in_file() if key not in pending]  # from now on in the database
        try:
            with database:
                database.executemany("INSERT OR REPLACE INTO parsed (key, value) VALUES (?, ?)", stored)
                database.executemany("INSERT OR IGNORE INTO parsed (key) VALUES (?)", noted)
            self._prune(database)
        except _database_errors():
            return  # locked by another writer for too long, or a full disk: nothing is stored
        try:
            os.remove(os.path.join(self.directory, NOTES))
        except OSError:
            pass

    def _noted_in_file(self) -> set[str]:
        if self._file_notes is None:
            try:
                with open(os.path.join(self.directory, NOTES), encoding="ascii") as handle:
                    self._file_notes = set(handle.read(_NOTES_READ).split())
            except (OSError, ValueError):
                self._file_notes = set()
        return self._file_notes

    def _note_in_file(self, keys: list[str]) -> None:
        """Append the keys to NOTES (started again once it holds MAX_ENTRIES keys)."""
        path = os.path.join(self.directory, NOTES)
        try:
            os.makedirs(self.directory, exist_ok=True)
            full = os.path.isfile(path) and os.path.getsize(path) > _NOTES_READ
            with open(path, "w" if full else "a", encoding="ascii") as handle:
                handle.write("".join(f"{key}\n" for key in keys))
        except OSError:
            pass  # a store that cannot be written is only slower

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._database is not None and self._pid != os.getpid():
            self._database = None  # a forked child: SQLite connections must not cross a fork
        if self._database is not None or self._unusable:
            return self._database
        database_path = os.path.join(self.directory, DATABASE)
        if not create and (self._absent or not os.path.isfile(database_path)):
            # looked for once per process (every parse asks): a cold run has none, and one
            # another process creates meanwhile can wait for the next run
            self._absent = True
            return None
        try:
            import sqlite3
        except ImportError:  # a Python built without it
            self._unusable = True
            return None
        try:
            if create:
                os.makedirs(self.directory, exist_ok=True)
            database = sqlite3.connect(database_path, timeout=1.0, check_same_thread=False)
            database.execute("PRAGMA synchronous = OFF")  # a cache: losing the last writes is harmless
            database.execute("CREATE TABLE IF NOT EXISTS parsed (key TEXT PRIMARY KEY, value TEXT)")
        except (OSError, sqlite3.Error):
            self._unusable = True  # not a database, a directory that cannot exist, no sqlite3
            return None
        self._database, self._pid = database, os.getpid()
        return database

    def _prune(self, database: sqlite3.Connection) -> None:
        """Once per process that writes: past MAX_ENTRIES, drop the older half."""
        if self._pruned:
            return
        self._pruned = True
        (count,) = database.execute("SELECT count(*) FROM parsed").fetchone()
        if count > MAX_ENTRIES:
            with database:
                database.execute("DELETE FROM parsed WHERE rowid IN (SELECT rowid FROM parsed ORDER BY rowid LIMIT ?)",
                                 (count // 2,))


def _database_errors() -> tuple[type[Exception], ...]:
    import sqlite3

    return (sqlite3.Error,)

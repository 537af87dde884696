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
loading it can never run code. Each is sealed with a MAC keyed by the user's secret and bound to
its key (:func:`engine.user_cache.seal`): anyone can compute a key, but only this user's
playbook-ls can write what is read back under it, so a planted, copied or damaged entry is
parsed again. Nothing in the directory is trusted either: a database that is not a regular file
of at most :data:`MAX_DATABASE_BYTES`, or whose schema is anything but the one table written
here (a view, a trigger, another table), is replaced by a fresh one; every statement runs under
a time bound and every value under a length bound; the notes are read as
:func:`engine.user_cache.read_cache_file` reads. A cache that cannot be opened or written only
means no store.
"""

from __future__ import annotations

import atexit
import os
import time
import weakref

from engine.parsing.loaded import Loaded, YamlProblem
from engine.span import Span, YMap, YSeq
from engine.user_cache import blake2b
from engine.values import UnsafeText, VaultText, YamlTimestamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any


FORMAT = 3  # the database's user_version: any other is started again
MAX_ENTRIES = 20_000  # past this, the older half goes (a few tens of MB at most)
DATABASE = "parsed.sqlite3"
NOTES = "noted"
"""Keys of texts parsed once while there is no database yet, a line each: a cold run (a CI job,
which never runs again) notes its parses without importing SQLite or creating a database."""
_NOTES_READ = MAX_ENTRIES * 41  # bytes of NOTES read, MAX_ENTRIES keys: a larger file is started again
_BATCH = 512  # parses written per transaction
MAX_DATABASE_BYTES = 256 * 1024 * 1024  # far beyond MAX_ENTRIES parses: a larger file is started again
MAX_VALUE_BYTES = 64 * 1024 * 1024  # one entry (a 16 MB YAML file's parse); SQLite refuses to read a longer one
STATEMENT_SECONDS = 5.0  # a statement still running after this is interrupted: the store is not used
_SCHEMA = "CREATE TABLE parsed (key TEXT PRIMARY KEY, value BLOB)"
_EXPECTED_SCHEMA = [("index", "sqlite_autoindex_parsed_1", "parsed", None), ("table", "parsed", "parsed", _SCHEMA)]
_SIDE_FILES = ("-journal", "-wal", "-shm")  # SQLite opens these beside the database


class _Shared(Exception):
    """A value is reached twice (a YAML alias): stored twice it could grow without bound."""


def _parser_fingerprint() -> str:
    """The parser's own files and the YAML libraries it uses: a changed parser, or an upgraded
    library, parses again."""
    from engine import code_files

    return f"{FORMAT}|{code_files.identity(code_files.PARSER, code_files.PARSER_LIBRARIES)}"


def _encode(value: Any, seen: set[int]) -> Any:
    """Containers as ``["m", span, [[key, value, key_span, value_span], ...]]`` and
    ``["s", span, [[item, item_span], ...]]``, tagged strings as ``["u"|"v"|"t", text]``; spans as
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
    if isinstance(value, YamlTimestamp):
        return ["t", str(value)]
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
        if kind == "t":
            return YamlTimestamp(data[1])
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
        stored = {"data": data, "error": error}
        if loaded.duplicates:
            stored["duplicates"] = [[problem.message, _span(problem.span)] for problem in loaded.duplicates]
        return json.dumps(stored, separators=(",", ":"), allow_nan=True)
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
    duplicates = tuple(YamlProblem(str(message), decoder.span(span) or Span(path, 0, 0, 0, 0))
                       for message, span in stored.get("duplicates", ()))
    return Loaded(path, data=decoder.value(stored["data"]), error=problem, duplicates=duplicates)


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
        self._pending: dict[str, bytes | None] = {}  # key -> the parse, or None: seen once
        self._seen_before: set[str] = set()  # keys noted by an earlier run, not stored yet
        self._file_notes: set[str] | None = None  # the NOTES file's keys, once read
        self._store_first_parse = store_first_parse
        self._pruned = False
        self._private_dir: bool | None = None
        # when the running statement is interrupted; apart from the store, so that the connection's
        # progress handler does not hold the store (a cycle only the garbage collector would close,
        # leaving each store's database open until then)
        self._deadline = _Deadline()
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
        self._deadline.at = time.monotonic() + STATEMENT_SECONDS
        try:
            row = database.execute("SELECT value FROM parsed WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            if row[0] is None:
                self._seen_before.add(key)
                return None
            payload = _unsealed(key, row[0])
            if payload is None:
                return None
            loaded = decode_loaded(path, payload)
        except (_database_errors() + (ValueError, KeyError, TypeError, IndexError, RecursionError, MemoryError)):
            return None
        self.hits += 1
        return loaded

    def put(self, path: str, text: str, loaded: Loaded) -> None:
        """Note that ``text`` was parsed; store the parse if an earlier run noted it too."""
        if self._unusable:
            return
        key = self._entry(path, text)
        storing = self._store_first_parse or key in self._seen_before or key in self._noted_in_file()
        encoded = _sealed(key, encode_loaded(loaded)) if storing else None
        if encoded is None and storing:
            return  # cannot be stored faithfully (aliases, too long, no secret): stays noted only
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
                and not _is_regular(os.path.join(self.directory, DATABASE)):
            self._note_in_file(list(pending))
            return
        database = self._open(create=True) if pending else None
        if database is None:
            return
        stored = [(key, value) for key, value in pending.items() if value is not None]
        noted = [(key,) for key, value in pending.items() if value is None]
        noted += [(key,) for key in self._noted_in_file() if key not in pending]  # from now on in the database
        self._deadline.at = time.monotonic() + STATEMENT_SECONDS
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
            from engine.user_cache import read_cache_file

            # a FIFO, a device, a link or a larger file notes nothing (and is started again)
            data = read_cache_file(os.path.join(self.directory, NOTES), _NOTES_READ)
            self._file_notes = set(data.decode("ascii", "replace").split()) if data else set()
        return self._file_notes

    def _note_in_file(self, keys: list[str]) -> None:
        """Append the keys to NOTES (started again once it holds MAX_ENTRIES keys, or when it is
        not a regular file of this user's)."""
        path = os.path.join(self.directory, NOTES)
        if not self._private(create=True):
            return
        try:
            if os.path.lexists(path) and not _is_regular(path, _NOTES_READ):
                _remove(path)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            descriptor = os.open(path, flags, 0o600)
            try:
                os.write(descriptor, "".join(f"{key}\n" for key in keys).encode("ascii"))
            finally:
                os.close(descriptor)
        except OSError:
            pass  # a store that cannot be written is only slower

    def _private(self, create: bool) -> bool:
        """Whether the store's directory is this user's alone (:func:`engine.user_cache.private_dir`)."""
        if self._private_dir is None or (create and not self._private_dir):
            from engine.user_cache import private_dir

            self._private_dir = private_dir(self.directory, create)
        return self._private_dir

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._database is not None and self._pid != os.getpid():
            self._database = None  # a forked child: SQLite connections must not cross a fork
        if self._database is not None or self._unusable:
            return self._database
        database_path = os.path.join(self.directory, DATABASE)
        if not create and (self._absent or not os.path.lexists(database_path)):
            # looked for once per process (every parse asks): a cold run has none, and one
            # another process creates meanwhile can wait for the next run
            self._absent = True
            return None
        try:
            import sqlite3  # noqa: F401 - whether this Python has it
        except ImportError:  # a Python built without it
            self._unusable = True
            return None
        database = self._connect(database_path, create) if self._private(create) else None
        if database is None:
            if create:
                self._unusable = True  # a directory that is not ours or cannot exist, a store that cannot be made
            else:
                self._absent = True  # nothing usable to read: made (or made again) when parses are written
            return None
        self._database, self._pid = database, os.getpid()
        # sqlite3's connection is in a reference cycle of its own (its statement cache): closed with the
        # store, not when the garbage collector comes by (a process making many stores kept them all open)
        weakref.finalize(self, database.close)
        return database

    def _connect(self, database_path: str, create: bool) -> sqlite3.Connection | None:
        """A connection to the store; what is there and is not a store this module wrote is
        removed and made afresh (when ``create``)."""
        import sqlite3

        for attempt in range(2):
            if any(os.path.lexists(database_path + side) and not _is_regular(database_path + side, MAX_DATABASE_BYTES)
                   for side in ("", *_SIDE_FILES)):
                _remove_database(database_path)  # a FIFO, a link, a device, a huge file: started again
            if not create and not os.path.lexists(database_path):
                return None
            database = None
            try:
                database = sqlite3.connect(database_path, timeout=1.0, check_same_thread=False)
                database.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES + 64)
                self._deadline.at = time.monotonic() + STATEMENT_SECONDS
                database.set_progress_handler(self._deadline.passed, 10_000)
                database.execute("PRAGMA trusted_schema = OFF")  # no function a planted schema names runs
                found = _schema(database)
                if found == "empty" and create:
                    database.execute("BEGIN IMMEDIATE")  # the table and its format at once, for other readers
                    database.execute(_SCHEMA.replace("TABLE", "TABLE IF NOT EXISTS"))
                    database.execute(f"PRAGMA user_version = {FORMAT}")
                    database.commit()
                    found = _schema(database)
                if found == "ours":
                    database.execute("PRAGMA synchronous = OFF")  # a cache: losing the last writes is harmless
                    return database
                if found == "empty":  # being made by another process, or nothing to read yet
                    database.close()
                    return None
            except (OSError, sqlite3.Error):
                pass  # not a database, locked too long, interrupted: started again, once
            if database is not None:
                database.close()
            if attempt == 0:
                _remove_database(database_path)
        return None


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


def _schema(database: sqlite3.Connection) -> str:
    """``ours`` (this format's one table, nothing else), ``empty`` (a new file) or ``foreign``."""
    (version,) = database.execute("PRAGMA user_version").fetchone()
    schema = database.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name LIMIT 3")
    schema = schema.fetchall()
    if version == FORMAT and schema == _EXPECTED_SCHEMA:
        return "ours"
    return "empty" if version == 0 and not schema else "foreign"


def _sealed(key: str, encoded: str | None) -> bytes | None:
    """An entry's value: its JSON sealed to its key (None when it is not to be stored)."""
    if encoded is None or len(encoded) > MAX_VALUE_BYTES:
        return None
    from engine.user_cache import seal

    return seal(encoded.encode("utf-8", "surrogatepass"), key)


def _unsealed(key: str, value: object) -> bytes | None:
    from engine.user_cache import unseal

    return unseal(value, key) if type(value) is bytes else None


def _is_regular(path: str, limit: int | None = None) -> bool:
    """A regular file, not a link, of at most ``limit`` bytes."""
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and (limit is None or info.st_size <= limit)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


class _Deadline:
    """When the running statement of a store's database is interrupted (``time.monotonic()``)."""

    def __init__(self) -> None:
        self.at = 0.0

    def passed(self) -> bool:
        """SQLite's progress handler: whether to interrupt the running statement (a planted
        database is never queried for long)."""
        return time.monotonic() > self.at


def _remove_database(path: str) -> None:
    for side in ("", *_SIDE_FILES):
        _remove(path + side)


def _database_errors() -> tuple[type[Exception], ...]:
    import sqlite3

    return (sqlite3.Error,)

"""Parsed YAML files kept on disk between runs of the command line, keyed by content.

A command such as ``playbook-ls vars`` reads a playbook's hundred-odd files on every run;
parsing them (and importing the YAML libraries to do it) is most of its time. The store
keeps each parse as plain JSON in the user's cache directory (``parsed/`` below
:func:`engine.user_cache.cache_dir`), named by a hash of the parser's own files, the path
and the text, so a file is parsed again exactly when it, or playbook-ls's parser, changed.

The store is JSON, decoded into :class:`YMap` / :class:`YSeq` / :class:`Span` by this module:
loading it can never run code, even from a planted file. A damaged or foreign entry is
ignored and parsed again; a cache directory that cannot be written only means no store.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from engine.loaded import Loaded, YamlProblem
from engine.span import Span, YMap, YSeq
from engine.values import UnsafeText, VaultText

FORMAT = 1
MAX_ENTRIES = 20_000  # past this, the older half goes (a few tens of MB at most)
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
    return json.dumps({"data": data, "error": error}, separators=(",", ":"), allow_nan=True)


def decode_loaded(path: str, text: str) -> Loaded:
    """The :class:`Loaded` of ``path`` that :func:`encode_loaded` wrote; raises ValueError,
    KeyError, TypeError or IndexError on anything else."""
    stored = json.loads(text)
    decoder = _Decoder(path)
    error = stored["error"]
    problem = None if error is None else YamlProblem(str(error[0]), decoder.span(error[1]) or Span(path, 0, 0, 0, 0))
    return Loaded(path, data=decoder.value(stored["data"]), error=problem)


class ParseStore:
    """The on-disk store; ``get`` and ``put`` never raise."""

    def __init__(self, directory: str | None = None) -> None:
        if directory is None:
            from engine.user_cache import cache_dir

            directory = os.path.join(cache_dir(), "parsed")
        self.directory = directory
        self._fingerprint = _parser_fingerprint()
        self._pruned = False
        self.hits = 0

    def _entry(self, path: str, text: str) -> str:
        digest = hashlib.blake2b(digest_size=20)
        for part in (self._fingerprint, path, text):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        return os.path.join(self.directory, digest.hexdigest() + ".json")

    def get(self, path: str, text: str) -> Loaded | None:
        try:
            with open(self._entry(path, text), encoding="utf-8") as handle:
                loaded = decode_loaded(path, handle.read())
        except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
            return None
        self.hits += 1
        return loaded

    def put(self, path: str, text: str, loaded: Loaded) -> None:
        encoded = encode_loaded(loaded)
        if encoded is None:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            self._prune()
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(encoded)
                os.replace(temporary, self._entry(path, text))
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass  # a read-only or full cache directory: nothing is stored

    def _prune(self) -> None:
        """Once per process that writes: past MAX_ENTRIES, drop the older half."""
        if self._pruned:
            return
        self._pruned = True
        with os.scandir(self.directory) as entries:
            found = [entry for entry in entries if entry.name.endswith((".json", ".tmp"))]
        if len(found) <= MAX_ENTRIES:
            return
        found.sort(key=lambda entry: entry.stat().st_mtime)
        for entry in found[: len(found) // 2]:
            try:
                os.unlink(entry.path)
            except OSError:
                pass

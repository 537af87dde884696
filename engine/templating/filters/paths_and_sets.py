"""ansible.builtin filters and tests a run needs beyond :mod:`.common`'s: encodings,
hashes, regex_findall, string and path filters, the set-like list filters and the file tests.

Each follows ansible-core 2.19's own function (``plugins/filter/core.py``, ``mathstuff.py``,
``plugins/test/files.py``) line for line where it decides the result: the set-like filters go
through Python sets and fall back to an order-keeping de-duplication for unhashable items, so
their order is the same as ansible's (and varies with string hashing as ansible's does: such a list
is a RunOrdered one, which a report before the run says is unknown). They
are written here rather than imported from an installed ansible-core because the engine runs
without ansible-core.
"""

from __future__ import annotations

import base64
import hashlib
import ntpath
import os
import re
from collections.abc import Callable
from typing import Any

from engine.values import RunOrdered


class FilterFailure(ValueError):
    """A filter or test refused its input; the templar fails the task with the message."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def b64encode(string: Any, encoding: str = "utf-8", urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(_text(string).encode(encoding, "surrogateescape")).decode("ascii")


def b64decode(string: Any, encoding: str = "utf-8", urlsafe: bool = False) -> str:
    decode = base64.urlsafe_b64decode if urlsafe else base64.b64decode
    return decode(_text(string).encode("utf-8", "surrogateescape")).decode(encoding, "surrogateescape")


def regex_findall(value: Any, regex: str, multiline: bool = False, ignorecase: bool = False) -> list[Any]:
    from engine.templating.filters.regex_and_ternary import guarded

    flags = (re.I if ignorecase else 0) | (re.M if multiline else 0)
    return guarded(("filter", "regex_findall"), "regex_findall", _text(value), regex, flags)  # type: ignore[no-any-return]


def get_hash(data: Any, hashtype: str = "sha1") -> str:
    try:
        digest = hashlib.new(hashtype)
    except Exception as exc:  # noqa: BLE001 - ansible turns any refusal into the filter's error
        raise FilterFailure(str(exc)) from exc
    digest.update(_text(data).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _unique(items: list[Any]) -> list[Any]:
    kept: list[Any] = []
    for item in items:
        if item not in kept:
            kept.append(item)
    return kept


def _hash_seeded(item: Any) -> bool:
    if isinstance(item, str | bytes):
        return True
    return isinstance(item, tuple | frozenset) and any(_hash_seeded(part) for part in item)


def _set_list(items: set[Any]) -> list[Any]:
    """``list(items)`` as ansible's filter returns it, a :class:`RunOrdered` list when its order is
    the process's own (an item hashed with the per-process seed)."""
    found = list(items)
    return RunOrdered(found) if any(_hash_seeded(item) for item in found) else found


def union(a: Any, b: Any) -> list[Any]:
    try:
        return _set_list(set(a) | set(b))
    except TypeError:
        return _unique(list(a) + list(b))


def intersect(a: Any, b: Any) -> list[Any]:
    try:
        return _set_list(set(a) & set(b))
    except TypeError:
        return _unique([x for x in a if x in b])


def difference(a: Any, b: Any) -> list[Any]:
    try:
        return _set_list(set(a) - set(b))
    except TypeError:
        return _unique([x for x in a if x not in b])


def symmetric_difference(a: Any, b: Any) -> list[Any]:
    try:
        return _set_list(set(a) ^ set(b))
    except TypeError:
        common = intersect(a, b)
        return [x for x in union(a, b) if x not in common]


def _on_text(function: Callable[..., Any]) -> Callable[..., Any]:
    """``unicode_wrap``: the function on the value; a ``str`` subclass comes back as ``str``."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        return str(result) if isinstance(result, str) else result

    return wrapped


FILTERS: dict[str, Callable[..., Any]] = {
    "b64encode": b64encode,
    "b64decode": b64decode,
    "regex_findall": regex_findall,
    "hash": get_hash,
    "checksum": get_hash,
    "union": union,
    "intersect": intersect,
    "difference": difference,
    "symmetric_difference": symmetric_difference,
    "split": _on_text(str.split),
    "splitext": _on_text(os.path.splitext),
    "realpath": _on_text(os.path.realpath),
    "relpath": _on_text(os.path.relpath),
    "expanduser": _on_text(os.path.expanduser),
    "expandvars": _on_text(os.path.expandvars),
    "win_basename": _on_text(ntpath.basename),
    "win_dirname": _on_text(ntpath.dirname),
}

def _on_files(test: Callable[..., bool]) -> Callable[..., bool]:
    """A file test whose OSError (``same_file`` of a missing path) fails the task, not the run."""

    def wrapped(*args: Any) -> bool:
        try:
            return test(*args)
        except OSError as exc:
            raise FilterFailure(str(exc)) from exc

    return wrapped


TESTS: dict[str, Callable[..., bool]] = {
    "directory": os.path.isdir,
    "is_dir": os.path.isdir,
    "file": os.path.isfile,
    "is_file": os.path.isfile,
    "link": os.path.islink,
    "is_link": os.path.islink,
    "exists": os.path.exists,
    "link_exists": os.path.lexists,
    "same_file": _on_files(os.path.samefile),
    "is_same_file": _on_files(os.path.samefile),
    "mount": os.path.ismount,
    "is_mount": os.path.ismount,
    "is_abs": os.path.isabs,
}

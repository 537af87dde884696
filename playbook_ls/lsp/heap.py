"""Handing the memory freed after a collection back to the system.

A collection after edits frees the plays they replaced, but glibc's allocator keeps the freed
pages in its arenas (one per thread that allocated, and the server's query threads do): the
resident size stays where the busiest moment took it. ``malloc_trim`` returns what is free at
the top of each arena and, since glibc 2.8, whole free pages inside it. Other C libraries
(musl, macOS, Windows) have no such call and are left alone."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):  # no C library to open, or not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_free_memory() -> bool:
    """Return the allocator's free memory to the system; False where the C library cannot."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True

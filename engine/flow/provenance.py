"""A reason worded for one host, reworded for another host whose own inventory levels give the
same values (engine.flow.host_outcome shares the outcome between them)."""

from __future__ import annotations

import os
from functools import lru_cache


def with_provenance(reason: str, first: str, first_levels: list[tuple[str, str | None]],
                     levels: list[tuple[str, str | None]]) -> str | None:
    """``reason``, worded for host ``first`` with its own ``first_levels``, for a host whose own
    ``levels`` (in the same order) give the same values; None when ``first`` shows in the reason
    otherwise than in those levels (a value naming it), where only a reading of its own is exact."""
    def shown(label: str, path: str | None) -> str:
        return f"({label}, {_relative(path)})" if path else f"({label})"

    if len(first_levels) != len(levels):
        return None
    pairs = [(shown(*old), shown(*new)) for old, new in zip(first_levels, levels, strict=True)]
    rest = reason
    for old, _ in pairs:
        rest = rest.replace(old, "")
    if first in rest:
        return None
    for old, new in pairs:
        reason = reason.replace(old, new)
    return reason


@lru_cache(maxsize=256)
def _relative_from(path: str, cwd: str) -> str:
    return os.path.relpath(path, cwd)


def _relative(path: str) -> str:
    """``os.path.relpath(path)``, as :meth:`_HostTask._values_of` shows a path, once per path."""
    return _relative_from(path, os.getcwd())

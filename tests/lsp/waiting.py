"""Polling for answers that need the background index (built after initialize)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from bounded import HANG_SECONDS
from lsprotocol import types

T = TypeVar("T")
INDEXING = "indexing the workspace"  # in what a hover says while the index cannot answer it yet


def indexed_hover(answer: Any) -> bool:
    """Whether a hover (a ``types.Hover``, or the JSON ``result`` a raw client reads) is answered
    from the index: neither empty nor the notice that the workspace is still being indexed."""
    if answer is None:
        return False
    contents = answer.get("contents") if isinstance(answer, dict) else answer.contents
    value = contents.get("value") if isinstance(contents, dict) else getattr(contents, "value", contents)
    return INDEXING not in str(value)


async def until(request: Callable[[], Awaitable[T]], ready: Callable[[T], bool] = bool,
                seconds: float = HANG_SECONDS) -> T:
    """Repeat ``request`` until its answer is ``ready`` (or give the last answer back after
    ``seconds``: a bound for a hang, not for speed, as a busy machine indexes slowly)."""
    deadline = time.monotonic() + seconds
    result = await request()
    while not ready(result) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        result = await request()
    return result


async def condition(check: Callable[[], T], ready: Callable[[T], bool] = bool, seconds: float = HANG_SECONDS) -> T:
    """``check()`` once it is ``ready`` (or its last value after ``seconds``), for what the client
    receives unasked (diagnostics, progress)."""
    async def ask() -> T:
        return check()

    return await until(ask, ready, seconds)


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


def where(locations: list[types.Location] | None, root: Path) -> list[tuple[str, int, int, int]]:
    """Locations as ``(relative path, line, start character, end character)``."""
    return [(Path(loc.uri.removeprefix("file://")).relative_to(root).as_posix(), loc.range.start.line,
             loc.range.start.character, loc.range.end.character) for loc in locations or []]

"""Polling for answers that need the background index (built after initialize)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from lsprotocol import types

T = TypeVar("T")


async def until(request: Callable[[], Awaitable[T]], ready: Callable[[T], bool] = bool, tries: int = 200) -> T:
    """Repeat ``request`` until its answer is ``ready`` (or give the last answer back)."""
    result = await request()
    for _ in range(tries):
        if ready(result):
            break
        await asyncio.sleep(0.05)
        result = await request()
    return result


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


def where(locations: list[types.Location] | None, root: Path) -> list[tuple[str, int, int, int]]:
    """Locations as ``(relative path, line, start character, end character)``."""
    return [(Path(loc.uri.removeprefix("file://")).relative_to(root).as_posix(), loc.range.start.line,
             loc.range.start.character, loc.range.end.character) for loc in locations or []]

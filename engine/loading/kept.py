"""Resolutions a command keeps by key while the files stay as they were."""

from __future__ import annotations

from engine.parsing.source import files_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class KeptWhileFilesStay:
    """Resolutions kept by key (the latest ``limit``), forgotten when any file changes
    (:func:`engine.parsing.source.files_state`)."""

    def __init__(self, limit: int) -> None:
        self._kept: dict[tuple[Any, ...], Any] = {}
        """Each keeps its tasks alive while a command moves on."""
        self.limit = limit
        self._state = files_state()
        self.hits = 0

    def get(self, key: tuple[Any, ...]) -> Any:
        if self._state != files_state():
            self._kept.clear()
            self._state = files_state()
        found = self._kept.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: tuple[Any, ...], kept: Any) -> None:
        if self._state == files_state():
            self._kept[key] = kept
            if len(self._kept) > self.limit:
                del self._kept[next(iter(self._kept))]

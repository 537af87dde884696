"""The parse store (:mod:`engine.parsing.parse_store`) as the language server uses it: read at once, so a
second start on a workspace takes its files' parses from the disk instead of parsing them again;
written later, a few entries at a time while the server has nothing else to do, so that storing
5,000 entries (seconds of encoding) never delays the first index. Unlike a command, the server
stores a text the first time it parses it: its next start reads them all."""

from __future__ import annotations

from typing import Any

WRITES_PER_TURN = 10  # entries written between two looks at the refresher's queue (a few ms of work)


class LaterWrites:
    """A parse store whose ``put`` only queues the entry; :meth:`write_some` writes them."""

    def __init__(self, store: Any = None) -> None:
        self._store = store  # made on first use: answering initialize must not wait for its imports
        self.queued: dict[tuple[str, str], Any] = {}  # (path, text) -> its Loaded, the last of each

    @property
    def store(self) -> Any:
        if self._store is None:
            from engine.parsing.parse_store import ParseStore

            self._store = ParseStore(store_first_parse=True)
        return self._store

    def get(self, path: str, text: str) -> Any:
        return self.store.get(path, text)

    def put(self, path: str, text: str, loaded: Any) -> None:
        self.queued[(path, text)] = loaded

    def write_some(self, count: int = WRITES_PER_TURN) -> bool:
        """Write up to ``count`` queued entries; whether some are still queued."""
        for _ in range(min(count, len(self.queued))):
            (path, text), loaded = self.queued.popitem()
            self.store.put(path, text, loaded)
        self.store.flush()  # one transaction for the few
        return bool(self.queued)

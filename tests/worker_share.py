"""Expensive results computed once per test session, shared by all pytest-xdist workers.

A session fixture that batches work (every engine run the session selected, run two at a time)
cannot know which tests the scheduler gives to the other workers, so each worker used to do the
whole batch. Here the workers split it: each claims the next unclaimed key with an exclusive file
create, computes it, and publishes the result with an atomic rename; a worker that needs a key
another worker claimed waits for its result. Without xdist it is a plain in-process computation.
"""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

# A worker that claimed a key and died leaves the others waiting: fail instead of hanging CI.
WAIT_LIMIT_SECONDS = 1800.0


class SharedResults:
    """``get(key)`` computes ``compute(key)`` for every key in ``batch()`` at the first call,
    ``threads`` at a time, together with the other workers, and hands out the results."""

    def __init__(self, directory: Path | None, compute: Callable[[str], Any], threads: int = 2) -> None:
        self._directory = directory
        self._compute = compute
        self._threads = threads
        self._local: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str, batch: Callable[[], Iterable[str]]) -> Any:
        if key not in self._local:
            keys = list(dict.fromkeys([*batch(), key]))
            with ThreadPoolExecutor(self._threads) as pool:
                list(pool.map(self._claim_and_compute, keys))
            if key not in self._local:
                self._local[key] = self._wait_for(key)
        ok, value = self._local[key]
        if not ok:
            pytest.fail(f"computing {key!r} failed: {value}")
        return value

    def _claim_and_compute(self, key: str) -> None:
        if key in self._local or not self._claim(key):
            return
        try:
            result: tuple[bool, Any] = (True, self._compute(key))
        except Exception as error:  # handed to the test that asks for it, in whichever worker
            result = (False, f"{type(error).__name__}: {error}")
        with self._lock:
            self._local[key] = result
        if self._directory is not None:
            published = self._result_file(key)
            partial = published.with_suffix(f".{os.getpid()}.partial")
            partial.write_bytes(pickle.dumps(result))
            partial.replace(published)

    def _claim(self, key: str) -> bool:
        if self._directory is None:
            return True
        try:
            os.close(os.open(self._directory / f"{_safe(key)}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def _wait_for(self, key: str) -> Any:
        assert self._directory is not None, "without xdist every key is computed here"
        published = self._result_file(key)
        deadline = time.monotonic() + WAIT_LIMIT_SECONDS
        while not published.exists():
            if time.monotonic() > deadline:
                pytest.fail(f"another test worker claimed {key!r} and gave no result in {WAIT_LIMIT_SECONDS:.0f} s")
            time.sleep(0.1)
        return pickle.loads(published.read_bytes())

    def _result_file(self, key: str) -> Path:
        assert self._directory is not None
        return self._directory / f"{_safe(key)}.result"


def _safe(key: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in key)


def session_directory(factory: pytest.TempPathFactory, name: str) -> Path | None:
    """A directory every xdist worker of this session sees (their base temporary directories
    share a parent), or None when the tests run in one process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    shared = factory.getbasetemp().parent / name
    shared.mkdir(exist_ok=True)
    return shared

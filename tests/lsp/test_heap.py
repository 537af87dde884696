"""After a collection the server hands the freed memory back to the system (glibc keeps it in
its arenas otherwise), and does nothing where the C library has no way to."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from playbook_ls.lsp import heap


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not Path("/proc/self/status").exists() or heap._malloc_trim() is None,
                    reason="reads RSS from /proc; glibc's malloc_trim")
def test_memory_freed_between_live_blocks_goes_back_to_the_system() -> None:
    blocks = [bytes(4000) + bytes([n % 256]) for n in range(20_000)]  # 80 MB, each from malloc
    kept = blocks[::50]  # live blocks all along the heap: nothing at its top is free to return
    del blocks
    before = _rss_kb()
    assert heap.release_free_memory()
    freed = before - _rss_kb()
    assert freed > 40_000, f"only {freed} kB returned"
    assert len(kept) == 400


def test_without_malloc_trim_nothing_is_released(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_library(*args: object, **kwargs: object) -> None:
        raise OSError("no C library")

    heap._malloc_trim.cache_clear()
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    try:
        assert heap.release_free_memory() is False
    finally:
        heap._malloc_trim.cache_clear()


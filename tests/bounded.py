"""What a test may assert about time: work done, not seconds on the wall clock.

The suite runs on shared machines whose other cores are busy (CI runners, a developer's laptop
building something else). A wall-clock bound there fails for reasons that have nothing to do
with the code, so tests bound the CPU time the work took (this process's, and its children's
that have ended), which other processes' load does not inflate, and keep a wall-clock bound
only to catch a hang, far above anything a busy machine takes. Speed is measured in bench/.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

HANG_SECONDS = 120.0  # wall-clock time after which work is taken to hang, however busy the machine


@dataclass
class Spent:
    cpu: float = 0.0  # seconds of CPU time, this process's and its ended children's
    wall: float = 0.0


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@contextmanager
def spent() -> Iterator[Spent]:
    """Measure the block: ``with spent() as took: ...; assert took.cpu < 2``. The block must also
    end within :data:`HANG_SECONDS` of wall-clock time (checked on the way out)."""
    result = Spent()
    cpu, wall = _cpu(), time.monotonic()
    try:
        yield result
    finally:
        result.cpu, result.wall = _cpu() - cpu, time.monotonic() - wall
    assert result.wall < HANG_SECONDS, f"took {result.wall:.0f} s of wall-clock time: hangs"

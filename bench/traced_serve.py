"""``playbook-ls serve`` with a way to look at its heap from outside, for ``lsp_memory.py --heap``.

On SIGUSR1 the server writes, to the file ``PLAYBOOK_LS_HEAP_DUMP`` names (``.N`` appended, N
counting the dumps), after a full collection: a histogram of the objects the garbage collector
tracks and what Python's allocator holds (``.json``: live blocks, arenas, the bytes in use); and,
from the second signal on, a pickled ``tracemalloc`` snapshot (``.trace``): the first signal starts
tracing with ``PLAYBOOK_LS_TRACE_FRAMES`` frames (none: no tracing), so that what is traced is what
was allocated after it, and the indexing before it runs at full speed. ``.done`` is written last.
Nothing of this is in the server itself: this script starts it as ``python -m playbook_ls serve``."""

from __future__ import annotations

import collections
import gc
import json
import os
import re
import signal
import sys
import tempfile
import tracemalloc
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DUMPS = [0]


def allocator() -> dict[str, Any]:
    """Python's small-object allocator as ``sys._debugmallocstats`` reports it (on the C stderr)."""
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        try:
            sys.stderr.flush()
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode(errors="replace")
    found: dict[str, Any] = {"blocks": sys.getallocatedblocks()}
    for key, pattern in (("arenas", r"# arenas allocated current\s*=\s*([\d,]+)"),
                         ("arena_bytes", r"(\d[\d,]*) bytes in \d[\d,]* arenas"),
                         ("used_bytes", r"# bytes in allocated blocks\s*=\s*([\d,]+)"),
                         ("free_bytes", r"# bytes in available blocks\s*=\s*([\d,]+)")):
        m = re.search(pattern, text)
        if m:
            found[key] = int(m.group(1).replace(",", ""))
    return found


def dump(signum: int, frame: FrameType | None) -> None:
    target = os.environ.get("PLAYBOOK_LS_HEAP_DUMP")
    if not target:
        return
    DUMPS[0] += 1
    base = f"{target}.{DUMPS[0]}"
    gc.collect()
    counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    Path(base + ".json").write_text(json.dumps({"types": dict(counts.most_common(600)), "allocator": allocator()}))
    frames = int(os.environ.get("PLAYBOOK_LS_TRACE_FRAMES") or 0)
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(base + ".trace")
    elif frames:
        tracemalloc.start(frames)
    Path(base + ".done").touch()


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, dump)
    from playbook_ls.cli.main import main

    sys.exit(main(["serve", *sys.argv[1:]]))

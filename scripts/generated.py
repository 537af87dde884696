"""The step every generator of committed files ends with: write the files that changed, or
with ``--check`` only say which ones are out of date (exit 1), for the tests and CI."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sync(rendered: dict[Path, str], argv: list[str], script: str, what: str) -> int:
    """Write the ``rendered`` files that differ from the disk (or report them with ``--check``)."""
    stale = [path for path, text in rendered.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/{script}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered[path], encoding="utf-8")
    print(f"{len(rendered)} {what}, {len(stale)} changed")
    return 0

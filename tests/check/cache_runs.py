"""``playbook-ls check`` run as its own process, as a user runs it twice: what one run caches only
the next run can read, and a process keeps no in-memory answer of an earlier run (installed
plugin listings are kept for the life of a process). Bounded in time and memory, so a cache read
that blocks or fills memory fails the test instead of hanging it or the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # a run takes about a second
MEMORY = 3 << 30  # bytes of address space: far above a run's needs, far below a machine's

Finding = tuple[str, int, str]


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "playbook_ls", "check", "--format", "json", "-j", "1", *args, "."],
                          cwd=repo, env=environment, capture_output=True, text=True, timeout=TIMEOUT,
                          preexec_fn=_limit_memory if sys.platform != "win32" else None, check=False)


def findings(repo: Path, *args: str, env: dict[str, str] | None = None) -> list[Finding]:
    """The findings of a check of ``repo``, which must end as a check does (no traceback)."""
    done = run(repo, *args, env=env)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    data = json.loads(done.stdout)
    return [(f["path"], f["line"], f["code"]) for f in data["findings"]]


def cached_and_fresh(repo: Path, env: dict[str, str] | None = None) -> tuple[list[Finding], list[Finding]]:
    """The findings of a run with the cache and of one without it."""
    return findings(repo, env=env), findings(repo, "--no-cache", env=env)

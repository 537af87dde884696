"""The fleet harness's verdict on a run the CPU limit stopped: over the limit, whatever CPU time
the run's usage counted by the time the kernel's SIGXCPU ended it."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from bench_loader import load_bench

harness = load_bench("plan_vs_listing", siblings=True)  # it imports list_tasks


def test_a_run_the_cpu_limit_stopped_is_over_the_limit(tmp_path: Path) -> None:
    seconds, _wall, _size, code = harness.timed([sys.executable, "-c", "while True: pass"], tmp_path,
                                                dict(os.environ), 1)
    assert code == -signal.SIGXCPU
    assert harness.over_limit(code, seconds, 1)
    assert "over the CPU limit: stopped by SIGXCPU" in harness.outcome_note(code, seconds, 1)


def test_sigxcpu_before_the_counted_seconds_reach_the_limit_is_over_it() -> None:
    assert harness.over_limit(-signal.SIGXCPU, 227.0, 240)  # the count wait4 gave such a run
    assert "over the CPU limit" in harness.outcome_note(-signal.SIGXCPU, 227.0, 240)


def test_a_run_that_ends_or_fails_under_the_limit_is_not_over_it() -> None:
    assert not harness.over_limit(0, 239.0, 240)
    assert not harness.over_limit(1, 12.0, 240)
    assert harness.outcome_note(0, 12.0, 240) == ""
    assert harness.outcome_note(-signal.SIGSEGV, 12.0, 240) == "  (stopped by SIGSEGV)"

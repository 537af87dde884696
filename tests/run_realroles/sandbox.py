"""Each run of the real-role comparison, ansible-playbook's and the engine's, in a sandbox.

A role's ``command`` or ``shell`` task with ``creates``/``removes`` is kept as the role wrote it
(role_scenarios.py), so it really runs: a script, an installer, ``iptables -F``, whatever the role
does when its guard file is missing. The cutting moves the paths it can see into the scenario, but
a command line may reach ``/tmp``, a top-level directory, the kernel's settings or the network in
ways no rewriting of its text can follow. So the runs themselves cannot reach them: each starts in
a private mount and network namespace (sandbox_run.sh) where the machine is read-only but its
scratch directory, ``/tmp`` and ``/dev/shm`` are fresh and empty, and the network is a loopback
that is down. What a role writes outside its scratch directory fails, or vanishes with the run,
the same way in both tools, and nothing of one run is seen by the next.

It needs root (mount and network namespaces); :func:`unavailable` says why it cannot be had, and
the harness then refuses to record or measure instead of running roles' commands unguarded.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "sandbox_run.sh"


def wrap(argv: list[str], scratch: Path) -> list[str]:
    """``argv`` started in a sandbox where only ``scratch`` (a run's directory) is written for good."""
    return ["unshare", "--mount", "--net", "--propagation", "private", "sh", str(SCRIPT), str(scratch), *argv]


def unavailable() -> str | None:
    """Why runs cannot be sandboxed here (None when they can): a trial run must write its scratch
    directory and fail to write outside it."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    with tempfile.TemporaryDirectory(prefix="pls-sandbox-") as tmpdir:
        # the machine's root read-only, only a loopback: read from the run's side, nothing written outside
        probe = "touch inside && awk '$5 == \"/\" {print $6}' /proc/self/mountinfo | grep -q '^ro' && " \
                "[ \"$(awk -F: 'NR > 2 {print $1}' /proc/net/dev | tr -d ' ')\" = lo ]"
        proc = subprocess.run(wrap(["sh", "-c", probe], Path(tmpdir)), cwd=tmpdir, capture_output=True, text=True)
        if proc.returncode != 0 or not (Path(tmpdir) / "inside").exists():
            return f"a trial run in it failed (it needs root): {(proc.stderr or proc.stdout).strip()[:200]}"
    return None

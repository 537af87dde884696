"""Each run of the real-role comparison starts in a sandbox (sandbox.py): a role's command writes
its scratch directory and nothing else of the machine, and the harness refuses to run roles'
commands where no sandbox can be had."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "run"))

import realroles  # noqa: E402
import sandbox  # noqa: E402

WHY = sandbox.unavailable()


def test_the_harness_refuses_to_record_or_measure_without_its_sandbox(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sandbox, "unavailable", lambda: "no mount namespace")
    monkeypatch.setattr(realroles, "record_directory", lambda directory: pytest.fail("recorded unsandboxed"))
    monkeypatch.setattr(realroles, "measure_directory", lambda directory, quiet: pytest.fail("measured unsandboxed"))
    assert realroles.main(["--record", str(tmp_path)]) == 2
    assert realroles.main(["--measure", str(tmp_path)]) == 2
    assert realroles.main(["--checkouts", str(tmp_path)]) == 2
    assert "no mount namespace" in capsys.readouterr().err


def test_each_run_is_started_through_the_sandbox(tmp_path: Path, monkeypatch) -> None:
    started = []
    monkeypatch.setattr(realroles.engine_cases, "run_case",
                        lambda case, mode, tool, wrap=None: started.append(wrap(["tool"], tmp_path)))
    realroles._run(None, "run", "ansible")
    assert started == [sandbox.wrap(["tool"], tmp_path)]
    assert started[0][-2:] == [str(tmp_path), "tool"]


@pytest.mark.skipif(WHY is not None, reason=f"no sandbox here: {WHY}")
def test_a_run_writes_its_scratch_directory_and_nothing_else(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    work = scratch / "work"
    work.mkdir(parents=True)
    outside = HERE / f"sandbox-probe-{os.getpid()}"  # a directory of this checkout, writable outside the sandbox
    line = (f"echo kept > inside; echo x > {outside} || echo refused > refused;"
            " ls -A /tmp > seen-in-tmp; echo gone > /tmp/left-by-a-role; ls -A /dev/shm > seen-in-shm;"
            " awk -F: 'NR > 2 {print $1}' /proc/net/dev | tr -d ' ' > interfaces")
    try:
        proc = subprocess.run(sandbox.wrap(["sh", "-c", line], scratch), cwd=work, capture_output=True, text=True)
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    assert proc.returncode == 0, proc.stderr
    assert (work / "inside").read_text() == "kept\n"
    assert (work / "refused").exists()  # the machine's files are read-only
    if scratch.is_relative_to("/tmp"):  # a fresh /tmp: nothing but the way to the scratch directory
        assert (work / "seen-in-tmp").read_text().split() == [scratch.relative_to("/tmp").parts[0]]
    assert (work / "seen-in-shm").read_text() == ""
    assert (work / "interfaces").read_text().split() == ["lo"]  # no network but its own loopback, down
    assert not Path("/tmp/left-by-a-role").exists()  # that /tmp went with the run

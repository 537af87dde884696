"""The task hover's host summary on bench/fleet.py's fleet, as the editor asks for it (its plan holds
one play, not the playbook's list): every task of the playbook and the role gets one, greyed and on
demand, and the tasks reading what earlier tasks set share the walk of those tasks by class there too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from hover_hosts import measure, task_lines  # noqa: E402


@pytest.mark.parametrize("greyed", [True, False])
def test_every_task_of_the_fleet_has_a_host_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    greyed: bool) -> None:
    from fleet import generate

    generate(tmp_path, 40)
    monkeypatch.chdir(tmp_path)
    times = measure(tmp_path, 1, greyed)  # each hover asserts its summary
    assert len(times["cpu"]) == len(task_lines(tmp_path)) > 5

"""Includes whose file only the run names, recorded from ansible (``bench/values_heldout.py
record``): a file named from a registered result. The files it may load are placed after it for
the hosts that may load them: their tasks depend there, and what they set is unknown after the
include (not undefined, which made the plan say a later task fails). A looping include whose
items name a file with each host's values is known before the run: each item's file is followed
(engine.variables.item_files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

ROOT = Path(__file__).resolve().parent / "run_named_includes"


def _plan_wrong(project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return plan_against_recording(project, "inventory.ini", monkeypatch).wrong  # type: ignore[no-any-return]


def test_what_a_file_the_run_names_sets_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    project = ROOT / "unknown_per_host_file"
    compared, wrong = measure(project, as_written=True)
    assert compared == 9  # the probes in the file it loads too, where the run names it
    assert wrong == []
    assert _plan_wrong(project, monkeypatch) == []


def test_a_looping_include_naming_files_per_host_and_item(monkeypatch: pytest.MonkeyPatch) -> None:
    project = ROOT / "looped_host_files"
    compared, wrong = measure(project, as_written=True)
    assert compared == 15
    assert wrong == []  # which file each item loads on each host is followed, item by item
    assert _plan_wrong(project, monkeypatch) == []

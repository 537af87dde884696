"""A looping include whose file (include_tasks) or role (include_role) each item names, recorded
from ansible-playbook: the items and the files they name are known before the run, so each item's
file could be followed item by item. Not followed yet: the included files' values are unknown and
the plan lists an include_role's tasks nowhere (issue 44, looping includes named per item)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "per_item_includes" / "per_item_files"


@pytest.mark.xfail(strict=True, reason="a looping include named per item is not followed item by item yet")
def test_values() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 4
    assert wrong == []


@pytest.mark.xfail(strict=True, reason="a looping include_role named per item: its tasks are not planned yet")
def test_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.ini", monkeypatch)
    assert result.wrong == []

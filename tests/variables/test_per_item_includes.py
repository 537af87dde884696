"""A looping include whose file (include_tasks) or role (include_role) each item names, recorded
from ansible-playbook: the items and the files they name are known before the run, so each item's
file is followed item by item (engine.variables.item_files), nested ones too: a looping include in
a file an outer item names, looping over that item's list and reading both loop variables, its
own file named from its item and the outer one's."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

HERE = Path(__file__).resolve().parent / "per_item_includes"
PROJECTS = {"per_item_files": 4, "nested_item_files": 23, "inner_named_item_files": 23}
"""Each project and the values its probes print."""


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_values(name: str) -> None:
    compared, wrong = measure(HERE / name, as_written=True)
    assert compared == PROJECTS[name]
    assert wrong == []


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_plan(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(HERE / name, "inventory.ini", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared

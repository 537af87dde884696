"""Inventory sources the plan and the values do not run (engine.inventory.unrun): a ``constructed``
configuration and an inventory script, recorded from ansible-playbook, which runs them. What only
they give is the run's: names they may set are unknown (not undefined, not guessed from a
``default``), the groups they may fill and a play on them hold hosts only maybe, and no outcome
on such a host is decided. ``ipa_clients`` is a project of the values22 held-out set."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

HERE = Path(__file__).resolve().parent / "unrun_sources"


@pytest.mark.parametrize("name", ["ipa_clients", "cmdb_script"])
def test_values(name: str) -> None:
    compared, wrong = measure(HERE / name, as_written=True)
    assert compared > 0
    assert wrong == []


@pytest.mark.parametrize("name", ["ipa_clients", "cmdb_script"])
def test_plan(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(HERE / name, "inventory", monkeypatch)
    assert result.wrong == []
    assert result.depends.get("an inventory source not run", 0) > 0

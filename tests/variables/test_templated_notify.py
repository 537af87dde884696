"""A templated ``notify`` named per host (engine.flow.templated_notify), recorded from
ansible-playbook: the handler each host's run names, by a host variable or its name (a ``listen``
topic), runs there when the task reports a change; the others are not notified there."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "templated_notify" / "chosen_handlers"


def test_values() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared > 0
    assert wrong == []


def test_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.ini", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared

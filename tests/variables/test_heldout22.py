"""A project of a held-out set for issue 44's values, measured once (``bench/values_heldout.py``),
kept as a fixture: a role with a ``meta/argument_specs.yml`` reached by include_role (tasks_from
and defaults_from, public) and by a looped include_role. ansible prepends a validation task to
each entry point's tasks, written nowhere: it reports it at the play's line (``Base.get_path``
falls back to the play's origin), so the plan lists it there (ansible's run, recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "heldout22" / "systemd_timers"


def test_values() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 17
    assert wrong == []


def test_the_role_argument_validation_is_reported_at_the_play(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.yml", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared

"""A project of a held-out set for issue 44's values, measured once (``bench/values_heldout.py``),
kept as a fixture: a group_by with ``parents`` on mail hosts of three roles. The parent gains its
child groups, and they their hosts, in the order the hosts' results come in, so a later play that
reads the parent's hosts reads them in the run's order (ansible's run, recorded; the project marks
that value the run's own on the host that reads it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "heldout26" / "postfix_mx"


def test_values() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 35
    assert wrong == []


def test_the_plan_agrees_with_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared

"""A play on a group whose grandchildren ansible walks in a set's order, recorded from ansible
(``bench/values_heldout.py record``): its hosts' order is the run's, yet a ``serial`` batch cut
from it may be the same in every order, and so the host its ``run_once`` tasks run on; where it
is not, what those tasks set is still defined on every host of the batch (whichever host runs
them), and the keys of a result every host that may run it gives alike are known."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "run_once_batches" / "nested_group_serial_batches"


def test_batches_alike_in_every_order_and_what_run_once_sets() -> None:
    # serial 2: every batch the same in every order; serial 3: none, yet whichever host runs its
    # run_once tasks, their fact and result are defined, and the result succeeded
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 72  # 18 of them the run's own, each said to be unknown
    assert wrong == []


def test_the_plan_agrees_with_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.yml", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared - sum(result.depends.values())

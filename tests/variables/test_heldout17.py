"""A project of a held-out set for issue 44's values, measured once
(``bench/values_heldout.py``), kept as a fixture: a looping ``include_tasks`` whose file holds a
block with a ``rescue`` around a task that fails at one item. Whether that task fails on a host is
asked again while its own variables are worked out (the block's tasks before it are read at the
same item): the walk takes the question as the run's there instead of recursing without end."""

from __future__ import annotations

from pathlib import Path

from var_values import measure

ROOT = Path(__file__).resolve().parent / "heldout17"


def test_a_failure_asked_while_it_is_worked_out_ends() -> None:
    compared, wrong = measure(ROOT / "cert_renewal", as_written=True)
    assert compared == 42
    assert not [line for line in wrong if "guessed" in line]

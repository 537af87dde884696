"""A project of a held-out set for issue 44's values, measured once (``bench/values_heldout.py``),
kept as a fixture: etcd members in ``serial: [1, 2, "100%"]`` batches put themselves in a voters
group with group_by; a later play on that group runs a ``run_once`` task. ansible lists a batch's
hosts in the group as their results came in, the batches in turn: the first batch holds one
voter, so whichever order the later ones came in, the run_once task runs on it (ansible's run,
recorded)."""

from __future__ import annotations

from pathlib import Path

from var_values import measure

ROOT = Path(__file__).resolve().parent / "heldout19"


def test_run_once_on_a_group_group_by_filled_batch_by_batch() -> None:
    compared, wrong = measure(ROOT / "etcd_cluster", as_written=True)
    assert compared == 64
    assert not [line for line in wrong if "p_snapshot_host" in line]
    # the voters' whole order, and a list joined in it, stay the run's: the second batch's two
    # voters came in as their results did
    assert len(wrong) == 6
    assert all('playbook-ls "unknown: ' in line for line in wrong)

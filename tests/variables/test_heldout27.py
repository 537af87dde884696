"""Two projects of a held-out set for issue 44's values, measured once (``bench/values_heldout.py``),
kept as fixtures: DNS servers that, one batch at a time, add their records to the primary with a
delegated ``set_fact`` building on the earlier batches' (``bind_zones``); and machines to provision
grouped by ``group_by`` and added by ``add_host`` in a loop, with delegated facts read back
(``pxe_provisioning``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECTS = Path(__file__).resolve().parent / "heldout27"


@pytest.mark.parametrize(("name", "values"), [("bind_zones", 33), ("pxe_provisioning", 58)])
def test_values(name: str, values: int) -> None:
    compared, wrong = measure(PROJECTS / name, as_written=True)
    assert compared == values
    assert wrong == []


@pytest.mark.parametrize(("name", "inventory"), [("bind_zones", "inventory"), ("pxe_provisioning", "inventory.yml")])
def test_the_plan_agrees_with_the_run(name: str, inventory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECTS / name, inventory, monkeypatch)
    assert result.wrong == []

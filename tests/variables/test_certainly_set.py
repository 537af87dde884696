"""set_fact of values only the run knows (a command's output registered), recorded from ansible
(``bench/values_heldout.py record``): where a failure of the task stops the host, a host that
reads the fact later has it, whatever its value; ``is defined`` is answered there, in a probe and
in a ``when``. Not where the value may be ``omit`` (the name is then not set), the task's
failure is ignored, or its facts are delegated to another host."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

PROJECT = Path(__file__).resolve().parent / "certainly_set" / "set_from_the_run"


def test_is_defined_of_a_fact_set_to_what_only_the_run_knows() -> None:
    compared, wrong = measure(PROJECT, as_written=True)
    assert compared == 12
    # omit may drop it on both hosts; a2 ignores the task's failure; a1 gets a fact a2 delegates,
    # which a2's failure would not have stopped a1 from reading
    assert len(wrong) == 4
    assert all('playbook-ls "unknown: ' in line for line in wrong)
    assert sum("p_has_extra" in line for line in wrong) == 2
    assert any(line.startswith("site.yml:32 on a2 run 1: p_has_checked") for line in wrong)
    assert any(line.startswith("site.yml:32 on a1 run 1: p_has_peer") for line in wrong)


def test_a_condition_asking_whether_it_is_defined_is_decided(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(PROJECT, "inventory.ini", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared

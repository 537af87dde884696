"""Whether a module task failed, as a later condition reads it from its registered result: known
(it did not) where a failure would have stopped the host, the run's where the host goes on
either way (its errors ignored, literally or as the host templates ``ignore_errors``). The recorded
scenario tests/variables/scenarios/module_failed_where_errors_go_on runs the same playbook under
ansible: its ignored command fails, which a plan saying "skipped" would contradict."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import RUN_TIME_KINDS, depends_kind, planned_rows

SCENARIO = Path(__file__).resolve().parent.parent / "variables" / "scenarios" / "module_failed_where_errors_go_on"


def test_is_failed_decided_where_a_failure_stops_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SCENARIO)
    rows = {(task, host): (outcome, reason) for task, host, outcome, reason in planned_rows(SCENARIO)}
    for host in ("h1", "h2"):
        outcome, reason = rows[("after an ignored failure", host)]
        assert outcome == "depends"
        assert depends_kind(reason) in RUN_TIME_KINDS.values()  # a value only the run has: not a static miss
        assert rows[("after a plain command", host)][0] == "skipped"
        assert rows[("after the failed_when false", host)][0] == "skipped"


def test_a_templated_ignore_errors_is_read_per_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "inventory.ini").write_text("[nodes]\nh1 lenient=true\nh2 lenient=false\n")
    (tmp_path / "site.yml").write_text("""
- hosts: nodes
  gather_facts: false
  tasks:
    - name: check
      ansible.builtin.command: /usr/bin/true
      register: checked
      ignore_errors: "{{ lenient | bool }}"
    - name: report
      ansible.builtin.debug: {msg: failed}
      when: checked is failed
""")
    monkeypatch.chdir(tmp_path)
    rows = {(task, host): outcome for task, host, outcome, _ in planned_rows(tmp_path)}
    assert rows[("report", "h1")] == "depends"
    assert rows[("report", "h2")] == "skipped"


RESCUE_SCENARIO = SCENARIO.parent / "rescue_after_a_module"


def test_a_rescue_after_a_module_depends(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module may fail for a reason of its own (a command's exit code): the rescue of its block
    runs only if it does, which only the run knows; where nothing in the block can fail (an
    assertion that holds, failed_when false, errors ignored) the rescue is skipped, and where the
    assertion fails it runs (the recorded scenario: ansible ran the module's rescue nowhere)."""
    monkeypatch.chdir(RESCUE_SCENARIO)
    rows = {(task, host): (outcome, reason) for task, host, outcome, reason in planned_rows(RESCUE_SCENARIO)}
    for host in ("n1", "n2"):
        outcome, reason = rows[("rescue of the module", host)]
        assert outcome == "depends"
        assert depends_kind(reason) == RUN_TIME_KINDS["rescue section"]
        assert rows[("rescue of the assertion", host)][0] == "skipped"
    assert rows[("rescue of the module", "n3")][0] == "skipped"  # the block's when skips it there
    assert rows[("rescue of the assertion", "n3")][0] == "runs"
    for host in ("n1", "n2", "n3"):
        assert rows[("rescue of failed_when false", host)][0] == "skipped"
        assert rows[("rescue of ignore_errors", host)][0] == "skipped"
        assert rows[("probe past the blocks", host)][0] == ("skipped" if host == "n3" else "runs")

"""The task hover's host summary (features.host_hover): what ``playbook-ls plan`` says of the
task, per outcome and reason, on the hosts of the ``inventory`` setting; a recorded plan
scenario, so each statement is one ansible-playbook confirmed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.flow.host_outcome import DEPENDS, RUNS, SKIPPED, HostOutcome
from playbook_ls.features.host_hover import hosts_section, summary_lines
from playbook_ls.features.workspace import WorkspaceIndex


@pytest.fixture
def index(plan_scenario_index: Callable[[str], WorkspaceIndex]) -> WorkspaceIndex:
    return plan_scenario_index("conditions_inventory")


def test_the_summary_says_where_the_task_runs_and_why_not_elsewhere(index: WorkspaceIndex) -> None:
    text = hosts_section(index, str(Path(index.root) / "site.yml"), 15, ["inventory.ini"])  # "high ports"
    assert text is not None
    assert text.splitlines()[1:] == [
        "- runs on 2: d1, w1",
        "- skipped on 1: w2 — `port | int > threshold` is false (this task): port = 80 (host 'w2' in the "
        "inventory, inventory.ini), threshold = 1000 (play 'conditions on inventory, play and extra variables' "
        "vars, site.yml)",
    ]


def test_no_summary_on_a_play_line(index: WorkspaceIndex) -> None:
    assert hosts_section(index, str(Path(index.root) / "site.yml"), 0, ["inventory.ini"]) is None


def test_hosts_are_grouped_counted_and_cut_short() -> None:
    outcomes = {f"h{i}": HostOutcome(RUNS) for i in range(7)}
    outcomes["x"] = HostOutcome(DEPENDS, "needs `said`")
    outcomes["y"] = HostOutcome(SKIPPED, "`a` is false")
    assert summary_lines(outcomes) == ["- runs on 7: h0, h1, h2, h3, h4, … (2 more)",
                                       "- skipped on 1: y — `a` is false",
                                       "- depends on run-time values on 1: x — needs `said`"]


def test_reasons_alike_but_for_each_host_s_own_line_are_one() -> None:
    """2,000 hosts each with a ``weight=`` on its inventory line: one line per value, not per host;
    a host alone with its reason keeps its name, and another host's name (``web10`` beside
    ``web1``) is not this host's."""
    def skipped(host: str, weight: int) -> HostOutcome:
        return HostOutcome(SKIPPED, f"`weight | int > 7` is false (this task): weight = {weight} "
                                    f"(host '{host}' in the inventory, inventory.ini)")

    outcomes = {"web1": skipped("web1", 2), "web2": skipped("web2", 2), "web3": skipped("web3", 3),
                "web10": HostOutcome(SKIPPED, "run_once: runs once for its batch, on web1")}
    assert summary_lines(outcomes) == [
        "- skipped on 2: web1, web2 — `weight | int > 7` is false (this task): weight = 2 (host '‹host›' in the "
        "inventory, inventory.ini)",
        "- skipped on 1: web3 — `weight | int > 7` is false (this task): weight = 3 (host 'web3' in the "
        "inventory, inventory.ini)",
        "- skipped on 1: web10 — run_once: runs once for its batch, on web1",
    ]


def test_past_a_dozen_reasons_the_rest_is_counted() -> None:
    outcomes = {f"h{i}": HostOutcome(SKIPPED, f"`x` is {i}") for i in range(15)}
    lines = summary_lines(outcomes)
    assert len(lines) == 13
    assert lines[-1] == "- … 3 more hosts for 3 more reasons (`playbook-ls plan` lists them all)"

"""A project of a held-out set for issue 44's values, measured once
(``bench/values_heldout.py``), kept as a fixture: a join play whose ``meta: end_host`` ends a
worker before a ``group_by``; the worker joins no group, so the later play on the managers'
group reads the workers' group without it (ansible's run, recorded)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from var_values import measure

ROOT = Path(__file__).resolve().parent / "heldout20"


def test_a_host_ended_before_a_group_by_joins_no_group() -> None:
    compared, wrong = measure(ROOT / "docker_swarm", as_written=True)
    assert compared == 50
    # the workers' group shown whole: in the order their group_by results came in, the run's (its
    # members, without the ended worker, are what `| sort` and `| length` read)
    assert len(wrong) == 3
    assert all("p_workers_joined: ansible ['wrk-1', 'wrk-2', 'wrk-4']; playbook-ls \"unknown: " in line
               and "(group_by) came in" in line for line in wrong)


def test_the_plan_agrees_with_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plan"))
    from plan_cases import RUN_TIME_KINDS, compare, plan_outcomes

    project = ROOT / "docker_swarm"
    monkeypatch.chdir(project)
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    result = compare(json.loads((project / "outcomes.json").read_text()), plan_outcomes(project, [], "inventory.ini"))
    assert result.wrong == []
    # a run_once task of the play on the managers' group (group_by filled it as results came in)
    # runs on the host whose result came in first: the run's
    waiting = sum(count for kind, count in result.depends.items() if kind in set(RUN_TIME_KINDS.values()))
    assert result.depends == {"the order the hosts' results come in": 3}
    assert result.decided == result.compared - waiting

"""The plan's greying (features.host_preview): the tasks of the open files that the selection runs
but that no host of the ``inventory`` setting runs, on a recorded plan scenario, so that each
greyed task is one ansible-playbook skipped on every host."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.flow.tags import Selection
from engine.loading.paths import realpath
from playbook_ls.features.host_preview import run_nowhere
from playbook_ls.features.workspace import WorkspaceIndex

LOOPS = Path(__file__).resolve().parents[1] / "plan" / "scenarios" / "loops"


@pytest.fixture
def index(plan_scenario_index: Callable[[str], WorkspaceIndex]) -> WorkspaceIndex:
    return plan_scenario_index("loops")


def _recorded_nowhere() -> set[int]:
    """The lines of site.yml whose task ansible-playbook skipped on every host."""
    recorded = json.loads((LOOPS / "expected.json").read_text(encoding="utf-8"))
    return {int(where.split(":")[1]) for where, hosts in recorded.items()
            if where.startswith("site.yml:") and all(set(runs) == {"skipped"} for runs in hosts.values())}


def test_the_tasks_no_host_runs_are_those_ansible_skipped_everywhere(index: WorkspaceIndex) -> None:
    site = realpath(str(Path(index.root) / "site.yml"))
    found = run_nowhere(index, Selection.from_options(), ["inventory.ini"], {site})
    lines = {span.line + 1 for span, _why in found[site]}
    assert lines == _recorded_nowhere() == {17}
    (why,) = [why for span, why in found[site]]
    assert "user == 'carol'" in why and "(3 hosts)" in why


def test_only_open_files_and_selected_tasks(index: WorkspaceIndex) -> None:
    site = realpath(str(Path(index.root) / "site.yml"))
    assert run_nowhere(index, Selection.from_options(), ["inventory.ini"], set()) == {}
    # a selection that runs none of its tasks: the selection preview greys them, not the plan
    assert run_nowhere(index, Selection.from_options(tags=["nothing"]), ["inventory.ini"], {site}) == {}

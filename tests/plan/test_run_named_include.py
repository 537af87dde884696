"""An include whose file a registered result names (``include_tasks: "tasks_{{ which.stdout }}.yml"``):
which file it loads is the run's to know, which is no failure to load. The include and the tasks
after it run, as ansible recorded (``run_named_include/expected.json``); the file's own tasks are
not listed (the plan does not yet list the tasks of every file such an include could load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_cases import planned_rows

ROOT = Path(__file__).resolve().parent / "run_named_include"


def test_a_run_named_include_is_no_load_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    recorded = json.loads((ROOT / "expected.json").read_text())
    rows = {(task, host): outcome for task, host, outcome, _reason in planned_rows(ROOT)}
    for task, line in (("include it", "site.yml:10"), ("after", "site.yml:13")):
        for host in ("h1", "h2"):
            assert recorded[line][host] == ["ok"]
            assert rows[task, host] == "runs"

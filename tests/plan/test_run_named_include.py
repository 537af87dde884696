"""An include whose file a registered result names (``include_tasks: "tasks_{{ which.stdout }}.yml"``):
which file it loads is the run's to know, which is no failure to load. The include and the tasks
after it run, as ansible recorded (``run_named_include/expected.json``); the tasks of every file it
could load (``tasks_*.yml``) are listed, each depending on the run (engine.flow.run_named_files)."""

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


def test_the_files_it_could_load_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file the target's pattern matches is listed, its tasks depending on what names the file
    (the one ansible loaded among them): none of its runs goes unlisted."""
    from plan_cases import compare, plan_outcomes

    monkeypatch.chdir(ROOT)
    rows = {(task, host): (outcome, reason) for task, host, outcome, reason in planned_rows(ROOT)}
    for task in ("in the named file", "in the other file"):
        for host in ("h1", "h2"):
            outcome, reason = rows[task, host]
            assert outcome == "depends"
            assert "'stdout' of the result of task 'which file'" in reason
    recorded = json.loads((ROOT / "expected.json").read_text())
    assert compare(recorded, plan_outcomes(ROOT, [])).wrong == []


def test_a_target_that_names_nothing_lists_nothing() -> None:
    from engine.flow.run_named_files import target_pattern

    assert target_pattern("tasks_{{ which.stdout }}.yml") == "tasks_*.yml"
    assert target_pattern("tasks/{{ ansible_os_family | lower }}.yml") == "tasks/*.yml"
    assert target_pattern("{{ name }}.yml") is None  # every file of the playbook's directory
    assert target_pattern("tasks/main.yml") is None  # no template: named before the run


def test_a_file_it_could_load_that_includes_alike_is_listed_once(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate file whose own include names its file the same way is listed at the first
    include only: following it again would list the files again, include after include."""
    (tmp_path / "site.yml").write_text(
        "- hosts: h\n  gather_facts: false\n  tasks:\n"
        "    - {name: which, ansible.builtin.command: echo a, register: which}\n"
        "    - {name: include it, ansible.builtin.include_tasks: 'step_{{ which.stdout }}.yml'}\n")
    (tmp_path / "step_a.yml").write_text(
        "- {name: again, ansible.builtin.include_tasks: 'step_{{ which.stdout }}.yml'}\n")
    (tmp_path / "inventory.ini").write_text("[h]\nh1\n")
    monkeypatch.chdir(tmp_path)
    rows = [(task, outcome) for task, host, outcome, _reason in planned_rows(tmp_path)]
    assert rows == [("which", "runs"), ("include it", "runs"), ("again", "depends")]

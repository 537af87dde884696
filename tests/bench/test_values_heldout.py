"""The held-out measurement's own logic: a project whose measurement does not finish within the CPU
limit is stopped and counted as all wrong, and the projects after it are still measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_loader import load_bench

values_heldout = load_bench("values_heldout")


def _project(root: Path, name: str) -> Path:
    project = root / name
    project.mkdir()
    (project / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"], "earlier": ["fact"],
                                                   "runtime": ["rc"]}))
    # two probe runs: three values of which one (rc) is the run's own, one run-dependent value
    (project / "expected.json").write_text(json.dumps({"site.yml:9": {
        "h1": [{"fact": 1, "port": 80, "rc": 0}],
        "h2": [{"fact": 2, "port": {"__run_dependent__": [1, 2]}}]}}))
    (project / "outcomes.json").write_text(json.dumps({"site.yml:1": {"h1": ["ok"], "h2": ["skipped"]},
                                                       "site.yml:9": {"h1": ["ok"], "h2": ["ok"]}}))
    return project


def test_a_project_over_the_cpu_limit_counts_as_all_wrong(tmp_path: Path) -> None:
    values, plan = values_heldout.over_the_limit(_project(tmp_path, "slow"))
    assert (values["values"], values["identical"], values["earlier"], values["earlier_identical"]) == (3, 0, 2, 0)
    assert (values["run_own"], values["guessed"]) == (2, 0)
    assert (plan["compared"], plan["knowable"], plan["decided"], plan["wrong"]) == (4, 4, 0, [])


def test_the_cpu_limit_stops_one_project_and_the_next_is_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    slow, quick = _project(tmp_path, "slow"), _project(tmp_path, "quick")

    def values(project: Path) -> dict:
        while project.name == "slow":  # spends CPU until the kernel stops the child
            pass
        return {**values_heldout.values_recorded(project), "identical": 3, "earlier_identical": 2, "guessed": 0,
                "differences": []}

    monkeypatch.setattr(values_heldout, "measure_values", values)
    monkeypatch.setattr(values_heldout, "measure_plan", lambda project: {
        "compared": 4, "decided": 4, "knowable": 4, "wrong": [], "undecided_static": [], "excluded": 0})
    values_heldout.measure_all([slow, quick], listing=False, cpu_limit=1)
    out = capsys.readouterr().out
    assert "slow: over the limit of 1 s CPU" in out
    assert "quick: values 3/3, earlier 2/2, guessed 0; plan wrong 0, decided 4/4" in out
    assert "TOTAL values identical 3/6 (50.0%); earlier 2/4" in out
    assert "TOTAL plan wrong 0; decided 4/8 (50.0%)" in out
    assert "TOTAL over the CPU limit of 1 s: 1 project(s): slow" in out

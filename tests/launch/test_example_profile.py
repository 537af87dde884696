"""examples/launch-profile: a profile and an inventory a newcomer can try, and the trap it shows
(the profile's job_tags reach a task tagged never)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playbook_ls.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "launch-profile"


@pytest.fixture(autouse=True)
def in_example(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(EXAMPLE)
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))


def test_launch_shows_the_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launch", "nightly"]) == 0
    out = capsys.readouterr().out
    assert "hosts (2): web1, web2" in out
    assert "Drop the caches (only on purpose)\tTAGS: [deploy, drop-caches, never]" in out


def test_check_finds_the_never_task_the_profile_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert ".playbook-ls.yml:9:5: PLS107 profile 'nightly' runs 'Drop the caches (only on purpose)'" in out


def test_run_with_the_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--profile", "nightly", "--limit", "web1"]) == 0
    out = capsys.readouterr().out
    assert "example.test on web1 with 2 replicas" in out
    assert "dropping caches" in out  # the trap: job_tags deploy reaches the never task

"""The pre-commit hook (.pre-commit-hooks.yaml) run by pre-commit itself: ``pre-commit try-repo``
with this repository on a small sample repository, as a user tries a hook before adding it to
their configuration. pre-commit installs the hook into a virtualenv of its own from the package
index, so the test runs with PLAYBOOK_LS_NETWORK_TESTS=1 (the CI script sets it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tag-inheritance"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def test_the_hook_checks_the_whole_repository() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "playbook-ls" and hook["entry"] == "playbook-ls check"
    assert hook["pass_filenames"] is False and hook["language"] == "python"


def _sample(where: Path, findings: bool) -> Path:
    shutil.copytree(EXAMPLE, where)
    if not findings:
        tasks = where / "roles" / "sample" / "tasks" / "main.yml"
        tasks.write_text(tasks.read_text().replace("- never", "- other"))
    env = {**os.environ, **GIT_ENV}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "sample"]):
        subprocess.run(["git", *argv], cwd=where, env=env, check=True, timeout=60, capture_output=True)
    return where


@pytest.fixture(scope="module")
def try_repo(tmp_path_factory: pytest.TempPathFactory):
    if not os.environ.get("PLAYBOOK_LS_NETWORK_TESTS"):
        pytest.skip("pre-commit installs the hook from the package index: PLAYBOOK_LS_NETWORK_TESTS=1")
    if subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pre-commit is not installed (it comes with the test extra)")
    home = tmp_path_factory.mktemp("pre-commit-home")  # the hook's virtualenv, shared by the tests

    def run(sample: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "playbook-ls", "--all-files",
                               "--color", "never"], cwd=sample, capture_output=True, text=True, timeout=600,
                              env={**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home)}, stdin=subprocess.DEVNULL)
    return run


def test_try_repo_fails_on_the_example_with_its_findings(try_repo, tmp_path: Path) -> None:
    done = try_repo(_sample(tmp_path / "sample", findings=True))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "playbook-ls check" in done.stdout and "Failed" in done.stdout, done.stdout
    assert done.stdout.count("PLS101") == 2, done.stdout


def test_try_repo_passes_on_a_clean_repository(try_repo, tmp_path: Path) -> None:
    done = try_repo(_sample(tmp_path / "sample", findings=False))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout, done.stdout

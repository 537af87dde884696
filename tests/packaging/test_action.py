"""The GitHub composite action (action.yml), run as a runner runs it: each step's ``if`` decided,
its ``run`` script executed by ``bash --noprofile --norc -eo pipefail`` with the step's ``env``
filled from the inputs and the variables a runner sets, in the workspace, stopping at the
first step that fails. Inputs reach the scripts only through environment variables."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tag-inheritance"
INSTALL = "Install playbook-ls"
INPUT = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")
# the one form of step condition the action uses, and the runner below decides
CONDITION = re.compile(r"^inputs\.([\w-]+) == '([^']*)'$")


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


@dataclass
class Run:
    """What the runner did: the run steps' results in order, and the action steps it reached."""

    steps: list[tuple[str, subprocess.CompletedProcess[str]]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(done.returncode == 0 for _, done in self.steps)

    @property
    def output(self) -> str:
        return "".join(f"== {name} ({done.returncode})\n{done.stdout}{done.stderr}" for name, done in self.steps)


def run_action(inputs: dict[str, str], workspace: Path, runner_temp: Path, skip: frozenset[str] = frozenset(),
               extra_env: dict[str, str] | None = None) -> Run:
    action = _action()
    unknown = set(inputs) - set(action["inputs"])
    assert not unknown, f"the action has no inputs {unknown}"
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()} | inputs
    runner_env = {
        "PATH": os.environ["PATH"], "HOME": str(runner_temp / "home"), "CI": "true", "GITHUB_ACTIONS": "true",
        "RUNNER_TEMP": str(runner_temp), "GITHUB_WORKSPACE": str(workspace), "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_SERVER_URL": "https://github.com", "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(extra_env or {}),
    }
    (runner_temp / "home").mkdir(exist_ok=True)
    result = Run()
    for step in action["runs"]["steps"]:
        if "if" in step:
            condition = CONDITION.match(step["if"])
            assert condition, f"a condition this runner cannot decide: {step['if']}"
            if values[condition.group(1)] != condition.group(2):
                continue
        if "uses" in step:
            result.actions.append(step["uses"])
            continue
        if step["name"] in skip:
            continue
        assert step["shell"] == "bash"
        env = {key: INPUT.sub(lambda m: values[m.group(1)], str(value)) for key, value in step.get("env", {}).items()}
        script = runner_temp / "step.sh"
        script.write_text(step["run"])
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                              env={**runner_env, **env}, capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        result.steps.append((step["name"], done))
        if done.returncode != 0:
            break
    return result


def _installed(runner_temp: Path) -> None:
    """What the install step leaves in ``$RUNNER_TEMP/playbook-ls``, without the package index: a
    virtualenv whose site-packages reach this interpreter's packages and the checkout, with the
    ``playbook-ls`` console script."""
    venv = runner_temp / "playbook-ls"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    [site] = (venv / "lib").glob("python3*/site-packages")
    (site / "checkout.pth").write_text(f"{ROOT}\n{sysconfig.get_paths()['purelib']}\n")
    script = venv / "bin" / "playbook-ls"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom playbook_ls.cli.main import main\n"
                      "sys.exit(main())\n")
    script.chmod(0o755)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "workspace")
    return tmp_path / "workspace"


@pytest.fixture
def runner_temp(tmp_path: Path) -> Path:
    (tmp_path / "runner").mkdir()
    _installed(tmp_path / "runner")
    return tmp_path / "runner"


def test_no_script_has_an_input_pasted_into_it() -> None:
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"{step['name']} pastes an expression into its script"


def test_annotations_on_the_example_and_the_job_fails_on_findings(workspace: Path, runner_temp: Path) -> None:
    run = run_action({}, workspace, runner_temp, skip=frozenset({INSTALL}))
    name, done = run.steps[-1]
    assert name == "Check" and done.returncode == 1, run.output
    assert done.stdout.count("::warning file=roles/sample/tasks/main.yml,") == 2, run.output
    assert run.actions == []


def test_sarif_writes_the_report_keeps_the_job_green_and_uploads_it(workspace: Path, runner_temp: Path) -> None:
    run = run_action({"format": "sarif"}, workspace, runner_temp, skip=frozenset({INSTALL}))
    assert run.ok, run.output
    report = json.loads((workspace / "playbook-ls.sarif").read_text())
    assert {r["ruleId"] for r in report["runs"][0]["results"]} == {"PLS101"}
    assert run.actions == ["github/codeql-action/upload-sarif@v4"]


def test_args_and_paths_are_words_and_nothing_in_them_runs(workspace: Path, runner_temp: Path) -> None:
    (workspace / "with space").mkdir()
    shutil.move(workspace / "playbook.yml", workspace / "with space" / "playbook.yml")
    shutil.move(workspace / "roles", workspace / "with space" / "roles")
    marker = runner_temp / "ran"
    hostile = f"$(touch {marker}) `touch {marker}`; touch {marker}"
    run = run_action({"args": "--select PLS101 --fail-level error", "paths": "'with space'"}, workspace,
                     runner_temp, skip=frozenset({INSTALL}))
    assert run.ok, run.output  # warnings under --fail-level error: the job passes
    assert "::warning file=with space/roles/sample/tasks/main.yml," in run.steps[-1][1].stdout, run.output
    for name in ("args", "paths"):
        run = run_action({name: hostile}, workspace, runner_temp, skip=frozenset({INSTALL}))
        assert not marker.exists(), f"{name}: {run.output}"
        assert run.steps[-1][0] == "Check" and run.steps[-1][1].returncode == 2, run.output
    run = run_action({"args": "--select 'PLS1"}, workspace, runner_temp, skip=frozenset({INSTALL}))
    assert run.steps[-1][1].returncode == 2
    assert "::error title=playbook-ls action::args cannot be split into words: No closing quotation" in run.output


@pytest.mark.parametrize(("inputs", "message"), [
    ({"format": "json"}, "format must be github or sarif, not 'json'"),
    ({"format": ""}, "format must be github or sarif, not ''"),
    ({"ansible-core": ">=2.19; touch x"}, "ansible-core must be a version such as 2.19 or 2.19.4"),
    ({"version": "v1 --index-url x"}, "version must be a tag or commit of playbook-ls"),
    ({"repository": "a/b/c"}, "repository must be owner/name"),
    ({"diff-base": "main; rm -rf x"}, "diff-base must be a git revision"),
])
def test_a_bad_input_fails_the_job_before_anything_is_installed(inputs: dict[str, str], message: str,
                                                                 workspace: Path, tmp_path: Path) -> None:
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    run = run_action(inputs, workspace, runner_temp)
    assert [name for name, _ in run.steps] == ["Check the inputs"] and not run.ok, run.output
    assert f"::error title=playbook-ls action::{message}" in run.output
    assert not (runner_temp / "playbook-ls").exists() and run.actions == []


def test_diff_base_writes_what_the_change_does_to_the_run_into_the_summary(workspace: Path,
                                                                          runner_temp: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "PATH": os.environ["PATH"], "HOME": str(runner_temp / "home")}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *command], cwd=workspace, env=env, check=True, capture_output=True)
    playbook = workspace / "playbook.yml"
    playbook.write_text(playbook.read_text().replace("tags: __play", "tags: [__play, reviewed]", 1))
    summary = runner_temp / "summary.md"
    run = run_action({"diff-base": "HEAD", "args": "--exit-zero"}, workspace, runner_temp,
                     skip=frozenset({INSTALL}), extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.ok, run.output
    text = summary.read_text()
    assert text.startswith("### playbook-ls diff: `HEAD (") and "| `playbook.yml` |" in text, text
    assert "--tags reviewed: now runs" in text
    run = run_action({"diff-base": "HEAD", "diff-args": "--fail-on any", "args": "--exit-zero"}, workspace,
                     runner_temp, skip=frozenset({INSTALL}), extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.steps[-1][1].returncode == 1, run.output  # the change changes the run: refused


def test_requirements_without_ansible_galaxy_is_an_error(workspace: Path, runner_temp: Path) -> None:
    (workspace / "requirements.yml").write_text("collections: []\n")
    run = run_action({"requirements": "requirements.yml"}, workspace, runner_temp, skip=frozenset({INSTALL}),
                     extra_env={"PATH": "/usr/bin:/bin"})
    if shutil.which("ansible-galaxy", path="/usr/bin:/bin"):
        pytest.skip("ansible-galaxy is installed system-wide")
    assert run.steps[-1][0] == "Install the requirements" and run.steps[-1][1].returncode == 2, run.output
    assert "requirements needs ansible-galaxy" in run.output


def test_requirements_are_installed_with_the_ansible_galaxy_beside_playbook_ls(workspace: Path,
                                                                               runner_temp: Path) -> None:
    galaxy = runner_temp / "playbook-ls" / "bin" / "ansible-galaxy"
    galaxy.write_text('#!/bin/sh\necho "galaxy $*" > "$RUNNER_TEMP/galaxy-called"\n')
    galaxy.chmod(0o755)
    run = run_action({"requirements": "requirements.yml"}, workspace, runner_temp, skip=frozenset({INSTALL}))
    assert (runner_temp / "galaxy-called").read_text() == "galaxy install -r requirements.yml\n", run.output


@pytest.mark.skipif(not os.environ.get("PLAYBOOK_LS_NETWORK_TESTS"),
                    reason="installs playbook-ls and ansible-core from the package index: PLAYBOOK_LS_NETWORK_TESTS=1")
def test_every_step_from_a_fresh_virtualenv_with_ansible_core(workspace: Path, tmp_path: Path) -> None:
    """The whole action as a runner runs it, the install step too: playbook-ls from this checkout
    and ansible-core 2.19 from the package index, then the check with module names checked."""
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    run = run_action({"ansible-core": "2.19", "args": "--require-module-check", "python": sys.executable},
                     workspace, runner_temp)
    install = dict(run.steps)[INSTALL]
    assert install.returncode == 0, run.output
    assert install.stdout.strip().endswith(f"playbook-ls {__import__('playbook_ls').__version__}")
    assert (runner_temp / "playbook-ls" / "bin" / "ansible-galaxy").is_file()
    name, done = run.steps[-1]
    assert name == "Check" and done.returncode == 1, run.output
    assert done.stdout.count("::warning file=roles/sample/tasks/main.yml,") == 2, run.output

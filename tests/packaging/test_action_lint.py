"""action.yml and the workflows the docs show, linted: actionlint on each documented workflow with
the action as ``uses: ./`` (actionlint checks an action's metadata and the inputs a workflow gives
it only from a workflow that uses it), and shellcheck on each script of the action (which
actionlint does not reach inside an action). Both come with the test extra where they have builds;
elsewhere these tests skip."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/check.md", "docs/adoption.md")
BLOCK = re.compile(r"^```yaml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
OURS = re.compile(r"playbook-ls/playbook-ls@[\w.\-]+")


def _tool(name: str) -> str:
    found = shutil.which(name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    if found is None:
        pytest.skip(f"{name} is not installed (the test extra brings it where it has a build)")
    return found


def _documented_workflows() -> list[tuple[str, str]]:
    """(where, text) of each workflow in the docs that uses the action, the commented-out variants
    uncommented into steps of their own."""
    found = []
    for doc in DOCS:
        for number, match in enumerate(BLOCK.finditer((ROOT / doc).read_text())):
            text = match.group(1)
            if "jobs:" in text and OURS.search(text):
                found.append((f"{doc}#{number}", text))
    return found


def _uncomment_steps(text: str) -> str:
    """``# - uses: ...`` lines and the commented lines under them, as steps."""
    return re.sub(r"^(\s*)# (-|  )", r"\1\2", text, flags=re.MULTILINE)


def test_the_docs_show_workflows_using_the_action() -> None:
    assert len(_documented_workflows()) >= 2


@pytest.mark.parametrize(("where", "text"), _documented_workflows())
def test_actionlint_finds_nothing_in_a_documented_workflow(where: str, text: str, tmp_path: Path) -> None:
    actionlint = _tool("actionlint")
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    workflow = OURS.sub("./", _uncomment_steps(text))
    assert yaml.safe_load(workflow)["jobs"], where
    (workflows / "check.yml").write_text(workflow)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    done = subprocess.run([actionlint, "-no-color", "-shellcheck=", "-pyflakes="], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and not done.stdout.strip(), f"{where}:\n{done.stdout}{done.stderr}"


def test_actionlint_reports_an_input_the_action_does_not_have(tmp_path: Path) -> None:
    """The check above can fail: a misspelt input is reported."""
    actionlint = _tool("actionlint")
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "check.yml").write_text(
        "on: push\njobs:\n  check:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./\n"
        "        with:\n          requirement: requirements.yml\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    done = subprocess.run([actionlint, "-no-color"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and 'input "requirement" is not defined' in done.stdout, done.stdout


@pytest.mark.parametrize("step", [s["name"] for s in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
                                  if "run" in s])
def test_shellcheck_finds_nothing_in_a_script_of_the_action(step: str, tmp_path: Path) -> None:
    shellcheck = _tool("shellcheck")
    [script] = [s["run"] for s in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
                if s.get("name") == step]
    (tmp_path / "step.sh").write_text(script)
    done = subprocess.run([shellcheck, "--shell=bash", "--severity=style", str(tmp_path / "step.sh")],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{step}:\n{done.stdout}"

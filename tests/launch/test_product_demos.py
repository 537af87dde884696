"""ansible/product-demos' Linux job templates (tests/launch/fixtures/product_demos), read as the
configuration-as-code run applies them and launched under AWX's prompt rules: a template that
checks by default runs on demand, and a required survey answer must be given."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from playbook_ls.cli.main import main
from playbook_ls.config import load_settings

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "product_demos"
SETTINGS = """\
job_templates:
  files: [linux/setup.yml]
  projects:
    Ansible Product Demos: .
  inventories:
    Ansible Product Demos Inventory: inventory.ini
"""


def _written_templates() -> list[dict]:
    return YAML().load(  # round trip: keeps the `!unsafe` tags the file uses
        (FIXTURE / "linux" / "setup.yml").read_text())["controller_templates"]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURE / "linux", tmp_path / "linux")
    for template in _written_templates():  # the playbooks the templates name: one play each
        book = tmp_path / template["playbook"]
        if not book.exists():
            book.parent.mkdir(parents=True, exist_ok=True)
            book.write_text("- hosts: \"{{ _hosts | default('all') }}\"\n  gather_facts: false\n  tasks:\n"
                            "    - name: work\n      ping:\n")
    (tmp_path / "inventory.ini").write_text("[web]\nweb1 ansible_connection=local\n[db]\ndb1\n")
    (tmp_path / ".playbook-ls.yml").write_text(SETTINGS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def launch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["launch", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_written_template_is_a_profile(repo: Path) -> None:
    settings = load_settings(None, ".")
    assert [profile.name for profile in settings.profiles] == [t["name"] for t in _written_templates()]
    assert not settings.refused_templates


def test_patching_checks_by_default_and_runs_on_demand(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = launch(capsys, "LINUX | Patching")
    assert code != 0 and "_hosts" in out + err  # the survey's required answer is missing
    code, out, err = launch(capsys, "LINUX | Patching", "-e", "_hosts=web")
    assert (code, err) == (0, ""), err
    shown = json.loads(out)
    assert shown["fields"]["job_type"] == "check" and shown["option_vars"]["ansible_check_mode"] is True
    assert shown["plan"]["plays"][0]["hosts"] == ["web1"]
    code, out, err = launch(capsys, "LINUX | Patching", "-e", "_hosts=web", "--job-type", "run")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["fields"]["job_type"] == "run"
    assert json.loads(out)["option_vars"]["ansible_check_mode"] is False


def test_a_template_that_does_not_ask_refuses_a_job_type(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = next(t for t in _written_templates() if t["job_type"] == "run" and not t.get("ask_job_type_on_launch"))
    answers = {q["variable"]: "web" for q in runs.get("survey", {}).get("spec", []) if q.get("required")}
    code, out, err = launch(capsys, runs["name"], "-e", json.dumps(answers), "--job-type", "check")
    assert code != 0 and "job_type" in out + err

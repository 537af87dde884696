"""Job templates from an ``awx export`` file and a configuration-as-code variables file
(``controller_templates``), read as launch profiles by name through ``job_templates`` in the
settings: the project's playbook and the inventory's name mapped to the workspace."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from playbook_ls.cli.main import main
from playbook_ls.config import ConfigError, load_settings

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "awx"
SITE = """\
- name: Web
  hosts: web
  tasks:
    - name: deploy app
      debug: msg=deploy
      tags: deploy
    - name: ping
      ping:
      tags: ping
"""
DB = """\
- name: Database
  hosts: db
  tasks:
    - name: patch
      debug: msg=patch
      tags: patch
"""
SETTINGS = """\
job_templates:
  files: [awx/export.json, awx/job_templates.yml]
  projects:
    Web app: .
    Database: database
  inventories:
    Demo Inventory: hosts.ini
    Production: hosts.ini
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "site.yml").write_text(SITE)
    (tmp_path / "database").mkdir()
    (tmp_path / "database" / "db.yml").write_text(DB)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\nweb2\n[db]\ndb1\n")
    shutil.copytree(FIXTURES, tmp_path / "awx")
    (tmp_path / ".playbook-ls.yml").write_text(SETTINGS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def launch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | str, str]:
    code = main(["launch", *argv, "--show", "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else ""), err


def test_every_job_template_of_both_files_is_a_profile(repo: Path) -> None:
    names = [profile.name for profile in load_settings(None, ".").profiles]
    assert names == ["Deploy web", "Patch database", "Ping everything"]


def test_an_exported_template_launches_as_awx_would(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, shown, err = launch(capsys, "Deploy web", "-l", "web1", "-t", "other", "-e", '{"replicas": 3}')
    assert (code, err) == (0, "")
    fields = shown["fields"]
    assert (fields["playbook"], fields["inventory"], fields["job_type"]) == ("site.yml", "hosts.ini", "run")
    assert (fields["job_tags"], fields["limit"], fields["forks"]) == ("deploy", "web1", 5)  # forks 0: the default
    # extra_vars from the export's YAML text, then the survey: its required question answered, the
    # password's empty default applied as it is
    assert fields["extra_vars"] == {"env": "prod", "replicas": 3, "token": ""}
    assert shown["ignored_fields"] == {"job_tags": "other"}  # ask_tags_on_launch is off
    assert shown["plan"]["plays"][0]["hosts"] == ["web1"]
    assert [task["name"] for task in shown["plan"]["plays"][0]["tasks"]] == ["deploy app"]


def test_a_survey_answer_is_validated_as_awx_does(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, shown, err = launch(capsys, "Deploy web", "-e", '{"replicas": 9}')
    [problem] = shown["errors"]
    assert code == 2 and "replicas" in problem["message"] and "5" in problem["message"]
    assert problem["span"]["file"] == "awx/export.json" and problem["span"]["line"] == 58  # the question's line
    code, shown, err = launch(capsys, "Deploy web")
    assert code == 2 and shown["errors"][0]["message"] == "'replicas' value missing"  # required despite its default


def test_a_configuration_as_code_template_maps_its_project_and_inventory(repo: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, shown, err = launch(capsys, "Patch database", "-e", "window=night")
    assert (code, err) == (0, ""), err
    fields = shown["fields"]
    assert fields["playbook"] == "database/db.yml" and fields["job_type"] == "check"
    assert (fields["job_tags"], fields["skip_tags"], fields["limit"]) == ("patch", "never", "db")
    assert fields["extra_vars"] == {"reboot": False, "window": "night"}
    assert shown["option_vars"]["ansible_check_mode"] is True
    assert shown["plan"]["plays"][0]["hosts"] == ["db1"]


def test_a_required_survey_question_must_be_answered(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, shown, err = launch(capsys, "Patch database")
    assert code == 2 and shown["errors"][0]["message"] == "'window' value missing"


def test_a_disabled_survey_is_not_asked_and_short_names_are_read(repo: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, shown, err = launch(capsys, "Ping everything", "-t", "ping")
    assert (code, err) == (0, ""), err
    assert "ignored" not in shown["fields"]["extra_vars"]
    assert shown["prompted"] == {"job_tags": "ping"}


def test_job_template_tasks_of_a_playbook_are_read_too(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = repo / ".playbook-ls.yml"
    settings.write_text(settings.read_text().replace("files: [", "files: [awx/job_template_tasks.yml, "))
    names = [profile.name for profile in load_settings(None, ".").profiles]
    assert names[:2] == ["Deploy from a task", "Patch from a task"] and "Retired" not in names  # state: absent
    code, shown, err = launch(capsys, "Deploy from a task", "-l", "web2")
    assert (code, err) == (0, ""), err
    assert shown["fields"]["extra_vars"] == {"env": "staging", "replicas": 1}
    assert shown["plan"]["plays"][0]["hosts"] == ["web2"]
    code, shown, err = launch(capsys, "Patch from a task", "-t", "patch")
    assert (code, err) == (0, ""), err
    assert shown["fields"]["playbook"] == "database/db.yml" and shown["prompted"] == {"job_tags": "patch"}


def test_check_reads_the_templates_as_profiles(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--select", "PLS106", "--format", "json", "--no-cache", "."])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("PLS106", "awx/job_templates.yml", 37)]
    assert "'Ping everything': job_tags names 'no-such-tag'" in findings[0]["message"]


@pytest.mark.parametrize(("change", "message"), [
    (("Production: hosts.ini", "Staging: hosts.ini"),
     "job template 'Patch database': inventory 'Production' is a name on the server; map it to a local inventory "
     "under job_templates.inventories in the settings (mapped: Demo Inventory, Staging)"),
    (("job_type: check", "job_type: scan"), "job template 'Patch database': job_type must be 'run' or 'check'"),
    (("files:", "file:"),
     "'job_templates': unknown key 'file'; its keys are: files, projects, inventories, environment, variables"),
])
def test_what_cannot_be_read_is_an_error_naming_its_place(repo: Path, change: tuple[str, str], message: str) -> None:
    for path in (repo / ".playbook-ls.yml", repo / "awx" / "job_templates.yml"):
        path.write_text(path.read_text().replace(*change))
    with pytest.raises(ConfigError) as raised:
        load_settings(None, ".")
    assert raised.value.message.startswith(message)
    assert raised.value.span is not None


def test_a_file_without_job_templates_is_an_error(repo: Path) -> None:
    (repo / "awx" / "export.json").write_text('{"projects": []}')
    with pytest.raises(ConfigError, match="export.json holds no job templates: expected a list under "
                                          r"job_templates, controller_templates, controller_templates_all \(and "
                                          r"controller_templates_ENV\), or awx.awx.job_template tasks"):
        load_settings(None, ".")
    (repo / "awx" / "export.json").write_text('[{"hosts": "all", "tasks": [{"ping": null}]}]')
    with pytest.raises(ConfigError, match="export.json holds no awx.awx.job_template task"):
        load_settings(None, ".")


# configuration-as-code files of two public repositories, as they are (their origin in each file):
# every job template they define, the inventories and projects they name, and what a launch needs
PUBLIC = {
    "aap_configuration_templates.yml": (["test-template-1", "Demo Job Template"], ["RHVM-01", "localhost"],
                                        ["Test Project"], {"Demo Job Template": ["-e", "target_hosts=web1"]}),
    "workshops_job_templates.yml": (["controller_config", "ah_config", "build_execution_environments"],
                                    ["config_as_code"], ["config_as_code"], {}),
}


@pytest.mark.parametrize("file", sorted(PUBLIC))
def test_every_job_template_of_a_public_repository_launches(file: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    names, inventories, projects, answers = PUBLIC[file]
    shutil.copy(FIXTURES / file, tmp_path / file)
    (tmp_path / "hosts.ini").write_text("web1\n")
    (tmp_path / ".playbook-ls.yml").write_text(
        f"job_templates:\n  files: [{file}]\n"
        + "  projects:\n" + "".join(f"    {p}: project\n" for p in projects)
        + "  inventories:\n" + "".join(f"    {i}: hosts.ini\n" for i in inventories))
    monkeypatch.chdir(tmp_path)
    profiles = load_settings(None, ".").profiles
    assert [profile.name for profile in profiles] == names
    for profile in profiles:
        playbook = tmp_path / profile.playbook_path()
        playbook.parent.mkdir(parents=True, exist_ok=True)
        playbook.write_text(f"- hosts: all\n  gather_facts: false\n  tasks:\n    - name: {playbook.stem}\n"
                            "      ping:\n")
    for profile in profiles:
        code, shown, err = launch(capsys, profile.name, *answers.get(profile.name, []))
        assert (code, err) == (0, ""), (profile.name, shown)
        assert shown["fields"]["inventory"] == "hosts.ini" and shown["fields"]["playbook"].startswith("project/")
        stem = Path(profile.playbook_path()).stem
        assert [task["name"] for task in shown["plan"]["plays"][0]["tasks"]] == [stem]
        assert shown["plan"]["plays"][0]["hosts"] == ["web1"]


MANY = 20_000  # job templates in a large AWX export


def test_reading_many_job_templates_is_linear(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each template read is checked against the names already taken in one look-up, not by going
    through every profile read before it (20,000 templates took minutes so)."""
    import time

    from engine.launch import job_templates
    from engine.launch.job_templates import TemplateItem
    from engine.span import Span

    def read(_data: object, file: str, *_settings: object) -> list[TemplateItem]:
        return [TemplateItem({"name": f"{Path(file).name} {index}"}, Span(file, 0, 0, 0, 0), "code")
                for index in range(MANY)]

    monkeypatch.setattr(job_templates, "template_items", read)
    start = time.process_time()
    names = [profile.name for profile in load_settings(None, ".").profiles]
    assert len(names) == 2 * MANY and names[-1] == f"job_templates.yml {MANY - 1}"
    assert time.process_time() - start < 2


def test_a_job_template_named_twice_is_still_refused(repo: Path) -> None:
    export = json.loads((repo / "awx" / "export.json").read_text())
    export["job_templates"].append(export["job_templates"][0])
    (repo / "awx" / "export.json").write_text(json.dumps(export))
    with pytest.raises(ConfigError, match="job template 'Deploy web' is also a profile of that name"):
        load_settings(None, ".")

"""Configuration-as-code job templates as the collections' runs make them: the multi-environment
layout of redhat-cop/aap_configuration_template (``controller_templates_all`` and
``controller_templates_<env>``, merged for the environment the settings choose), values templated
with the variables the run has (a template whose value cannot be is refused alone), and
``!unsafe`` values passed on as the text AWX gets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from playbook_ls.cli.main import main
from playbook_ls.config import ConfigError, load_settings

LAYOUT = Path(__file__).resolve().parent / "fixtures" / "aap_configuration_template"
NAMES = ["aap_config", "build_execution_environments", "build_custom_collections", "console_token_refresh",
         "collection_sync"]
TEMPLATED = {"aap_config", "build_custom_collections", "console_token_refresh", "collection_sync"}  # limit: "{{ env }}"


def _settings(extra: str = "") -> str:
    return ("job_templates:\n  files:\n    - config/all/controller_job_templates.yml\n"
            "    - config/dev/controller_job_templates.yml\n    - config/prod/controller_job_templates.yml\n"
            "  projects:\n    config_as_code: .\n  inventories:\n    config_as_code: inventory.ini\n" + extra)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(LAYOUT / "config", tmp_path / "config")
    (tmp_path / "inventory.ini").write_text("[dev]\nlocalhost ansible_connection=local\n[prod]\naap.example.com\n")
    (tmp_path / "playbooks").mkdir()
    for book in ("aap_config", "build_ee", "custom_collection", "console_token_refresh", "sync_collections"):
        (tmp_path / "playbooks" / f"{book}.yml").write_text(
            f"- hosts: all\n  gather_facts: false\n  tasks:\n    - name: {book}\n      ping:\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def launch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | str, str]:
    code = main(["launch", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else ""), err


def test_the_environment_and_the_runs_variables_make_every_template_launchable(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".playbook-ls.yml").write_text(_settings("  environment: dev\n  variables:\n    env: dev\n"))
    settings = load_settings(None, ".")
    assert [profile.name for profile in settings.profiles] == NAMES and not settings.refused_templates
    for name in NAMES:
        code, shown, err = launch(capsys, name)
        assert (code, err) == (0, ""), (name, err)
        assert shown["fields"]["limit"] == ("dev" if name in TEMPLATED else "")
        assert shown["plan"]["plays"][0]["hosts"] == (
            ["localhost"] if name in TEMPLATED else ["localhost", "aap.example.com"])
    code, shown, _ = launch(capsys, "aap_config", "-e", '{"x": 1}')
    assert code == 0 and shown["fields"]["extra_vars"] == {
        "controller_configuration_credentials_secure_logging": True, "x": 1}  # ask_variables_on_launch


def test_a_templated_value_refuses_its_template_alone_and_says_what_to_give(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".playbook-ls.yml").write_text(_settings())
    settings = load_settings(None, ".")
    assert [profile.name for profile in settings.profiles] == ["build_execution_environments"]
    assert set(settings.refused_templates) == TEMPLATED
    code, _, err = launch(capsys, "aap_config")
    assert code == 2
    assert err == ("playbook-ls: error: config/all/controller_job_templates.yml:13:5: job template 'aap_config': "
                   "limit is templated ('{{ env }}'); give the variables the configuration-as-code run templates "
                   "it with under job_templates.variables in the settings, or write the value\n")
    (repo / ".playbook-ls.yml").write_text(_settings("  variables:\n    other: 1\n"))
    code, _, err = launch(capsys, "collection_sync")
    assert code == 2 and "limit ('{{ env }}') cannot be templated with job_templates.variables: " in err
    assert "'env' is undefined" in err


def test_an_environments_template_updates_the_common_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "config" / "dev" / "controller_job_templates.yml").write_text(
        "controller_templates_dev:\n  - name: aap_config\n    verbosity: 2\n    limit: localhost\n"
        "  - name: dev only\n    playbook: playbooks/aap_config.yml\n    inventory: config_as_code\n")
    (repo / "config" / "prod" / "controller_job_templates.yml").write_text(
        "controller_templates_prod:\n  - name: prod only\n    playbook: playbooks/aap_config.yml\n")
    (repo / ".playbook-ls.yml").write_text(_settings("  environment: dev\n"))
    settings = load_settings(None, ".")
    assert "dev only" in [p.name for p in settings.profiles] and "prod only" not in [p.name for p in settings.profiles]
    assert "aap_config" not in settings.refused_templates  # its templated limit is the environment's now
    code, shown, err = launch(capsys, "aap_config")
    assert (code, err) == (0, "")
    assert (shown["fields"]["verbosity"], shown["fields"]["limit"], shown["fields"]["playbook"]) == (
        2, "localhost", "playbooks/aap_config.yml")


def test_templates_in_extra_vars_are_refused_and_unsafe_values_pass_as_awx_gets_them(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "templates.yml").write_text(
        "controller_templates:\n"
        "  - name: templated\n    playbook: playbooks/aap_config.yml\n    extra_vars:\n      target: '{{ env }}'\n"
        "  - name: literal\n    playbook: playbooks/aap_config.yml\n    extra_vars:\n"
        "      target: !unsafe '{{ inventory_hostname }}'\n      nested: !unsafe {a: '{{ b }}'}\n")
    (repo / ".playbook-ls.yml").write_text("job_templates:\n  files: [templates.yml]\n")
    settings = load_settings(None, ".")
    assert [p.name for p in settings.profiles] == ["literal"]
    assert "extra_vars is templated ('{{ env }}')" in settings.refused_templates["templated"].message
    code, shown, err = launch(capsys, "literal")
    assert (code, err) == (0, "")
    assert shown["fields"]["extra_vars"] == {"target": "{{ inventory_hostname }}", "nested": {"a": "{{ b }}"}}
    (repo / ".playbook-ls.yml").write_text("job_templates:\n  files: [templates.yml]\n  variables: {env: qa}\n")
    code, shown, _ = launch(capsys, "templated")
    assert code == 0 and shown["fields"]["extra_vars"] == {"target": "qa"}


WORKSHOPS = Path(__file__).resolve().parent / "fixtures" / "workshops"
WORKSHOP_PLAYBOOKS = ("demo/linux/deploy_application.yml", "satellite/setup_satellite.yml",
                      "satellite/setup_controller.yml", "workshop_project/playbooks/controller_config.yml",
                      "workshop_project/playbooks/hub_config.yml", "workshop_project/playbooks/build_ee.yml")


@pytest.fixture
def workshops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ansible/workshops' three ways of keeping templates: a group_vars file, a role's vars file and
    a play's vars (see fixtures/workshops/NOTICE), the projects' playbooks stood in for."""
    for entry in ("workshop_project", "populate_controller", "provisioner"):
        shutil.copytree(WORKSHOPS / entry, tmp_path / entry)
    for book in WORKSHOP_PLAYBOOKS:
        (tmp_path / book).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / book).write_text("- hosts: all\n  gather_facts: false\n  tasks:\n    - ping:\n")
    (tmp_path / "inventory.ini").write_text("[web]\nnode1 ansible_connection=local\n")
    (tmp_path / ".playbook-ls.yml").write_text(
        "job_templates:\n  files:\n    - workshop_project/group_vars/all/job_templates.yml\n"
        "    - populate_controller/vars/rhel.yml\n    - provisioner/auto_satellite.yml\n"
        "  projects:\n    config_as_code: workshop_project\n    Ansible official demo project: demo\n"
        "    Automated Management: satellite\n"
        "  inventories:\n    config_as_code: inventory.ini\n    Workshop Inventory: inventory.ini\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_workshops_templates_load_from_vars_files_and_a_plays_vars(
        workshops: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = load_settings(None, ".")
    assert [profile.name for profile in settings.profiles] == [
        "controller_config", "ah_config", "build_execution_environments", "INFRASTRUCTURE / Deploy Application",
        "Z / CaC / Satellite", "Z / CaC / Controller"] and not settings.refused_templates
    for name in ("controller_config", "ah_config", "build_execution_environments", "Z / CaC / Controller"):
        code, shown, err = launch(capsys, name)
        assert (code, err) == (0, ""), (name, err)
    # the survey AWX's interface wrote: a required question must be answered, from its choices
    code, shown, err = launch(capsys, "INFRASTRUCTURE / Deploy Application")
    assert code == 2 and "'application' value missing" in json.dumps(shown) + err
    code, shown, err = launch(capsys, "INFRASTRUCTURE / Deploy Application", "-e", "application=vim")
    assert code == 2 and ("Value vim for 'application' expected to be one of ['httpd', 'nginx', 'htop', 'gdb']."
                          in json.dumps(shown) + err)
    code, shown, _ = launch(capsys, "INFRASTRUCTURE / Deploy Application", "-e", "application=nginx")
    assert code == 0 and shown["fields"]["extra_vars"] == {"application": "nginx"}
    # ask_variables_on_launch: any variable is taken, over the template's own
    code, shown, _ = launch(capsys, "Z / CaC / Satellite", "-e", '{"refresh_satellite_manifest": true, "x": 1}')
    assert code == 0 and shown["fields"]["extra_vars"] == {"refresh_satellite_manifest": True, "x": 1}


def test_a_playbook_without_templates_in_tasks_or_plays_vars_says_so(tmp_path: Path) -> None:
    from engine.launch.job_templates import template_items
    from engine.launch.profiles import ProfileError
    from engine.parsing.source import parse_text

    data = parse_text("- hosts: all\n  vars:\n    controller_projects: []\n  tasks: []\n", "site.yml").data
    with pytest.raises(ProfileError, match="holds no awx.awx.job_template task and no play whose vars list"):
        template_items(data, "site.yml")


def test_a_template_the_configuration_deletes_is_not_one(tmp_path: Path) -> None:
    from engine.launch.job_templates import template_items
    from engine.parsing.source import parse_text

    data = parse_text("controller_templates:\n  - {name: old, state: absent}\n  - {name: kept, state: present}\n",
                      "t.yml").data
    assert [item.item["name"] for item in template_items(data, "t.yml")] == ["kept"]


def test_a_survey_read_with_lookup_template_is_the_roles_json_file(workshops: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """workshops' network templates: ``survey: "{{ lookup('template', 'survey_spec.json') }}"`` in a role's
    vars file reads the role's templates/ file, as the collection's run does; a file that templates
    a variable of that run (system.json's ``{{inventory_hostname}}``) refuses that template alone."""
    (workshops / ".playbook-ls.yml").write_text(
        "job_templates:\n  files: [populate_controller/vars/network.yml]\n"
        "  projects:\n    Workshop Project: workshop_project\n  inventories:\n    Workshop Inventory: inventory.ini\n")
    for book in ("network_commands", "network_reload", "network_user", "network_time", "network_report"):
        (workshops / "workshop_project" / "playbooks" / f"{book}.yml").write_text(
            "- hosts: all\n  gather_facts: false\n  tasks:\n    - ping:\n")
    settings = load_settings(None, ".")
    assert [profile.name for profile in settings.profiles] == [
        "Network-Commands", "Network-Reload", "Network-User", "Network-Time", "Network-Report"]
    assert "'inventory_hostname' is undefined" in str(settings.refused_templates["Network-System"])
    commands = settings.profiles[0]
    assert [question["variable"] for question in commands.survey] == ["controller_input"]
    code, shown, err = launch(capsys, "Network-Commands", "-e", "controller_input=reboot")
    assert code == 2 and "expected to be one of" in json.dumps(shown) + err
    code, shown, _ = launch(capsys, "Network-Commands", "-e", "controller_input='show version'")
    assert code == 0 and shown["fields"]["extra_vars"] == {"controller_input": "show version"}
    code, _, err = launch(capsys, "Network-System")
    assert code == 2 and "system.json" in err


def test_a_lookup_reads_only_files_under_its_search_path(tmp_path: Path) -> None:
    from engine.launch.cac_lookups import file_lookups

    (tmp_path / "vars").mkdir()
    holder = str(tmp_path / "vars" / "main.yml")
    lookup = file_lookups(holder, {})["lookup"]
    for term in ("../../etc/passwd", "/etc/passwd"):
        with pytest.raises(ValueError, match="only a name relative"):
            lookup("template", term)
    with pytest.raises(ValueError, match="is not one a configuration-as-code value is read with"):
        lookup("pipe", "id")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "motd").write_text("hello\n\n")
    assert lookup("file", "motd") == "hello"


FILETREE = Path(__file__).resolve().parent / "fixtures" / "controller_configuration_filetree"


def test_the_filetree_layout_reads_a_directory_and_names_templates_as_the_run_templates_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(FILETREE / "orgs_vars", tmp_path / "orgs_vars")
    for book in ("config-controller", "desired-state", "helloworld"):
        (tmp_path / f"{book}.yml").write_text("- hosts: all\n  gather_facts: false\n  tasks:\n    - ping:\n")
    (tmp_path / "local.ini").write_text("localhost ansible_connection=local\n")
    monkeypatch.chdir(tmp_path)
    settings = ("job_templates:\n  files:\n    - orgs_vars/ExampleOrg/env/common\n"
                "  projects:\n    ExampleOrg CasC_Data: .\n    ExampleOrg Container_Group: .\n"
                "  inventories:\n    ExampleOrg Localhost: local.ini\n")
    (tmp_path / ".playbook-ls.yml").write_text(settings)
    names = ["CasC_JobTemplates_AAP_CI_Webhook", "CasC_JobTemplates_AAP_CI_Config_Controller",
             "CasC_JobTemplates_AAP_Desired_State", "JT_Container_Group",
             "JT_Container_Group TEST DEMO First Push", "JT_Container_Group TEST DEMO - Second Push"]
    refused = load_settings(None, ".").refused_templates
    assert sorted(refused) == sorted(f"{{{{ orgs }}}} {name}" for name in names)  # no orgs: refused by name
    (tmp_path / ".playbook-ls.yml").write_text(settings + "  variables:\n    orgs: ExampleOrg\n    env: dev\n")
    loaded = load_settings(None, ".")
    assert [profile.name for profile in loaded.profiles] == [f"ExampleOrg {name}" for name in names]
    assert not loaded.refused_templates  # the projects directory's files list no templates: skipped
    code, shown, err = launch(capsys, "ExampleOrg CasC_JobTemplates_AAP_Desired_State", "-t", "deploy")
    assert (code, err) == (0, "")
    assert shown["fields"]["playbook"] == "desired-state.yml" and shown["fields"]["job_tags"] == "deploy"
    (tmp_path / ".playbook-ls.yml").write_text(settings.replace("orgs_vars/ExampleOrg/env/common",
                                                                "orgs_vars/ExampleOrg/env/common/controller_projects.d/"
                                                                "controller_projects.yml"))
    with pytest.raises(ConfigError, match="holds no job templates"):  # a file listed itself must hold some
        load_settings(None, ".")

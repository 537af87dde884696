"""What the task executor adds to a task's variables: ``ansible_user`` and ``ansible_ssh_user`` as the
play context gives them (engine.variables.play_context ``connection_layer``), ``ansible_search_path``;
read by ``vars`` in the engine's recorded scenarios, whose ansible output is the truth checked here
(tests/run/scenarios_in_process/remote_user_*, search_path_variable)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).resolve().parent.parent / "run" / "scenarios_in_process"


def _copy(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / name
    shutil.copytree(SCENARIOS / name, root)
    case = json.loads((root / "case.json").read_text())
    case["inventory"] = [case["inventory"]]
    (root / "case.json").write_text(json.dumps(case))
    monkeypatch.chdir(root)  # its ansible.cfg, where it has one
    return root


def _users(root: Path, where: str, host: str) -> tuple[object, object]:
    from var_values import scenario_plan, values_at

    scenario_plan.cache_clear()
    found = values_at(root, where, host, 0, ["ansible_user", "ansible_ssh_user"])
    return found["ansible_user"], found["ansible_ssh_user"]


@pytest.mark.parametrize(("where", "host", "user", "ssh_user"), [
    ("site.yml:8", "app1", "deploy", "deploy"),  # the play's keyword
    ("site.yml:8", "app2", "carol", "carol"),  # the host's ansible_user
    ("site.yml:8", "app3", "dave", "dave"),  # the host's ansible_ssh_user
    ("site.yml:12", "app1", "root", "root"),  # the task's keyword
    ("site.yml:20", "app1", "ops", "ops"),  # the block's, templated
    ("site.yml:29", "app3", "deploy", "dave"),  # delegated: the play context's user, the host's own ssh user
])
def test_keywords_and_host_variables(where: str, host: str, user: str, ssh_user: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy("remote_user_play_context", tmp_path, monkeypatch)
    assert _users(root, where, host) == (user, ssh_user)


def test_command_line_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy("remote_user_command_line", tmp_path, monkeypatch)
    assert _users(root, "site.yml:5", "web1") == ("bob", "bob")
    assert _users(root, "site.yml:5", "web2") == ("www", "www")
    assert _users(root, "site.yml:18", "web1") == ("admin", "admin")  # the keyword before -u


def test_configured_user_and_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy("remote_user_ansible_cfg", tmp_path, monkeypatch)
    assert _users(root, "site.yml:5", "web1") == ("cfguser", "cfguser")
    (root / "ansible.cfg").unlink()
    assert _users(root, "site.yml:5", "web1") == ("undefined", "undefined")  # nothing gives a user


@pytest.mark.parametrize(("where", "expected"), [
    ("site.yml:5", ["."]),
    ("tasks/paths.yml:1", ["tasks", "."]),
    ("roles/web/tasks/main.yml:1", ["roles/web", "roles/web/tasks", "."]),
    ("roles/web/tasks/more.yml:1", ["roles/web", "roles/web/tasks", "."]),
])
def test_search_path(where: str, expected: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ansible_search_path``, as the task executor sets it (tests/run/scenarios_in_process/search_path_variable
    records ansible's, relative to the playbook's directory)."""
    import os

    from var_values import scenario_plan, values_at

    root = _copy("search_path_variable", tmp_path, monkeypatch)
    scenario_plan.cache_clear()
    found = values_at(root, where, "web1", 0, ["ansible_search_path"])["ansible_search_path"]
    assert [os.path.relpath(path.replace("<ROOT>", str(root)), root) for path in found] == expected


def test_the_editor_reads_the_project_s_configured_user(tmp_path: Path) -> None:
    """The variable hover's user where no keyword gives one: the ansible.cfg of the project the
    file is in, whatever directory the server runs in."""
    from playbook_ls.features import variables
    from playbook_ls.features.workspace import WorkspaceIndex

    (tmp_path / "hosts.ini").write_text("web1\n")
    (tmp_path / "ansible.cfg").write_text("[defaults]\ninventory = hosts.ini\nremote_user = deployer\n")
    text = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: "{{ ansible_user }}"\n'
    (tmp_path / "site.yml").write_text(text)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    line = 4
    column = text.splitlines()[line].index("ansible_user")
    hover = variables.hover_markdown(index, str(tmp_path / "site.yml"), line, column)
    assert hover is not None and '`"deployer"`' in hover

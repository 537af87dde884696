"""In a repository of several projects, each file is resolved with its project's ansible.cfg,
as ansible run from that project's directory would (the editor's index and the config lookup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import ProjectConfigs
from playbook_ls.features.workspace import WorkspaceIndex

FILES = {
    "web/ansible.cfg": "[defaults]\nroles_path = ./vendor\n[tags]\nskip = slow\n",
    "web/site.yml": "- hosts: all\n  roles:\n    - common\n",
    "web/vendor/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: web\n  tags: slow\n",
    "db/ansible.cfg": "[defaults]\nroles_path = ./galaxy\n",
    "db/playbooks/site.yml": "- hosts: all\n  roles:\n    - common\n",
    "db/galaxy/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: db\n",
    "top.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: top\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANSIBLE_CONFIG", raising=False)
    monkeypatch.delenv("ANSIBLE_ROLES_PATH", raising=False)
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_nearest_ansible_cfg_up_to_the_root_decides(repo: Path) -> None:
    configs = ProjectConfigs(str(repo))
    assert configs.project_dir(str(repo / "db/playbooks/site.yml")) == str(repo / "db")
    assert configs.for_path(str(repo / "db/playbooks/site.yml")).roles_path[0] == str(repo / "db/galaxy")
    assert configs.for_path(str(repo / "web/site.yml")).skip_tags == ["slow"]
    assert configs.project_dir(str(repo / "top.yml")) == str(repo)
    assert configs.for_path(str(repo / "top.yml")) is configs.default
    assert configs.for_path("/elsewhere/site.yml") is configs.default
    assert configs.candidates(str(repo / "db/playbooks/site.yml")) == [
        str(repo / "db/playbooks/ansible.cfg"), str(repo / "db/ansible.cfg"), str(repo / "ansible.cfg")]


def test_ansible_config_wins_for_every_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_CONFIG", str(repo / "db/ansible.cfg"))
    configs = ProjectConfigs(str(repo))
    assert configs.for_path(str(repo / "web/site.yml")) is configs.default
    assert configs.default.path == str(repo / "db/ansible.cfg")
    assert configs.candidates(str(repo / "web/site.yml")) == []


def test_the_editor_reaches_each_projects_roles(repo: Path) -> None:
    index = WorkspaceIndex(str(repo))
    index.index()
    for role_file, playbook in (("web/vendor/common/tasks/main.yml", "web/site.yml"),
                                ("db/galaxy/common/tasks/main.yml", "db/playbooks/site.yml")):
        reaches = index.reaches(str(repo / role_file))
        assert {Path(reach.book.path).relative_to(repo).as_posix() for reach in reaches} == {playbook}

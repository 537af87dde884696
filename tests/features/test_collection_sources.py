"""A repository that is a collection's source (a ``galaxy.yml`` at its top, as debops or kubespray):
the editor and ``check`` resolve ``collections: [ns.name]`` and ``ns.name.role`` to the roles being
edited, while the command line, like ansible-playbook, only knows installed collections."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.parsing.source import parse_text
from engine.plugins.collection_search import CollectionFinder, collection_sources
from playbook_ls.check.runner import run_check
from playbook_ls.cli.main import main
from playbook_ls.config import load_settings
from playbook_ls.features.workspace import WorkspaceIndex

FILES = {
    "galaxy.yml": "namespace: acme\nname: infra\nversion: 1.0.0\n",
    "roles/web/tasks/main.yml": "- name: web task\n  ansible.builtin.debug:\n    msg: web\n  tags: [web]\n",
    "playbooks/site.yml": ("- hosts: localhost\n  collections: [acme.infra]\n  roles:\n    - web\n"
                           "- hosts: localhost\n  roles:\n    - acme.infra.web\n"),
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_COLLECTIONS_PATH"):
        monkeypatch.delenv(name, raising=False)
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_galaxy_yml_names_the_collection_of_its_directory(tmp_path: Path) -> None:
    for name, text in {"a/galaxy.yml": "namespace: acme\nname: infra\n",
                       "a/sub/galaxy.yml": "namespace: acme\nname: infra\n",  # the outermost wins
                       "b/galaxy.yml": "namespace: acme\nname: bad-name\n",  # not a collection name
                       "c/galaxy.yml": "- not a mapping\n",
                       "d/ansible_collections/x/y/galaxy.yml": "namespace: x\nname: y\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = collection_sources([str(p) for p in tmp_path.rglob("galaxy.yml")],
                               lambda path: parse_text(Path(path).read_text(), path).data)
    assert found == {"acme.infra": str(tmp_path / "a")}
    finder = CollectionFinder([], found)
    assert finder.collection_dir("acme.infra") == str(tmp_path / "a")
    assert finder.collection_of(str(tmp_path / "a/roles/web/tasks/main.yml")) == "acme.infra"
    assert finder.collection_of(str(tmp_path / "ab/roles/web/tasks/main.yml")) is None


def test_check_resolves_the_collection_under_edit(repo: Path) -> None:
    result = run_check(["."], load_settings(None, "."), use_cache=False)
    assert [f.code for f in result.findings] == []


def test_renaming_the_collection_invalidates_the_check_cache(repo: Path) -> None:
    assert not run_check(["."], load_settings(None, "."), use_cache=True).findings
    (repo / "galaxy.yml").write_text("namespace: other\nname: infra\nversion: 1.0.0\n")
    codes = [f.code for f in run_check(["."], load_settings(None, "."), use_cache=True).findings]
    assert codes == [f.code for f in run_check(["."], load_settings(None, "."), use_cache=False).findings] == ["PLS109"]


def test_the_editor_reaches_the_role_from_both_plays(repo: Path) -> None:
    index = WorkspaceIndex(str(repo))
    index.index()
    reaches = index.reaches(str(repo / "roles/web/tasks/main.yml"))
    assert {Path(reach.book.path).relative_to(repo).as_posix() for reach in reaches} == {"playbooks/site.yml"}
    assert len(reaches) == 2


def test_the_command_line_like_ansible_only_knows_installed_collections(repo: Path, capsys) -> None:
    assert main(["list-tasks", "playbooks/site.yml"]) == 1
    assert "the role 'web' was not found in acme.infra:ansible.legacy:" in capsys.readouterr().err


def test_checking_one_playbook_inside_the_collection_finds_its_galaxy_yml(repo: Path) -> None:
    result = run_check(["playbooks/site.yml"], load_settings(None, "playbooks/site.yml"), use_cache=False)
    assert [f.code for f in result.findings] == []


def test_a_short_name_found_in_the_collection_under_edit_keeps_ansibles_name(repo: Path) -> None:
    """ansible, not knowing the collection, finds ``web`` through roles_path and prints
    ``web : ...``; only a fully qualified name is printed with its collection."""
    index = WorkspaceIndex(str(repo))
    index.index()
    reaches = index.reaches(str(repo / "roles/web/tasks/main.yml"))
    names = sorted(reach.task.display_name() for reach in reaches if reach.task is not None)
    assert names == ["acme.infra.web : web task", "web : web task"]

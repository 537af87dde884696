"""A cached result is not taken once what it depends on outside the checked files changed:
installed collections and roles, the ansible found on PATH, ansible.cfg, the ANSIBLE_* variables,
module directories. Each test changes one of them after a first check and expects the second
check, with its cache, to report what a check without the cache reports."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from tests.check.cache_runs import cached_and_fresh, findings

UNKNOWN_MODULE = [("site.yml", 3, "PLS113")]
SITE = "- hosts: localhost\n  tasks:\n    - {module}: {{}}\n"


def install_collection(root: Path, module: str = "thing", name: str = "acme/tools") -> Path:
    """A collection as ansible-galaxy installs it under the collection root ``root``."""
    collection = root / "ansible_collections" / name
    (collection / "plugins" / "modules").mkdir(parents=True)
    (collection / "MANIFEST.json").write_text("{}")
    (collection / "plugins" / "modules" / f"{module}.py").write_text("# a module\n")
    return collection


def test_a_collection_installed_where_ansible_looks_by_default(repo: Path) -> None:
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.thing"))
    assert findings(repo) == UNKNOWN_MODULE
    install_collection(Path(os.environ["HOME"]) / ".ansible" / "collections")
    assert cached_and_fresh(repo) == ([], [])


def test_a_collection_installed_into_ansible_collections_path(repo: Path, tmp_path: Path) -> None:
    env = {"ANSIBLE_COLLECTIONS_PATH": str(tmp_path / "collections")}
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.thing"))
    assert findings(repo, env=env) == UNKNOWN_MODULE
    install_collection(tmp_path / "collections")
    assert cached_and_fresh(repo, env) == ([], [])


def test_a_module_removed_from_an_installed_collection(repo: Path, tmp_path: Path) -> None:
    env = {"ANSIBLE_COLLECTIONS_PATH": str(tmp_path / "collections")}
    collection = install_collection(tmp_path / "collections")
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.thing"))
    assert findings(repo, env=env) == []
    (collection / "plugins" / "modules" / "thing.py").unlink()
    assert cached_and_fresh(repo, env) == (UNKNOWN_MODULE, UNKNOWN_MODULE)


def test_a_module_redirected_by_a_new_routing_table(repo: Path, tmp_path: Path) -> None:
    env = {"ANSIBLE_COLLECTIONS_PATH": str(tmp_path / "collections")}
    collection = install_collection(tmp_path / "collections")
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.old_name"))
    assert findings(repo, env=env) == UNKNOWN_MODULE
    (collection / "meta").mkdir()
    (collection / "meta" / "runtime.yml").write_text(
        "plugin_routing:\n  modules:\n    old_name:\n      redirect: acme.tools.thing\n")
    assert cached_and_fresh(repo, env) == ([], [])


def test_an_ansible_playbook_put_on_path_brings_its_collections(repo: Path, tmp_path: Path) -> None:
    """The ``ansible`` package installs collections in the site-packages of its ansible-playbook."""
    prefix = tmp_path / "ansible-venv"
    (prefix / "bin").mkdir(parents=True)
    script = prefix / "bin" / "ansible-playbook"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    install_collection(prefix / "lib" / version / "site-packages")
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.thing"))
    assert findings(repo) == UNKNOWN_MODULE
    env = {"PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    assert cached_and_fresh(repo, env) == ([], [])


def test_a_module_added_beside_the_playbook(repo: Path) -> None:
    (repo / "site.yml").write_text(SITE.format(module="my_module"))
    assert findings(repo) == UNKNOWN_MODULE
    (repo / "library").mkdir()
    (repo / "library" / "my_module.py").write_text("# a module\n")
    assert cached_and_fresh(repo) == ([], [])


def test_a_module_added_to_a_roles_library(repo: Path) -> None:
    (repo / "site.yml").write_text("- hosts: localhost\n  roles:\n    - web\n")
    (repo / "roles" / "web" / "tasks").mkdir(parents=True)
    (repo / "roles" / "web" / "tasks" / "main.yml").write_text("- my_module: {}\n")
    assert findings(repo) == [("roles/web/tasks/main.yml", 1, "PLS113")]
    (repo / "roles" / "web" / "library").mkdir()
    (repo / "roles" / "web" / "library" / "my_module.py").write_text("# a module\n")
    assert cached_and_fresh(repo) == ([], [])


def test_an_ansible_variable_naming_a_module_directory(repo: Path, tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "my_module.py").write_text("# a module\n")
    (repo / "site.yml").write_text(SITE.format(module="my_module"))
    assert findings(repo) == UNKNOWN_MODULE
    assert cached_and_fresh(repo, {"ANSIBLE_LIBRARY": str(modules)}) == ([], [])


def test_ansible_cfg_paths_follow_the_variables_they_name(repo: Path, tmp_path: Path) -> None:
    (repo / "ansible.cfg").write_text("[defaults]\ncollections_path = $COLLECTIONS_HOME\n")
    install_collection(tmp_path / "b")
    (repo / "site.yml").write_text(SITE.format(module="acme.tools.thing"))
    assert findings(repo, env={"COLLECTIONS_HOME": str(tmp_path / "a")}) == UNKNOWN_MODULE
    assert cached_and_fresh(repo, {"COLLECTIONS_HOME": str(tmp_path / "b")}) == ([], [])


def test_a_module_added_to_a_directory_ansible_cfg_names(repo: Path, tmp_path: Path) -> None:
    (repo / "ansible.cfg").write_text(f"[defaults]\nlibrary = {tmp_path / 'modules'}\n")
    (repo / "site.yml").write_text(SITE.format(module="my_module"))
    assert findings(repo) == UNKNOWN_MODULE
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "my_module.py").write_text("# a module\n")
    assert cached_and_fresh(repo) == ([], [])


def test_a_role_installed_into_an_earlier_roles_path_entry(repo: Path, tmp_path: Path) -> None:
    """``roles_path = first:second``: a role installed into ``first`` hides the one in ``second``."""
    env = {"ANSIBLE_ROLES_PATH": f"{tmp_path / 'first'}{os.pathsep}{tmp_path / 'second'}"}
    (repo / "site.yml").write_text("- hosts: localhost\n  roles:\n    - common\n")
    for where, tags in (("second", "  tags: all\n"), ("first", "")):
        tasks = tmp_path / where / "common" / "tasks"
        tasks.mkdir(parents=True)
        (tasks / "main.yml").write_text(f"- ansible.builtin.debug:\n    msg: {where}\n{tags}")
        if where == "second":
            assert [code for *_place, code in findings(repo, env=env)] == ["PLS114"]
    assert cached_and_fresh(repo, env) == ([], [])

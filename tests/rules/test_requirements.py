"""PLS123: a role or collection a requirements file declares and nobody installed is one finding
per requirement, at its entry, instead of an error at every use (PLS109 / PLS113)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruletest import check, positions

from engine.loading.requirements import parse, role_name
from engine.parsing.source import parse_text

USES = """
- hosts: all
  roles:
    - geerlingguy.java
    - role: geerlingguy.java
      tags: [java]
    - docker
- hosts: all
  tasks:
    - ansible.builtin.include_role:
        name: geerlingguy.java
"""


def test_one_finding_per_requirement_with_the_install_command(repo: Path) -> None:
    found = check(repo, {
        "requirements.yml": ("roles:\n  - name: geerlingguy.java\n"
                             "  - src: https://github.com/acme/ansible-role-docker.git\n    name: docker\n"
                             "  - name: geerlingguy.unused\n"),
        "site.yml": USES,
        "other.yml": "- hosts: all\n  roles: [geerlingguy.java]\n",
    })
    assert [f.code for f in found] == ["PLS123", "PLS123"]
    assert positions(found) == [("requirements.yml", 1, 4), ("requirements.yml", 2, 4)]
    assert found[0].message == ("the role 'geerlingguy.java' is declared in requirements.yml, not installed here. "
                                "Install it with `ansible-galaxy role install -r requirements.yml`.")
    assert found[0].severity == "warning"


def test_the_list_form_in_roles_dir_and_a_playbook_in_a_subdirectory(repo: Path) -> None:
    found = check(repo, {
        "roles/requirements.yml": "- src: geerlingguy.java\n- git+https://example.com/x/nginx-role.git,v1,nginx\n",
        "playbooks/site.yml": "- hosts: all\n  roles: [geerlingguy.java, nginx, missing]\n",
    })
    assert [(f.code, f.span.line if f.span else None) for f in found] == [("PLS109", 1), ("PLS123", 0),
                                                                          ("PLS123", 1)]
    assert "the role 'nginx' is declared in roles/requirements.yml" in found[2].message


def test_a_collection_role_module_and_playbook(repo: Path) -> None:
    found = check(repo, {
        "collections/requirements.yml": "collections:\n  - name: acme.tools\n    version: '>=1.0'\n  - acme.other\n",
        "site.yml": ("- hosts: all\n  roles: [acme.tools.web]\n"
                     "- import_playbook: acme.other.deploy\n"),
    })
    assert [f.code for f in found] == ["PLS123", "PLS123"]
    assert "the collection 'acme.tools' is declared in collections/requirements.yml" in found[0].message
    assert "`ansible-galaxy collection install -r collections/requirements.yml`" in found[0].message


def test_a_module_of_a_declared_collection(repo: Path) -> None:
    pytest.importorskip("ansible")  # module names are only checked with ansible-core installed
    found = check(repo, {
        "requirements.yml": "collections: [acme.tools]\n",
        "site.yml": "- hosts: all\n  tasks:\n    - acme.tools.thing: {}\n    - acme.tools.thing: {}\n"
                    "    - acme.nope.thing: {}\n",
    })
    assert [(f.code, positions([f])[0][0]) for f in found] == [("PLS123", "requirements.yml"),
                                                              ("PLS113", "site.yml")]


def test_installed_requirements_and_task_files_are_not_reported(repo: Path) -> None:
    found = check(repo, {
        "requirements.yml": "- geerlingguy.java\n",
        "roles/geerlingguy.java/tasks/main.yml": "- ansible.builtin.debug: msg=java\n",
        # a task list is not a requirements file, whatever its name
        "check-requirements.yml": "- name: docker\n  ansible.builtin.debug: msg=x\n",
        "site.yml": "- hosts: all\n  roles: [geerlingguy.java, docker]\n",
    })
    assert [f.code for f in found] == ["PLS109"]


def test_a_severity_the_ci_chooses(repo: Path) -> None:
    found = check(repo, {
        "pyproject.toml": '[tool.playbook-ls]\nseverity = { PLS123 = "error" }\n',
        "requirements.yml": "- geerlingguy.java\n",
        "site.yml": "- hosts: all\n  roles: [geerlingguy.java]\n",
    })
    assert [(f.code, f.severity) for f in found] == [("PLS123", "error")]


@pytest.mark.parametrize("entry", [
    "geerlingguy.java", "geerlingguy.java,1.0", "https://github.com/a/b.git,v1,custom",
    "git+https://github.com/a/ansible-role-x.git", "git@github.com:a/role-y.git",
    "https://example.com/files/role-z.tar.gz",
    {"src": "https://github.com/a/repo-name"}, {"src": "git+https://example.com/a/r.git", "version": "v1"},
    {"src": "x.y", "name": "renamed"}, {"role": "old.style"}, {"name": "only.name"},
])
def test_role_names_are_ansible_galaxys(entry: object) -> None:
    requirement = pytest.importorskip("ansible.playbook.role.requirement")
    expected = requirement.RoleRequirement.role_yaml_parse(dict(entry) if isinstance(entry, dict) else entry)
    assert role_name(entry) == expected["name"]


def test_what_is_not_a_requirements_file() -> None:
    for text in ("- hosts: all\n  tasks: []\n", "roles: 3\n", "vars: {}\n", "{}\n"):
        assert parse(parse_text(text, "requirements.yml").data, "requirements.yml") == []


def test_other_requirements_file_names_and_a_git_collection_named_by_its_name(repo: Path) -> None:
    found = check(repo, {
        # openstack-ansible's layout: the collection's name with its git source
        "ansible-collection-requirements.yml": ("collections:\n  - name: acme.osa\n"
                                                "    source: https://example.com/acme/osa\n    type: git\n"
                                                "  - name: https://example.com/acme/unnamed\n    type: git\n"),
        "requirements-core.yml": "collections:\n  - name: acme.core\n",
        "playbooks/site.yml": "- import_playbook: acme.osa.setup\n- hosts: all\n  roles: [acme.core.web]\n",
    })
    assert [(f.code, positions([f])[0][:2]) for f in found] == [
        ("PLS123", ("ansible-collection-requirements.yml", 1)), ("PLS123", ("requirements-core.yml", 1))]


def test_installing_the_role_clears_the_cached_finding(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playbook_ls.check.runner import run_check
    from playbook_ls.config import load_settings

    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(repo.parent / "cache"))
    check(repo, {"requirements.yml": "- geerlingguy.java\n", "site.yml": "- hosts: all\n  roles: [geerlingguy.java]\n"})
    assert [f.code for f in run_check([str(repo)], load_settings(None, str(repo)), use_cache=True).findings] == \
        ["PLS123"]
    # ansible-galaxy installs into the first roles_path entry, outside the checked tree
    installed = Path.home() / ".ansible/roles/geerlingguy.java/tasks"
    installed.mkdir(parents=True)
    (installed / "main.yml").write_text("- ansible.builtin.debug: msg=java\n")
    assert run_check([str(repo)], load_settings(None, str(repo)), use_cache=True).findings == []

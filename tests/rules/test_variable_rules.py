"""PLS119 (role vars override a play's value) and PLS120 (a role default its own vars replace)."""

from __future__ import annotations

from pathlib import Path

from ruletest import check, positions

ROLE = {
    "roles/app/defaults/main.yml": "app_port: 8080\nlog_level: info\n",
    "roles/app/vars/main.yml": "app_port: 80\npackages: [nginx]\n",
    "roles/app/tasks/main.yml": "- debug: msg={{ app_port }}\n",
    "vars/common.yml": "packages: [curl]\nregion: eu\n",
}


def test_a_play_value_that_the_role_vars_replace(repo: Path) -> None:
    found = check(repo, {**ROLE, "site.yml": """
        - hosts: all
          vars:
            app_port: 9000
            other: 1
          vars_files:
            - vars/common.yml
          roles:
            - app
        """}, "PLS119")
    assert positions(found) == [("site.yml", 2, 4), ("vars/common.yml", 0, 0)]
    assert "'app_port' set in play vars here is overridden by the vars of role 'app' " \
           "(roles/app/vars/main.yml:1)" in found[0].message
    assert "'packages' set in vars_files" in found[1].message


def test_include_role_and_dependencies_count_and_defaults_do_not(repo: Path) -> None:
    found = check(repo, {**ROLE, "roles/web/meta/main.yml": "dependencies: [app]\n",
                         "roles/web/tasks/main.yml": "- debug: msg=web\n", "site.yml": """
        - hosts: all
          vars:
            log_level: debug
            app_port: 1
          tasks:
            - include_role:
                name: web
        """}, "PLS119")
    assert positions(found) == [("site.yml", 3, 4)]  # log_level is only a default of app


def test_nothing_without_role_vars(repo: Path) -> None:
    assert check(repo, {"roles/app/tasks/main.yml": "- debug: msg=x\n",
                        "site.yml": "- hosts: all\n  vars: {a: 1}\n  roles: [app]\n"}, "PLS119") == []


def test_a_default_the_roles_own_vars_replace(repo: Path) -> None:
    files = {**ROLE, "site.yml": "- hosts: all\n  roles: [app]\n", "other.yml": "- hosts: all\n  roles: [app]\n"}
    found = check(repo, files, "PLS120")
    assert positions(found) == [("roles/app/defaults/main.yml", 0, 0)]  # once, whichever playbooks use it
    assert "the default of 'app_port' is never used" in found[0].message
    assert "roles/app/vars/main.yml:1" in found[0].message


def test_a_fact_the_profiles_extra_vars_hide(repo: Path) -> None:
    found = check(repo, {
        "site.yml": """
            - hosts: all
              tasks:
                - name: pick
                  set_fact:
                    release: "2.1"
                    other: 1
                - name: look
                  command: "true"
                  register: release
            """,
        "other.yml": "- hosts: all\n  tasks:\n    - set_fact: {release: 3}\n",
        ".playbook-ls.yml": """
            profiles:
              deploy:
                playbook: site.yml
                extra_vars: {release: "2.0"}
              plain:
                playbook: site.yml
            """}, "PLS121")
    assert positions(found) == [("site.yml", 2, 6), ("site.yml", 6, 6)]  # not other.yml: the profile runs site.yml
    assert "'release' set here by set_fact is never seen when launched with profile 'deploy'" in found[0].message
    assert "by register" in found[1].message


def test_a_dependency_that_holds_only_variables_is_seen(repo: Path) -> None:
    files = {"roles/settings/defaults/main/ports.yml": "app_port: 8080\n",
             "roles/settings/vars/main/10-ports.yml": "app_port: 80\n",
             "roles/web/meta/main.yml": "dependencies: [settings]\n",
             "roles/web/tasks/main.yml": "- debug: msg={{ app_port }}\n",
             "site.yml": "- hosts: all\n  vars:\n    app_port: 1\n  roles: [web]\n"}
    assert positions(check(repo, files, "PLS119")) == [("site.yml", 2, 4)]
    assert positions(check(repo, files, "PLS120")) == [("roles/settings/defaults/main/ports.yml", 0, 0)]

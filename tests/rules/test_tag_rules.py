"""PLS101 never-reachable-by-inherited-tag, PLS102 never-with-always, PLS103, PLS114."""

from __future__ import annotations

import shutil
from pathlib import Path

from ruletest import check, positions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"


def test_seed_blog_task2_and_task3_inherit_role1_and_play(repo: Path) -> None:
    shutil.copytree(EXAMPLE, repo, dirs_exist_ok=True)
    found = check(repo, {}, "PLS101")
    assert positions(found) == [("roles/sample/tasks/main.yml", 11, 6), ("roles/sample/tasks/main.yml", 17, 6)]
    for finding, task in zip(found, ("task2", "task3"), strict=True):
        assert f"'sample : {task}' is tagged 'never'" in finding.message
        assert "'__play' (the play \"localhost\", playbook.yml:4)" in finding.message
        assert "'__role1' (the roles: entry \"sample\", playbook.yml:16)" in finding.message
        assert "--tags __play or --tags __role1 runs it" in finding.message
        assert [(r.span.line, r.message) for r in finding.related] == [
            (3, "'__play' is inherited from here"), (15, "'__role1' is inherited from here")]
    # task1 has no never; other tasks are never-free: nothing else is reported
    assert all(f.code == "PLS101" for f in found)


def test_own_opt_in_tag_is_not_reported(repo: Path) -> None:
    found = check(repo, {"playbook.yml": """
        - hosts: all
          tasks:
            - name: reset
              command: reset
              tags: [never, reset]
            - block:
                - name: debug dump
                  debug: msg=x
                  tags: dump
              tags: never
        """}, "PLS101")
    assert found == []


def test_one_finding_per_context(repo: Path) -> None:
    found = check(repo, {
        "playbook.yml": """
            - hosts: all
              tasks:
                - import_tasks: danger.yml
                  tags: web
                - block:
                    - import_tasks: danger.yml
                  tags: db
            """,
        "danger.yml": """
            - name: drop
              command: drop
              tags: never
            """}, "PLS101")
    assert positions(found) == [("danger.yml", 2, 8), ("danger.yml", 2, 8)]
    messages = sorted(f.message for f in found)
    assert "inherits 'db' (the block, playbook.yml:7)" in messages[0]
    assert "inherits 'web' (the import_tasks danger.yml, playbook.yml:4)" in messages[1]


def test_never_from_block_and_tag_from_import_playbook(repo: Path) -> None:
    found = check(repo, {
        "site.yml": """
            - import_playbook: inner.yml
              tags: nightly
            """,
        "inner.yml": """
            - hosts: all
              tasks:
                - block:
                    - name: wipe
                      command: wipe
                  tags: never
            """}, "PLS101")
    assert len(found) == 1
    assert "'nightly' (the import_playbook" in found[0].message
    assert found[0].related[-1].message == "'never' is set here"


def test_never_with_always_across_levels(repo: Path) -> None:
    files = {"playbook.yml": """
        - hosts: all
          tags: always
          tasks:
            - name: wipe
              command: wipe
              tags: never
            - name: fine
              command: ok
        """}
    found = check(repo, files, "PLS102")
    assert positions(found) == [("playbook.yml", 3, 12)]
    assert "'always' wins" in found[0].message
    assert check(repo, {}, "PLS101") == []  # an inherited 'always' is PLS102's business


def test_include_tags_not_inherited(repo: Path) -> None:
    files = {
        "playbook.yml": """
            - hosts: all
              tasks:
                - include_tasks: setup.yml
                  tags: [setup, always]
                - include_tasks:
                    file: setup.yml
                    apply: {tags: setup}
                  tags: setup
                - include_tasks: tagged.yml
                  tags: setup
                - include_tasks: "{{ runtime_file }}"
                  tags: dyn
                - include_role:
                    name: web
                  tags: web
                  when: deploy
            """,
        "setup.yml": "- debug: msg=setup\n",
        "tagged.yml": "- debug: msg=x\n  tags: setup\n",
        "roles/web/tasks/main.yml": "- debug: msg=web\n",
    }
    found = check(repo, files, "PLS103")
    # what "{{ runtime_file }}" loads is unknown, and so is what --tags dyn runs: nothing is claimed
    assert positions(found) == [("playbook.yml", 3, 12), ("playbook.yml", 14, 12)]
    assert "tags 'setup' on this include_tasks selects the include itself" in found[0].message
    assert "apply: {tags: [setup]}" in found[0].message


def test_include_tags_not_reported_when_every_loaded_task_runs_anyway(repo: Path) -> None:
    """An include_role whose tasks are all tagged always through an import inside runs them all
    under --tags svc (ansible 2.19): there is nothing to report."""
    files = {
        "playbook.yml": """
            - hosts: all
              tasks:
                - include_role:
                    name: svc
                  tags: [svc]
            """,
        "roles/svc/tasks/main.yml": "- import_role:\n    name: common\n  tags: always\n",
        "roles/common/tasks/main.yml": "- debug: msg=one\n- debug: msg=two\n",
    }
    assert check(repo, files, "PLS103") == []


def test_include_tags_count_a_nested_include_as_one_task(repo: Path) -> None:
    """The tasks an include loads are its file's: a nested include is one task, selected by its
    own tags; what it loads in turn is not counted (ansible's filter_tagged_tasks sees the file's
    tasks only)."""
    files = {
        "playbook.yml": """
            - hosts: all
              tasks:
                - include_tasks: outer.yml
                  tags: [dl]
            """,
        "outer.yml": "- include_tasks: inner.yml\n  tags: [dl]\n- debug: msg=own\n",
        "inner.yml": "- debug: msg=a\n- debug: msg=b\n",
    }
    found = check(repo, files, "PLS103")
    assert positions(found) == [("outer.yml", 1, 8), ("playbook.yml", 3, 12)]
    assert "--tags dl runs only 1 of its 2 tasks" in found[1].message
    assert "--tags dl runs none of them" in found[0].message


def test_include_tags_message_names_the_tasks_that_still_run(repo: Path) -> None:
    files = {
        "playbook.yml": "- hosts: all\n  tasks:\n    - include_tasks: part.yml\n      tags: setup\n",
        "part.yml": """
            - name: untagged
              debug: msg=a
            - name: own tag
              debug: msg=b
              tags: setup
            - name: always
              debug: msg=c
              tags: always
            """,
    }
    found = check(repo, files, "PLS103")
    assert len(found) == 1
    assert "--tags setup runs only 2 of its 3 tasks ('own tag', 'always'), tagged themselves" in found[0].message
    files["part.yml"] = "- name: untagged\n  debug: msg=a\n"
    assert "--tags setup runs none of them" in check(repo, files, "PLS103")[0].message


def test_include_when_reported_only_with_the_option(repo: Path) -> None:
    files = {
        "playbook.yml": "- hosts: all\n  tasks:\n    - include_tasks: setup.yml\n      when: go\n",
        "setup.yml": "- debug: msg=setup\n",
    }
    assert check(repo, files, "PLS103") == []
    found = check(repo, {".playbook-ls.yml": "rules:\n  PLS103:\n    when: true\n"}, "PLS103")
    assert positions(found) == [("playbook.yml", 3, 12)]


def test_reserved_tag_names(repo: Path) -> None:
    found = check(repo, {"playbook.yml": """
        - hosts: all
          tags: untagged
          tasks:
            - debug: msg=x
              tags: [all, always, never, fine]
        """}, "PLS114")
    assert positions(found) == [("playbook.yml", 1, 8), ("playbook.yml", 4, 12)]


# A shared role whose tasks are tagged after the role that includes it (the pattern of
# prometheus-community's collection). A run templates what an include loads with the include's
# variables, where include_role passes ansible_parent_role_names: `--tags web_install` runs the
# include and both tasks. An imported role is loaded with the play, and ansible-playbook fails
# on the same tags ("'ansible_parent_role_names' is undefined"): that stays reported.
SHARED_ROLE = {
    "site.yml": """
        - hosts: localhost
          gather_facts: false
          roles: [web]
        """,
    "roles/web/tasks/main.yml": """
        - name: web install
          ansible.builtin.include_role:
            name: common
            tasks_from: install.yml
          tags: [web_install]
        - name: web configure
          ansible.builtin.include_tasks: configure.yml
          tags: [web_configure]
        """,
    "roles/web/tasks/configure.yml": """
        - name: nested
          ansible.builtin.include_role:
            name: common
            tasks_from: install.yml
          tags: [web_configure]
        """,
    "roles/common/tasks/install.yml": """
        - name: one
          ansible.builtin.debug: {msg: 1}
          tags: ["{{ ansible_parent_role_names | first }}_install", "{{ ansible_parent_role_names | first }}_configure"]
        - name: two
          ansible.builtin.debug: {msg: 2}
          tags: ["{{ ansible_parent_role_names | first }}_install", "{{ ansible_parent_role_names | first }}_configure"]
        """,
}


def test_tags_templated_from_the_including_role_are_known_where_it_includes(repo: Path) -> None:
    found = check(repo, SHARED_ROLE)
    assert [(f.code, *position) for f, position in zip(found, positions(found), strict=True)] == []


def test_tags_of_an_imported_role_are_templated_with_the_play_and_fail_as_in_ansible(repo: Path) -> None:
    imported = SHARED_ROLE["roles/web/tasks/main.yml"].replace("include_role", "import_role")
    found = check(repo, {**SHARED_ROLE, "roles/web/tasks/main.yml": imported}, "PLS115")
    assert "'ansible_parent_role_names' is undefined" in found[0].message

"""Rules that report what stops ansible-playbook from loading a playbook (PLS109-PLS113),
and PLS115-PLS117."""

from __future__ import annotations

from pathlib import Path

from ruletest import check, positions


def test_missing_role_lists_the_paths_searched(repo: Path) -> None:
    found = check(repo, {"site.yml": "- hosts: all\n  roles:\n    - nosuchrole\n"}, "PLS109")
    assert positions(found) == [("site.yml", 2, 6)]
    assert "the role 'nosuchrole' was not found in" in found[0].message
    assert str(repo / "roles") in found[0].message


def test_missing_import_and_include(repo: Path) -> None:
    found = check(repo, {"site.yml": """
        - hosts: all
          tasks:
            - import_tasks: missing.yml
        - import_playbook: gone.yml
        """}, "PLS109")
    assert positions(found) == [("site.yml", 2, 20), ("site.yml", 3, 19)]


def test_import_cycle(repo: Path) -> None:
    found = check(repo, {
        "site.yml": "- hosts: all\n  tasks:\n    - import_tasks: a.yml\n",
        "a.yml": "- import_tasks: b.yml\n",
        "b.yml": "- import_tasks: a.yml\n",
    }, "PLS110")
    assert len(found) == 1 and "import cycle" in found[0].message


def test_yaml_syntax_in_playbook_and_unreached_file(repo: Path) -> None:
    found = check(repo, {
        "site.yml": "- hosts: all\n  tasks:\n    - debug:\n        msg: \"open\n",
        "vars/other.yml": "key: [unclosed\n",
        "notes/other.yml": "key: [unclosed\n",  # nothing says it is Ansible's: left alone
    }, "PLS111")
    assert [p[0] for p in positions(found)] == ["site.yml", "vars/other.yml"]
    assert all(f.message.endswith("Fix the YAML so that it parses.") for f in found)


def test_unknown_keywords_with_suggestions(repo: Path) -> None:
    found = check(repo, {"site.yml": """
        - hosts: all
          become_usr: root
          tasks:
            - debug: msg=x
              tag: x
            - block:
                - debug: msg=y
              rescu:
                - debug: msg=z
        """}, "PLS112")
    messages = [f.message for f in found]
    assert positions(found)[0] == ("site.yml", 1, 2)
    assert "did you mean 'become_user'?" in messages[0]


def test_task_keyword_typo_is_not_confused_with_a_module(repo: Path) -> None:
    found = check(repo, {"site.yml": "- hosts: all\n  tasks:\n    - debug: msg=x\n      whne: x\n"}, "PLS112")
    assert positions(found) == [("site.yml", 3, 6)]
    assert "'whne' is not a valid attribute for a Task; did you mean 'when'?" in found[0].message


def test_invalid_playbook_structure(repo: Path) -> None:
    found = check(repo, {
        "site.yml": "- hosts: all\n  tasks:\n    - import_tasks: t.yml\n      loop: [1]\n    - 42\n",
        "t.yml": "- debug: msg=x\n",
    }, "PLS113")
    assert [p[1] for p in positions(found)] == [2, 4]


def test_the_removed_include_is_reported_once_per_task(repo: Path) -> None:
    found = check(repo, {"site.yml": "- hosts: all\n  tasks:\n    - include: t.yml\n", "t.yml": "- debug: msg=x\n"},
                  "PLS113")
    assert len(found) == 1
    assert found[0].message.startswith("The 'ansible.builtin.include' action plugin has been removed. Use "
                                       "include_tasks or import_tasks instead. This feature was removed from "
                                       "ansible-core in a release after 2023-05-16.")


def test_a_name_with_no_value_before_the_run_is_not_called_undefined(repo: Path) -> None:
    """The inventory, a fact or an earlier task may define it: PLS116 must not contradict vars."""
    found = check(repo, {"site.yml": "- hosts: all\n  tasks:\n    - include_tasks: '{{ flavour }}.yml'\n"}, "PLS116")
    assert "'flavour' has no value before the run" in found[0].message
    assert "is undefined" not in found[0].message


def test_unresolved_template_and_dynamic_include(repo: Path) -> None:
    files = {"site.yml": """
        - hosts: all
          tasks:
            - import_tasks: "{{ undefined_var }}.yml"
            - include_tasks: "{{ ansible_facts.os_family }}.yml"
        """}
    assert positions(check(repo, files, "PLS115")) == [("site.yml", 2, 20)]
    assert positions(check(repo, {}, "PLS116")) == [("site.yml", 3, 21)]


def test_an_include_named_from_another_roles_defaults_is_followed(repo: Path) -> None:
    """ansible templates an include's name when the task runs, with every role's defaults of the
    play: role b's include of t_{{ x }}.yml runs t_foo.yml when role a's defaults set x, and
    `include_role` of a name from the play's roles does the same. Neither is a dynamic include,
    and the included tasks are analysed (here: PLS105 inside them)."""
    files = {
        "site.yml": "- hosts: all\n  roles: [a, b]\n  tasks:\n    - include_role:\n        name: \"{{ which }}\"\n"
                    "    - include_tasks: \"t_{{ from_inventory }}.yml\"\n",
        "roles/a/defaults/main.yml": "x: foo\nwhich: c\n",
        "roles/b/tasks/main.yml": "- include_tasks: \"t_{{ x }}.yml\"\n",
        "roles/b/tasks/t_foo.yml": "- debug: msg=foo\n  when: \"{{ x }}\"\n",
        "roles/c/tasks/main.yml": "- debug: msg=c\n  when: \"{{ which }}\"\n",
    }
    dynamic = check(repo, files, "PLS116")
    assert positions(dynamic) == [("site.yml", 5, 21)]  # only the name a host or the run must give
    assert "'from_inventory' has no value before the run" in dynamic[0].message
    assert sorted(positions(check(repo, {}, "PLS105"))) == [("roles/b/tasks/t_foo.yml", 1, 8),
                                                            ("roles/c/tasks/main.yml", 1, 8)]


def test_an_include_named_from_defaults_that_is_not_found_is_no_error(repo: Path) -> None:
    """A name from role defaults is what ansible uses unless the inventory or extra vars give
    another: when it names nothing here, that is said (PLS116, information), not claimed as a
    missing file or role (PLS109)."""
    files = {
        "site.yml": "- hosts: all\n  roles: [a, b]\n",
        "roles/a/defaults/main.yml": "engine: podman\n",
        "roles/b/defaults/main.yml": "own: docker\n",
        "roles/b/tasks/main.yml": "- include_tasks: \"install_{{ engine }}.yml\"\n"
                                  "- include_role:\n    name: \"ns.coll.{{ engine }}\"\n"
                                  "- include_tasks: \"install_{{ own }}.yml\"\n"
                                  "- include_tasks: missing.yml\n",
    }
    assert positions(check(repo, files, "PLS109")) == [("roles/b/tasks/main.yml", 4, 17)]  # the static name
    dynamic = check(repo, {}, "PLS116")
    assert positions(dynamic) == [("roles/b/tasks/main.yml", 0, 17), ("roles/b/tasks/main.yml", 1, 2),
                                  ("roles/b/tasks/main.yml", 3, 17)]
    assert all("with the values known before the run" in f.message for f in dynamic)


def test_duplicate_role_is_skipped_but_dependencies_are_not_reported(repo: Path) -> None:
    found = check(repo, {
        "site.yml": "- hosts: all\n  roles:\n    - common\n    - app\n    - web\n    - common\n",
        "roles/common/tasks/main.yml": "- debug: msg=common\n",
        "roles/app/meta/main.yml": "dependencies: [base]\n",
        "roles/app/tasks/main.yml": "- debug: msg=app\n",
        "roles/web/meta/main.yml": "dependencies: [base]\n",
        "roles/web/tasks/main.yml": "- debug: msg=web\n",
        "roles/base/tasks/main.yml": "- debug: msg=base\n",
    }, "PLS117")
    assert positions(found) == [("site.yml", 5, 6)]
    assert "site.yml:3" in found[0].message


def test_every_problem_the_engine_reports_has_a_rule() -> None:
    """A problem code no rule reports would be silently dropped by check and the editor."""
    import pathlib
    import re

    from playbook_ls import rules

    root = pathlib.Path(__file__).resolve().parents[2]
    emitted = {code for path in (root / "engine").rglob("*.py")
               for code in re.findall(r'problem\(\s*"([a-z-]+)"', path.read_text(encoding="utf-8"))}
    reported = {code for path in (root / "playbook_ls" / "rules").glob("pls*.py")
                for call in re.findall(r"problem_findings\(ctx((?:, \"[a-z-]+\")+)\)", path.read_text(encoding="utf-8"))
                for code in re.findall(r'"([a-z-]+)"', call)}
    assert rules.RULES
    assert emitted, "the pattern no longer finds the engine's problems"
    assert emitted - reported == set()

"""PLS122 undefined-variable: what a launch profile's tasks read and nothing defines.

The repositories below are also run with ansible-playbook (-c local, every task ignoring
errors) when it is installed: the tasks ansible fails with "'NAME' is undefined" must be
exactly the reported ones, name for name.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from ansible_tools import find_tool
from ruletest import check, positions, write_files

INVENTORY = "[web]\nw1 group_thing=1 ansible_connection=local\nw2 ansible_connection=local\n"
PROFILE = """
    profiles:
      deploy:
        playbook: site.yml
        inventory: hosts.ini
        extra_vars: {release: "1.0"}
    """

TYPOS = {
    "hosts.ini": INVENTORY,
    ".playbook-ls.yml": PROFILE,
    "site.yml": """
        - hosts: web
          gather_facts: false
          vars:
            app_port: 8080
          tasks:
            - name: typo
              ignore_errors: true
              ansible.builtin.debug:
                msg: "listening on {{ app_prot }}"
            - name: guarded
              ignore_errors: true
              ansible.builtin.debug:
                msg: "{{ maybe | default('x') }} {{ other if other is defined else 1 }} {{ deep.a.b | d(1) }}"
            - name: one host only
              ignore_errors: true
              ansible.builtin.debug:
                msg: "{{ group_thing }} {{ inventory_hostname }} {{ ansible_host | default('') }}"
            - name: extra vars and a loop
              ignore_errors: true
              ansible.builtin.debug:
                msg: "{{ release }} {{ item }}"
              loop: "{{ my_list }}"
              when: feature_flag
            - name: template locals
              ignore_errors: true
              ansible.builtin.debug:
                msg: "{% set n = 2 %}{% for x in [1, n] %}{{ x }}{% endfor %}{{ range(3) | list }}"
        """,
}

EVERY_LEVEL = {
    "hosts.ini": INVENTORY,
    ".playbook-ls.yml": PROFILE,
    "group_vars/web.yml": "from_group_vars: 1\n",
    "vars/extra.yml": "from_include_vars: 2\n",
    "roles/app/defaults/main.yml": "app_default: 3\n",
    "roles/app/tasks/main.yml": """
        - name: role task
          ignore_errors: true
          ansible.builtin.debug:
            msg: "{{ app_default }} {{ role_param }} {{ from_group_vars }} {{ app_defualt }}"
        """,
    "tasks/looped.yml": """
        - name: included task
          ignore_errors: true
          ansible.builtin.debug:
            msg: "{{ entry }} {{ include_param }} {{ earlier_fact }} {{ from_include_vars }}"
        """,
    "site.yml": """
        - hosts: web
          gather_facts: false
          tasks:
            - ansible.builtin.set_fact:
                earlier_fact: 4
            - ansible.builtin.include_vars: vars/extra.yml
        - hosts: web
          gather_facts: false
          roles:
            - role: app
              vars:
                role_param: 5
          tasks:
            - name: include with a loop
              ansible.builtin.include_tasks: tasks/looped.yml
              loop: [1]
              loop_control:
                loop_var: entry
              vars:
                include_param: 6
            - name: guarded by its block
              when: later is defined
              block:
                - name: block task
                  ignore_errors: true
                  ansible.builtin.debug:
                    msg: "{{ later }}"
        """,
}


def _found(repo: Path, files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    found = check(repo, files, "PLS122")
    return [(*position, re.search(r"'(\w+)'", finding.message).group(1))  # type: ignore[union-attr]
            for position, finding in zip(positions(found), found, strict=True)]


def test_names_nothing_defines_are_reported_where_they_are_read(repo: Path) -> None:
    # a module argument is pointed at from the task's arguments, a keyword at its value
    assert _found(repo, TYPOS) == [("site.yml", 8, 8, "app_prot"), ("site.yml", 21, 12, "my_list"),
                                   ("site.yml", 22, 12, "feature_flag")]
    message = check(repo, TYPOS, "PLS122")[0].message
    assert ("'app_prot' is defined nowhere on the way to this task on any of its 2 hosts when launched with "
            "profile 'deploy': ansible-playbook fails it with \"'app_prot' is undefined\"") in message


def test_every_level_of_the_variable_model_counts_as_a_definition(repo: Path) -> None:
    assert _found(repo, EVERY_LEVEL) == [("roles/app/tasks/main.yml", 3, 4, "app_defualt")]


@pytest.mark.parametrize("change", [
    pytest.param({".playbook-ls.yml": ""}, id="no profile"),
    pytest.param({".playbook-ls.yml": PROFILE.rstrip(" ") + "        ask_variables_on_launch: true\n"},
                 id="variables asked on launch"),
    pytest.param({"ansible.cfg": "[defaults]\nfact_caching = jsonfile\n"}, id="a fact cache"),
    pytest.param({"vars_plugins/extra.py": ""}, id="vars plugins beside the playbook"),
])
def test_nothing_is_said_where_variables_may_come_from_elsewhere(repo: Path, change: dict[str, str]) -> None:
    assert _found(repo, {**TYPOS, **change}) == []


def test_a_facts_module_or_a_dynamic_inventory_makes_the_playbook_uncertain(repo: Path) -> None:
    facts = TYPOS["site.yml"].replace("          tasks:\n", "          tasks:\n"
                                      "            - ansible.builtin.package_facts:\n", 1)
    assert _found(repo, {**TYPOS, "site.yml": facts}) == []
    script = repo / "inventory.py"
    write_files(repo, {"inventory.py": "#!/bin/sh\necho '{}'\n"})
    script.chmod(0o755)
    profile = PROFILE.replace("inventory: hosts.ini", "inventory: inventory.py")
    assert _found(repo, {**TYPOS, ".playbook-ls.yml": profile}) == []


def test_plays_after_an_inventory_change_are_not_checked(repo: Path) -> None:
    site = TYPOS["site.yml"] + """
        - hosts: web
          gather_facts: false
          tasks:
            - ansible.builtin.add_host: {name: new, groups: web, surprise: 1}
        - hosts: web
          gather_facts: false
          tasks:
            - ansible.builtin.debug: {msg: "{{ surprise }}"}
        """
    assert [name for *_, name in _found(repo, {**TYPOS, "site.yml": site})] == ["app_prot", "my_list", "feature_flag"]


def test_a_survey_variable_is_given_at_launch(repo: Path) -> None:
    profile = PROFILE.rstrip(" ") + "        survey:\n          - {variable: app_prot, type: text, required: true}\n"
    assert [name for *_, name in _found(repo, {**TYPOS, ".playbook-ls.yml": profile})] == ["my_list", "feature_flag"]


def _task_names(repo: Path, findings: list[tuple[str, int, int, str]]) -> dict[str, set[str]]:
    """The names reported per task, the task named by the last ``- name:`` at or above the finding."""
    by_task: dict[str, set[str]] = {}
    for path, line, _col, name in findings:
        lines = (repo / path).read_text().splitlines()[: line + 1]
        task = next(m.group(1) for text in reversed(lines) if (m := re.match(r"\s*- name: (.+)", text)))
        by_task.setdefault(task, set()).add(name)
    return by_task


@pytest.mark.ansible
@pytest.mark.parametrize("files", [TYPOS, EVERY_LEVEL], ids=["typos", "every level"])
def test_ansible_fails_exactly_the_reported_tasks_for_a_reported_name(repo: Path, files: dict[str, str]) -> None:
    playbook = find_tool("ansible-playbook")
    if playbook is None:
        pytest.skip("ansible-playbook is not installed")
    reported = _task_names(repo, _found(repo, files))
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_HOST_KEY_CHECKING": "0"}
    result = subprocess.run([playbook, "-i", "hosts.ini", "site.yml", "-e", "release=1.0"], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=300)
    failed: dict[str, list[str]] = {}
    for section in result.stdout.split("\nTASK [")[1:]:
        task = section.split("]", 1)[0].split(" : ")[-1]
        failed[task] = re.findall(r"fatal: \[w\d\]: FAILED! => .*?'(\w+)' is undefined", section)
    # ansible names the first undefined name it meets; a name defined for one host fails on the
    # others only, and the rule reports only what fails on every host
    on_every_host = {task: set(names) for task, names in failed.items() if len(names) == 2}
    assert set(on_every_host) == set(reported), result.stdout[-3000:]
    for task, names in on_every_host.items():
        assert names <= reported[task], (task, names, reported[task])


def test_templates_with_filters_of_collections_are_still_read(repo: Path) -> None:
    site = TYPOS["site.yml"].replace('"listening on {{ app_prot }}"',
                                     '"{{ app_prot | community.general.to_time_unit(\'s\') | to_datetime }}"')
    assert [name for *_, name in _found(repo, {**TYPOS, "site.yml": site})] == ["app_prot", "my_list", "feature_flag"]


def test_a_name_the_template_sets_on_every_branch_is_not_reported(repo: Path) -> None:
    """Found on algo's input.yml: Jinja's analysis calls `_server` undeclared, set in each branch."""
    site = TYPOS["site.yml"].replace(
        '"listening on {{ app_prot }}"',
        '"{% if app_port > 1 %}{% set s = 1 %}{% else %}{% set s = 2 %}{% endif %}{{ s }}"')
    assert [name for *_, name in _found(repo, {**TYPOS, "site.yml": site})] == ["my_list", "feature_flag"]


def test_profiles_that_launch_alike_share_one_analysis(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An export's thousands of job templates come down to a few distinct launches: the plan is
    # made once per distinct launch, and a profile that launches otherwise gets its own answer.
    import engine.flow.plan
    from playbook_ls.rules import undefined_names

    profiles = PROFILE + """
      again:
        playbook: site.yml
        inventory: hosts.ini
        extra_vars: {release: "1.0"}
      given:
        playbook: site.yml
        inventory: hosts.ini
        extra_vars: {release: "1.0", app_prot: 80}
    """
    plans = []
    make_plan = engine.flow.plan.make_plan
    monkeypatch.setattr(engine.flow.plan, "make_plan", lambda *a, **k: plans.append(a) or make_plan(*a, **k))
    monkeypatch.setattr(undefined_names, "_cache", {})
    found = check(repo, {**TYPOS, ".playbook-ls.yml": profiles}, "PLS122")
    assert len(plans) == 2
    by_profile: dict[str, list[str]] = {}
    for finding in found:
        name = re.search(r"profile '(\w+)'", finding.message).group(1)  # type: ignore[union-attr]
        by_profile.setdefault(name, []).append(re.search(r"'(\w+)'", finding.message).group(1))  # type: ignore[union-attr]
    assert "app_prot" in by_profile["deploy"] and "app_prot" not in by_profile.get("given", [])

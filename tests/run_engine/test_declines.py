"""What the engine does not reproduce exactly is declined by the plan, before anything runs
(engine.run.declines): arguments, meta actions, lookups and tests, with where they are written."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems


def _declined(root: Path, tasks: str, files: dict[str, str] | None = None, inventory: str = "localhost,",
              extra_vars: dict[str, str] | None = None) -> list[str]:
    write(root, {"site.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n" + tasks, **(files or {})})
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[inventory],
                                    extra_vars=extra_vars or {}), has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan)]


def _install(root: Path, monkeypatch: pytest.MonkeyPatch, *collections: str) -> None:
    """Only ``collections`` installed where ansible looks (no Python path scanned)."""
    for name in collections:
        (root / "ansible_collections" / name).mkdir(parents=True)
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(root))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "false")


def test_a_test_of_a_collection_not_installed_fails_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible fails "No test named 'ansible.utils.ipv4'" as the engine does; a lookup of a
    collection not installed also warns "Error loading plugin", which the engine does not."""
    _install(tmp_path / "installed", monkeypatch, "community/other")
    tasks = ("    - debug: {msg: x}\n      when: \"'a' is ansible.utils.ipv4\"\n"
             "    - debug: {msg: \"{{ query('community.general.dig', 'x') }}\"}\n")
    assert ["lookup community.general.dig" in problem for problem in _declined(tmp_path, tasks)] == [True]


@pytest.mark.parametrize(("task", "what"), [
    ("    - meta: refresh_inventory\n", "meta: refresh_inventory"),
    ("    - uri: {url: 'http://x', body_format: form-multipart}\n", "uri: body_format=form-multipart"),
    ("    - unarchive: {src: 'https://x/a.tgz', dest: d}\n", "unarchive: a URL src"),
    ("    - debug: {msg: \"{{ lookup('inventory_hostnames', 'all') }}\"}\n", "lookup inventory_hostnames"),
    ("    - debug: {msg: \"{{ query('community.general.dig', 'x') }}\"}\n", "lookup community.general.dig"),
    ("    - debug: {msg: x}\n      with_community.general.cartesian: [[1], [2]]\n",
     "lookup community.general.cartesian"),
    # a short name ansible-core routes to a collection, and a with_ loop of a lookup ansible-core
    # lacks (its load fails unless a collection or lookup_plugins/ offers it)
    ("    - debug: {msg: \"{{ lookup('filetree', '/x') }}\"}\n", "lookup filetree"),
    ("    - debug: {msg: x}\n      with_filetree: /x\n", "lookup filetree"),
    ("    - debug: {msg: x}\n      with_my_own_lookup: [1]\n", "lookup my_own_lookup"),
    ("    - debug: {msg: x}\n      when: \"'a' is ansible.utils.ipv4\"\n", "test ansible.utils.ipv4"),
    ("    - debug: {msg: x}\n      when: \"'a' is vault_encrypted\"\n", "test vault_encrypted"),
])
def test_what_the_engine_does_not_do_exactly_is_declined_where_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, what: str) -> None:
    _install(tmp_path / "installed", monkeypatch, "ansible/utils", "community/general")
    (problem,) = _declined(tmp_path, task)
    assert problem.startswith(f"{tmp_path}/site.yml:4:7: ") and f"does not implement '{what}'" in problem


def test_what_the_engine_does_is_not_declined(tmp_path: Path) -> None:
    tasks = ("    - include_vars: {file: vars/a.yml}\n    - include_vars: {dir: vars, depth: 1}\n"
             "    - include_vars: {dir: vars, hash_behaviour: merge}\n"
             "    - debug: {msg: \"{{ lookup('file', 'a') }} {{ 'x' is match('x') }}\"}\n"
             "    - debug: {msg: x}\n      with_items: [1]\n"
             "    - meta: end_batch\n    - meta: clear_facts\n    - meta: clear_host_errors\n"
             "    - template: {src: a.j2, dest: b, variable_start_string: '[[', block_start_string: '[%'}\n"
             "    - debug: {msg: \"{{ lookup('ini', 'k', file='a.ini') }} {{ lookup('csvfile', 'k') }}\"}\n"
             "    - debug: {msg: \"{{ lookup('url', 'https://x', split_lines=False) }}\"}\n"
             # a name ansible does not know either fails alike in both
             "    - debug: {msg: \"{{ lookup('no_such_lookup', 'x') }} {{ 1 is no_such_test }}\"}\n")
    assert _declined(tmp_path, tasks) == []


def test_a_lookup_in_a_template_file_is_found_at_its_line(tmp_path: Path) -> None:
    problems = _declined(tmp_path, "    - template: {src: t.j2, dest: out}\n",
                         {"templates/t.j2": "a\n{{ lookup('inventory_hostnames', 'x') }}\n"})
    assert [p.split(": playbook-ls")[0] for p in problems] == [f"{tmp_path}/templates/t.j2:2:1"]
    assert "'lookup inventory_hostnames'" in problems[0]


# find's results keep an invocation the engine does not make
LOOPED_COPY = "    - find: {paths: 'out/{{ item }}'}\n      loop: [a, b]\n      register: written\n"


@pytest.mark.parametrize("task", [
    "    - debug: {msg: \"{{ item.dest }}\"}\n      loop: \"{{ written.results }}\"\n",
    "    - debug: {msg: x}\n      with_items: \"{{ written.results | selectattr('changed') | list }}\"\n",
    "    - debug: {var: written}\n",
    "    - debug: {var: written.results}\n",
    "    - debug: {msg: \"all: {{ written.results[0] }}\"}\n",
])
def test_a_looped_modules_results_shown_whole_are_declined(tmp_path: Path, task: str) -> None:
    # each item result of a looped module keeps its invocation (the module's arguments), which the
    # engine does not make for find
    (problem,) = _declined(tmp_path, LOOPED_COPY + task)
    assert problem.startswith(f"{tmp_path}/site.yml:7:7: ") and "written" in problem and "invocation" in problem


@pytest.mark.parametrize("task", [
    "    - debug: {msg: \"{{ item.dest }}\"}\n      loop: \"{{ written.results }}\"\n      loop_control: {label: x}\n",
    "    - debug: {msg: \"{{ written.results | map(attribute='dest') | list }}\"}\n",
    "    - debug: {var: \"written.results[0].dest\"}\n",
    "    - debug: {msg: \"{{ written is changed }} {{ written.changed }}\"}\n",
    "    - debug: {msg: \"written: {{ written.results | length }}\"}\n",
])
def test_what_takes_the_looped_results_apart_is_not_declined(tmp_path: Path, task: str) -> None:
    assert _declined(tmp_path, LOOPED_COPY + task) == []


@pytest.mark.parametrize(("task", "declined"), [
    ("    - set_fact: {saved: \"{{ written }}\"}\n    - set_fact: {again: \"{{ saved.results }}\"}\n"
     "    - debug: {var: again}\n", True),
    ("    - set_fact: {saved: \"{{ written }}\"}\n    - debug: {msg: \"{{ item.dest }}\"}\n"
     "      loop: \"{{ saved.results }}\"\n", True),
    ("    - set_fact: {saved: \"{{ written.results | map(attribute='dest') | list }}\"}\n"
     "    - debug: {var: saved}\n", False),
])
def test_a_copy_set_fact_makes_of_the_looped_results_is_followed(tmp_path: Path, task: str, declined: bool) -> None:
    assert bool(_declined(tmp_path, LOOPED_COPY + task)) is declined


@pytest.mark.parametrize(("task", "declined"), [
    ("    - copy: {content: x, dest: 'out/{{ item }}'}\n", False),
    ("    - copy: {src: a, dest: 'out/{{ item }}', mode: '0644'}\n", False),
    ("    - template: {src: a.j2, dest: 'out/{{ item }}'}\n", False),
    ("    - replace: {path: 'out/{{ item }}', regexp: x}\n", False),
    ("    - blockinfile: {path: 'out/{{ item }}', block: x}\n", False),
    # the module itself looks at a remote source; a failed validate names the file the action sent
    ("    - copy: {src: a, dest: 'out/{{ item }}', remote_src: true}\n", True),
    ("    - template: {src: a.j2, dest: 'out/{{ item }}', validate: 'true %s'}\n", True),
])
def test_copy_template_and_edits_shown_whole_run(tmp_path: Path, task: str, declined: bool) -> None:
    # their results carry the invocation of the module their action runs, in ansible's key order
    shown = "      loop: [a, b]\n      register: written\n    - debug: {var: written}\n"
    assert bool(_declined(tmp_path, task + shown)) is declined


LOOPED_STAT = "    - stat: {path: 'out/{{ item }}'}\n      loop: [a, b]\n      register: stats\n"


@pytest.mark.parametrize(("task", "declined"), [
    ("    - debug: {var: stats}\n", False),
    ("    - debug: {msg: \"{{ stats.results }}\"}\n", False),
    ("    - debug: {msg: \"all: {{ stats.results[0] }}\"}\n", False),
    ("    - debug: {msg: \"{{ item.stat.exists }}\"}\n      loop: \"{{ stats.results }}\"\n", False),
])
def test_the_results_of_a_module_whose_invocation_the_engine_makes_run_however_shown(
        tmp_path: Path, task: str, declined: bool) -> None:
    # stat returns ansible's invocation, its values and its key order: a debug shows it as sorted
    # JSON, an item label or a text as a Python repr, in the order AnsibleModule filled it in
    assert bool(_declined(tmp_path, LOOPED_STAT + task)) is declined


def test_the_results_of_a_looped_set_fact_or_an_unlooped_module_have_no_invocation(tmp_path: Path) -> None:
    tasks = ("    - set_fact: {x: 1}\n      loop: [a]\n      register: facts\n"
             "    - command: echo\n      register: once\n"
             "    - debug: {var: facts}\n    - debug: {var: once}\n"
             "    - debug: {msg: x}\n      loop: \"{{ facts.results }}\"\n")
    assert _declined(tmp_path, tasks) == []


@pytest.mark.parametrize(("task", "what"), [
    ("    - command: echo hi chdir=/tmp\n      args: {creates: /x}\n", "Merging legacy k=v args"),
    ("    - action: {module: debug, msg: hi}\n", "Using a mapping for `action`"),
    ("    - debug: {msg: x}\n      args:\n", "Ignoring empty task `args` keyword"),
])
def test_a_deprecation_ansible_prints_while_loading_is_declined_when_deprecations_are_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, what: str) -> None:
    monkeypatch.setenv("ANSIBLE_DEPRECATION_WARNINGS", "True")
    (problem,) = _declined(tmp_path, task)
    assert f"deprecation warning: {what}" in problem
    monkeypatch.setenv("ANSIBLE_DEPRECATION_WARNINGS", "False")
    assert _declined(tmp_path, task) == []


def test_k_v_arguments_alone_or_raw_words_with_args_are_no_deprecation(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_DEPRECATION_WARNINGS", "True")
    tasks = ("    - command: echo hi chdir=/tmp\n"
             "    - shell: echo a=b\n      args: {chdir: /tmp}\n")
    assert _declined(tmp_path, tasks) == []


def test_a_verbose_run_is_declined(tmp_path: Path) -> None:
    # ansible's -v text names its config file and a copy's temporary source; -vv more, -vvv the
    # connection and every module's invocation
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: {msg: x}\n"})
    for verbosity, flag in ((1, "-v"), (3, "-vvv")):
        plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"],
                                        verbosity=verbosity), has_module=lambda action: True)
        (problem,) = unknown_module_problems(plan)
        assert f"'{flag} (ansible-playbook's verbose output)'" in str(problem)


@pytest.mark.parametrize("shown", [
    "{{ names | difference(['b']) }}",
    "{{ names | union(more) | join(',') }}",
    "{{ (names | intersect(more))[0] }}",
    "{{ names | symmetric_difference(more) | default([]) }}",
    "{% for name in names | difference(more) %}{{ name }}{% endfor %}",
    "{{ names | union(more) | unique | join(',') }}",
    "{{ names | union(more) | unique | sort | join(',') }}",
    # sort, min, max and unique compare without case: of items equal but for case, the order's come first
    "{{ names | difference(['b']) | sort }}",
    "{{ names | union(more) | list | sort(true) | join(',') }}",
    "{{ names | union(more) | min }}",
    "{{ names | union(more) | unique(case_sensitive=false) | length }}",
    "{{ ['a', 'b'] | union(['A', 'c']) | sort }}",
    "{{ names | union(more) | list | first }}",
    "{{ names | union(more) == more }}",
    "{{ 'y' if x else names | union(more) }}",
    "{{ [{'k': 1}] | union(names | union(more)) }}",
    "{{ names | union([item | upper]) | join(',') }}",
])
def test_a_set_like_filters_order_that_can_show_is_declined(tmp_path: Path, shown: str) -> None:
    # ansible-core's filter returns list(set(...)): strings are ordered by each process's hash seed
    (problem,) = _declined(tmp_path, f"    - debug: {{msg: \"{shown}\"}}\n")
    assert problem.startswith(f"{tmp_path}/site.yml:4:7: ") and "hash seed" in problem


@pytest.mark.parametrize("unordered", [
    "{{ names | difference(['b']) | sort(case_sensitive=true) }}",
    "{{ names | union(more) | length }}",
    "{{ 'a' in names | intersect(more) }}",
    "{{ names | difference(more) is subset(names) }}",
    "{{ names | union(more | difference(names)) | sort(false, true) }}",
    "{{ [3, 1, 2.5] | difference([1]) }}",
    "{{ [{'k': 1}, ['x']] | union(names) }}",
    "{{ names | union([{'port': item}]) }}",
    "{{ names | difference([['x'], 'a']) | join(',') }}",
    "{{ names | difference(more) | list | length > 0 }}",
    "{{ names | union(more) | list | sort(case_sensitive=True) | join(',') }}",
    "{{ names | union(more) | unique(case_sensitive=True) | max(case_sensitive=True) }}",
    "{{ names | union(more) | map('lower') | sort | join(',') }}",
    "{{ ['a', 'b'] | union(['C', 'd']) | sort }}",
    "{{ names | intersect(more) | map('upper') | select('match', 'A') | sort }}",
    "{% if names | difference(more) %}some{% endif %}{% if names | union(more) and x %}x{% endif %}",
    "{{ names | difference(more) == [] }} {{ [] != names | difference(more) }}",
    "{{ 'y' if names | union(more) else 'n' }}",
    "{{ names | union([item | combine({'a': 1})]) }} {{ names | difference([more | list]) | join(',') }}",
])
def test_a_set_like_filters_order_that_cannot_show_is_not_declined(tmp_path: Path, unordered: str) -> None:
    assert _declined(tmp_path, f"    - debug: {{msg: \"{unordered}\"}}\n") == []


def test_a_set_like_filters_order_in_a_task_variable_nothing_reads_is_not_declined(tmp_path: Path) -> None:
    # task vars are templated where they are used: one that nothing names is never rendered
    task = ("    - debug: {msg: done}\n      vars:\n        packages: \"{{ names | union(more) }}\"\n")
    assert _declined(tmp_path, task) == []


def test_a_set_like_filters_order_in_a_task_variable_only_counted_is_not_declined(tmp_path: Path) -> None:
    # what only counts its items reads no order
    task = ("    - debug: {msg: \"{{ packages | length }}\"}\n      when: packages | list | count > 0\n"
            "      vars:\n        packages: \"{{ names | union(more) }}\"\n")
    assert _declined(tmp_path, task) == []


@pytest.mark.parametrize(("task", "files"), [
    ("    - debug: {msg: \"{{ packages }}\"}\n      vars:\n        packages: \"{{ names | union(more) }}\"\n", {}),
    ("    - debug: {msg: \"{{ packages | first }}\"}\n      when: packages | length > 0\n"
     "      vars:\n        packages: \"{{ names | union(more) }}\"\n", {}),
    ("    - debug: {msg: \"{{ x.packages | length }} {{ packages[0] | length }}\"}\n"
     "      vars:\n        packages: \"{{ names | union(more) }}\"\n", {}),
    # read through another variable, in a file of the playbook's directory
    ("    - debug: {msg: \"{{ listed }}\"}\n      vars:\n        packages: \"{{ names | union(more) }}\"\n",
     {"group_vars/all.yml": "listed: \"{{ packages }}\"\n"}),
    # handed on to what an include loads
    ("    - include_tasks: more.yml\n      vars:\n        packages: \"{{ names | union(more) }}\"\n",
     {"more.yml": "- debug: {msg: x}\n"}),
])
def test_a_set_like_filters_order_in_a_task_variable_something_may_read_is_declined(
        tmp_path: Path, task: str, files: dict[str, str]) -> None:
    (problem,) = _declined(tmp_path, task, files)
    assert "hash seed" in problem


UNION_IN_TASK_VARS = "      vars:\n        packages: \"{{ names | union(more) }}\"\n"


@pytest.mark.parametrize("debug", [
    "    - debug: {var: vars}\n",  # every variable, the task's own too
    "    - debug: {msg: \"{{ vars['pack' ~ 'ages'] }}\"}\n",
    "    - debug: {msg: \"{{ lookup('vars', 'pack' + 'ages') }}\"}\n",
])
def test_a_task_variable_read_by_a_built_name_keeps_its_decline(tmp_path: Path, debug: str) -> None:
    (problem,) = _declined(tmp_path, debug + UNION_IN_TASK_VARS)
    assert "hash seed" in problem


def test_a_task_variable_named_by_an_inventory_elsewhere_or_the_extra_vars_keeps_its_decline(tmp_path: Path) -> None:
    inventory = tmp_path / "elsewhere" / "hosts.ini"
    write(tmp_path / "elsewhere", {"hosts.ini": "localhost ansible_connection=local\n",
                                   "group_vars/all.yml": "listed: \"{{ packages }}\"\n"})
    task = "    - debug: {msg: \"{{ listed }}\"}\n" + UNION_IN_TASK_VARS
    (problem,) = _declined(tmp_path / "book", task, inventory=str(inventory))
    assert "hash seed" in problem
    (problem,) = _declined(tmp_path / "other", task, extra_vars={"listed": "{{ packages }}"})
    assert "hash seed" in problem
    assert _declined(tmp_path / "third", task) == []  # listed is undefined: packages is never read
_RESCUE = ("    - block:\n        - {failing}\n      rescue:\n        - debug: {shown}\n")


@pytest.mark.parametrize(("failing", "shown"), [
    ("copy: {content: x, dest: /nonexistent/x}", "{var: ansible_failed_result}"),
    ("template: {src: t.j2, dest: /nonexistent/x}", "{msg: '{{ ansible_failed_result }}'}"),
    ("command: 'false'", "{msg: 'failed with {{ ansible_failed_result }}'}"),
])
def test_a_rescue_that_shows_a_failed_modules_result_whole_is_declined(tmp_path: Path, failing: str,
                                                                       shown: str) -> None:
    # ansible_failed_result keeps the module's invocation: for copy and template a temporary file
    # of the controller; the engine's command invocation has ansible's values, not its key order
    (problem,) = _declined(tmp_path, _RESCUE.format(failing=failing, shown=shown), {"t.j2": "x"})
    assert problem.startswith(f"{tmp_path}/site.yml:7:11: ") and "ansible_failed_result" in problem


@pytest.mark.parametrize(("failing", "shown"), [
    ("copy: {content: x, dest: /nonexistent/x}", "{msg: '{{ ansible_failed_result.msg }}'}"),
    ("command: 'false'", "{var: ansible_failed_result}"),
    ("fail: {msg: no}", "{msg: 'failed: {{ ansible_failed_result }}'}"),
])
def test_a_rescue_that_shows_no_invocation_the_engine_lacks_runs(tmp_path: Path, failing: str, shown: str) -> None:
    assert _declined(tmp_path, _RESCUE.format(failing=failing, shown=shown)) == []


@pytest.mark.parametrize(("play_vars_files", "include"), [
    ("../shared/listed.yml", ""),  # a vars_files entry outside the playbook's directory
    ("{{ env }}.yml", ""),  # one only the run resolves
    ("", "    - include_vars: ../shared/listed.yml\n"),
    ("", "    - include_vars: {dir: ../shared}\n"),
])
def test_a_task_variable_named_by_a_variables_file_elsewhere_keeps_its_decline(tmp_path: Path, play_vars_files: str,
                                                                               include: str) -> None:
    write(tmp_path / "shared", {"listed.yml": "listed: \"{{ packages }}\"\n"})
    task = include + "    - debug: {msg: \"{{ listed }}\"}\n" + UNION_IN_TASK_VARS
    play = "- hosts: all\n  gather_facts: false\n"
    if play_vars_files:
        play += f"  vars_files: ['{play_vars_files}']\n"
    write(tmp_path / "book", {"site.yml": play + "  tasks:\n" + task})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "book" / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    (problem,) = [str(problem) for problem in unknown_module_problems(plan)]
    assert "hash seed" in problem


def test_a_fifo_beside_the_playbook_is_not_waited_on_and_keeps_the_decline(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe")  # opening it for reading would wait for a writer that never comes
    (problem,) = _declined(tmp_path, "    - debug: {msg: done}\n" + UNION_IN_TASK_VARS)
    assert "hash seed" in problem


ROLE_VARS = {"roles/r/vars/main.yml": "packages: \"{{ base | union(extra) }}\"\nbase: [a, b]\nextra: [c]\n",
             "roles/r/tasks/main.yml": "- debug: {msg: run}\n",
             "roles/r/tasks/install.yml": "- debug: {msg: \"{{ packages }}\"}\n",
             "roles/r/templates/conf.j2": "{{ packages }}\n"}


@pytest.mark.parametrize(("tasks", "files", "declined"), [
    # only tasks/main.yml runs: install.yml and the template that read packages are never read
    ("    - import_role: {name: r}\n", {}, False),
    ("    - import_role: {name: r, tasks_from: install}\n", {}, True),
    # read only in the arguments of a task whose condition is false on every host before the run
    ("    - import_role: {name: r, tasks_from: install}\n",
     {"roles/r/tasks/install.yml": "- debug: {msg: \"{{ packages }}\"}\n  when: base | length > 5\n"}, False),
    ("    - import_role: {name: r, tasks_from: install}\n",
     {"roles/r/tasks/install.yml": "- debug: {msg: \"{{ packages }}\"}\n  when: base | length > 1\n"}, True),
    ("    - import_role: {name: r}\n    - template: {src: roles/r/templates/conf.j2, dest: /tmp/x}\n", {}, True),
    # what the plan cannot follow may read it
    ("    - import_role: {name: r}\n    - include_tasks: \"{{ which }}.yml\"\n", {}, True),
    ("    - import_role: {name: r}\n    - debug: {msg: \"{{ lookup('template', 'x.j2') }}\"}\n", {}, True),
    ("    - import_role: {name: r}\n    - debug: {msg: \"{{ vars['pack' + 'ages'] }}\"}\n", {}, True),
    ("    - import_role: {name: r}\n", {"group_vars/all.yml": "shown: \"{{ packages }}\"\n"}, True),
    ("    - import_role: {name: r}\n", {"roles/r/meta/main.yml": "dependencies: [{role: s, x: '{{ packages }}'}]\n"},
     True),
    ("    - import_role: {name: r}\n", {"roles/r/tasks/main.yml": "- block:\n    - debug: {msg: run}\n"
                                                              "  when: packages | first == 'a'\n"}, True),
    ("    - import_role: {name: r}\n", {"roles/other/defaults/main.yml": "shown: \"{{ packages }}\"\n"}, True),
    # the same text written in a task too is the task's
    ("    - import_role: {name: r}\n    - debug: {msg: \"{{ base | union(extra) }}\"}\n", {}, True),
])
def test_a_set_like_filters_order_in_a_role_variable_the_run_never_reads_is_not_declined(
        tmp_path: Path, tasks: str, files: dict[str, str], declined: bool) -> None:
    """A role variable is templated where it is used: one whose name no text the run may render
    writes (the plan's tasks, the role variables and templates they use, playbooks, meta,
    inventory, vars files) never shows the order of its set-like filter."""
    files = {**ROLE_VARS, **files}
    if "roles/r/meta/main.yml" in files:
        files["roles/s/tasks/main.yml"] = "- debug: {msg: s}\n"
    problems = _declined(tmp_path, tasks, files)
    assert any("hash seed" in problem for problem in problems) == declined


@pytest.mark.parametrize("shown", ["{msg: \"{{ vars }}\"}", "{msg: \"{{ hostvars[inventory_hostname] | to_json }}\"}",
                                   "{var: \"hostvars[inventory_hostname]\"}"])
def test_a_debug_of_every_variable_keeps_the_declines_of_unread_variables(tmp_path: Path, shown: str) -> None:
    problems = _declined(tmp_path, "    - import_role: {name: r}\n    - debug: " + shown + "\n", ROLE_VARS)
    assert any("hash seed" in problem for problem in problems)


@pytest.mark.parametrize(("bound", "value"), [("_MAX_FILES", 2), ("_MAX_TOTAL_READ", 64)])
def test_more_files_than_the_preflight_reads_keep_the_decline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             bound: str, value: int) -> None:
    """A playbook at the top of a large tree: the relief would read every file below it before
    the run; past the bound it reads none, and the order stays declined."""
    from engine.run import declines

    files = {f"notes/n{number}.txt": "nothing of interest here\n" for number in range(4)}
    assert _declined(tmp_path, "    - debug: {msg: done}\n" + UNION_IN_TASK_VARS, files) == []
    monkeypatch.setattr(declines, bound, value)
    (problem,) = _declined(tmp_path, "    - debug: {msg: done}\n" + UNION_IN_TASK_VARS, files)
    assert "hash seed" in problem


FOUND_VARS = ("- include_vars: \"{{ lookup('first_found', params) }}\"\n  vars:\n    params:\n"
              "      files: [\"{{ ansible_facts['os_family'] | lower }}.yml\", default.yml]\n      paths: [%s]\n"
              "- include_vars: %s\n"
              "- debug: {msg: done}\n  vars:\n    packages: \"{{ names | union(more) }}\"\n")


@pytest.mark.parametrize(("paths", "name", "declined"), [
    ("\"{{ role_path }}/vars\"", "\"{{ method }}_install.yml\"", False),
    ("vars", "\"{{ ansible_os_family | lower }}.yml\"", False),
    # a path or name that may lead out of the role: a file the plan does not read may name the variable
    ("/etc/vars", "main.yml", True),
    ("\"{{ role_path }}/vars\"", "\"/etc/{{ method }}.yml\"", True),
    ("\"{{ role_path }}/../vars\"", "main.yml", True),
    ("\"{{ other_path }}/vars\"", "main.yml", True),
])
def test_a_role_variables_file_named_by_a_template_within_the_role_keeps_the_relief(
        tmp_path: Path, paths: str, name: str, declined: bool) -> None:
    # a task variable nothing names is never rendered, unless a file loaded at run time may name it
    files = {"roles/r/tasks/main.yml": FOUND_VARS % (paths, name), "roles/r/vars/default.yml": "x: 1\n",
             "roles/r/vars/main.yml": "y: 1\n"}
    problems = _declined(tmp_path, "    - import_role: {name: r}\n", files)
    assert bool(problems) is declined and all("hash seed" in problem for problem in problems)


LSR_SET_VARS = ("- include_vars: \"{{ __vars_file }}\"\n  loop:\n"
                "    - \"{{ ansible_facts['os_family'] }}.yml\"\n"
                "    - \"{{ ansible_facts['distribution'] ~ '_' ~ ansible_facts['distribution_version'] }}.yml\"\n"
                "  vars:\n    __vars_file: \"%s\"\n  when: __vars_file is file\n"
                "- debug: {msg: done}\n")


@pytest.mark.parametrize(("path", "extra", "declined"), [
    ("{{ role_path }}/vars/{{ item }}", {}, False),
    # another file of the role's vars/ names the variable: it may read it
    ("{{ role_path }}/vars/{{ item }}", {"roles/r/vars/RedHat.yml": "x: \"{{ subsets }}\"\n"}, True),
    ("/etc/{{ item }}", {}, True),
])
def test_a_role_variable_nothing_reads_beside_a_looped_include_vars_of_the_role_is_not_declined(
        tmp_path: Path, path: str, extra: dict[str, str], declined: bool) -> None:
    # linux-system-roles' set_vars: the platform's vars files, a role variable made by difference
    files = {"roles/r/tasks/main.yml": LSR_SET_VARS % path,
             "roles/r/vars/main.yml": "subsets: \"{{ ['!all'] + facts | difference(skipped) }}\"\n", **extra}
    problems = _declined(tmp_path, "    - import_role: {name: r}\n", files)
    assert bool(problems) is declined and all("hash seed" in problem for problem in problems)


KNOWN_ITEMS_INVENTORY = ("[web]\nweb1 admins='[\"alice\", \"Bob\"]' ports='[8080, 443]'\n"
                         "web2 admins='[\"carol\", \"alice\"]' ports='[80]'\n[db]\ndb1 admins='[\"ALICE\"]'\n")


def _declined_on_inventory(root: Path, tasks: str, inventory: str = KNOWN_ITEMS_INVENTORY,
                           files: dict[str, str] | None = None) -> list[str]:
    write(root, {"hosts.ini": inventory})
    return _declined(root, tasks, files, inventory=str(root / "hosts.ini"))


@pytest.mark.parametrize("known", [
    "{{ groups['web'] | union(groups['db']) | sort }}",
    "{{ admins | union(['root']) | sort | join(',') }} {{ admins | union(['root']) | max }}",
    "{{ hostvars['web1'].admins | intersect(hostvars['web2'].admins) | join(',') }}",  # one item
    "{{ ports | default([]) | union([22, 443]) | join(',') }}",  # numbers: no hash seed orders them
    "{{ admins | difference(['x']) | unique | sort }}",
])
def test_a_set_like_filters_order_its_known_items_decide_is_not_declined(tmp_path: Path, known: str) -> None:
    # the items are known before the run on every host, and none two are equal but for case
    assert _declined_on_inventory(tmp_path, f"    - debug: {{msg: \"{known}\"}}\n") == []


@pytest.mark.parametrize(("tasks", "files"), [
    # db1's ALICE and the play's alice: which comes first is the hash seed's
    ("    - debug: {msg: \"{{ admins | union(['alice']) | sort }}\"}\n", {}),
    # shown in the set's order
    ("    - debug: {msg: \"{{ admins | union(['root']) | join(',') }}\"}\n", {}),
    # known only at run time
    ("    - command: echo a\n      register: r\n    - debug: {msg: \"{{ r.stdout_lines | union(admins) | sort }}\"}\n",
     {}),
    ("    - debug: {msg: \"{{ admins | union([item]) | sort }}\"}\n      loop: [x, y]\n", {}),
    # a set_fact before the task makes web2's list tie
    ("    - set_fact: {admins: [Carol, carol]}\n      when: inventory_hostname == 'web2'\n"
     "    - debug: {msg: \"{{ admins | union([]) | sort }}\"}\n", {}),
    # a name the template binds itself is not the variable of the same name
    ("    - template: {src: t.j2, dest: /tmp/x}\n",
     {"t.j2": "{% for admins in [['a', 'A']] %}{{ admins | union(['b']) | sort }}{% endfor %}\n"}),
])
def test_a_set_like_filters_order_its_items_do_not_decide_is_declined(
        tmp_path: Path, tasks: str, files: dict[str, str]) -> None:
    (problem,) = _declined_on_inventory(tmp_path, tasks, files=files)
    assert "hash seed" in problem


def test_a_set_like_filter_in_the_arguments_of_a_task_skipped_on_every_host_is_not_declined(tmp_path: Path) -> None:
    # the action's arguments are rendered only where the task's conditions hold; its loop is not
    task = ("    - set_fact: {found: \"{{ users.file.keys() | list | intersect(reserved) }}\"}\n"
            "      when: users is defined\n")
    assert _declined_on_inventory(tmp_path, task) == []
    (problem,) = _declined_on_inventory(tmp_path, task.replace("users is defined", "admins is defined"))
    assert "hash seed" in problem


def test_a_set_like_filter_of_a_templates_loop_variable_is_known_at_every_item(tmp_path: Path) -> None:
    template = "{% for h in groups['web'] %}{{ hostvars[h].admins | union(['root']) | sort }}{% endfor %}\n"
    tasks = "    - template: {src: t.j2, dest: /tmp/x}\n"
    assert _declined_on_inventory(tmp_path, tasks, files={"t.j2": template}) == []
    # db1's ALICE meets web1's alice
    template = template.replace("groups['web']", "groups['all']").replace("['root']", "hostvars['web1'].admins")
    (problem,) = _declined_on_inventory(tmp_path, tasks, files={"t.j2": template})
    assert "hash seed" in problem


def test_a_set_like_filter_of_a_play_variable_is_known_at_every_task(tmp_path: Path) -> None:
    """A play's variable is rendered where a task reads it: a set_fact that makes its items tie on
    one host, before any task that reads it, keeps the decline."""
    write(tmp_path, {"hosts.ini": KNOWN_ITEMS_INVENTORY})
    play = ("- hosts: all\n  gather_facts: false\n  vars:\n    everyone: \"{{ admins | union(['root']) | sort }}\"\n"
            "  tasks:\n    - debug: {msg: \"{{ everyone }}\"}\n")
    tie = "    - set_fact: {admins: [Root]}\n    - debug: {msg: \"{{ everyone }}\"}\n"
    for tasks, declined in (("", False), (tie, True)):
        (tmp_path / "site.yml").write_text(play + tasks)
        plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "hosts.ini")]),
                             has_module=lambda action: True)
        assert any("hash seed" in str(problem) for problem in unknown_module_problems(plan)) is declined


@pytest.mark.parametrize(("lines", "writer", "declined"), [
    ("nginx\nredis\n", "", False),
    ("nginx\nNginx\n", "", True),  # two items that tie in the sort: the hash seed orders them
    # a task that may write the file before the lookup reads it: only the run knows its lines
    ("nginx\nredis\n", "    - copy: {content: \"x\\n\", dest: \"{{ playbook_dir }}/current.txt\"}\n", True),
    ("nginx\nredis\n", "    - shell: echo Redis >> current.txt\n", True),
])
def test_a_set_like_filter_of_a_file_no_task_writes_is_known_before_the_run(
        tmp_path: Path, lines: str, writer: str, declined: bool) -> None:
    task = ("    - debug: {msg: \"{{ ['redis', 'curl'] | symmetric_difference(current) | sort }}\"}\n"
            "      vars:\n        current: \"{{ lookup('file', 'current.txt').splitlines() }}\"\n")
    problems = _declined(tmp_path, writer + task, {"current.txt": lines})
    assert any("hash seed" in problem for problem in problems) is declined


@pytest.mark.parametrize(("tasks", "files", "what"), [
    ("    - debug: {msg: \"{{ lookup('url', 'https://x', ca_path='/etc/ca.pem') }}\"}\n", {}, "ca_path"),
    ("    - debug: {msg: \"{{ lookup('ansible.builtin.url', 'https://x', ciphers=my_ciphers) }}\"}\n", {}, "ciphers"),
    ("    - debug: {msg: \"{{ query('url', 'https://x', follow_redirects='no') }}\"}\n", {},
     "follow_redirects yes/no"),
    # a setting the plugin reads from a variable
    ("    - debug: {msg: \"{{ lookup('url', 'https://x') }}\"}\n",
     {"group_vars/all.yml": "ansible_lookup_url_unredir_headers: [Authorization]\n"},
     "ansible_lookup_url_unredir_headers"),
])
def test_a_url_lookup_option_the_engine_does_not_do_is_declined(
        tmp_path: Path, tasks: str, files: dict[str, str], what: str) -> None:
    (problem,) = _declined(tmp_path, tasks, files)
    assert f"the url lookup's {what}" in problem


def test_a_url_lookup_setting_from_the_environment_is_declined(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    task = "    - debug: {msg: \"{{ lookup('url', 'https://x', ca_path=none, timeout=3) }}\"}\n"
    assert _declined(tmp_path, task) == []
    monkeypatch.setenv("ANSIBLE_LOOKUP_URL_CIPHERS", "ECDHE")
    (problem,) = _declined(tmp_path, task)
    assert "the url lookup's ANSIBLE_LOOKUP_URL_CIPHERS" in problem


@pytest.mark.parametrize(("include", "what"), [
    ("{% include 'part.j2' %}", "hash seed"),
    ("{% import 'part.j2' as p %}{{ p.x }}", "hash seed"),
    ("{% from 'part.j2' import x %}", "hash seed"),
    ("{% include ['missing.j2', 'part.j2'] %}", "hash seed"),
])
def test_a_set_like_filter_in_a_template_another_includes_is_declined(tmp_path: Path, include: str,
                                                                      what: str) -> None:
    # found where the template action's loader looks: templates/ beside the playbook
    files = {"templates/t.j2": include + "\n", "templates/part.j2": "{{ admins | union(['root']) | join(',') }}\n"}
    (problem,) = _declined_on_inventory(tmp_path, "    - template: {src: t.j2, dest: /tmp/x}\n", files=files)
    assert what in problem and "templates/part.j2:1" in problem


def test_a_filter_the_engine_lacks_in_an_included_template_is_declined(tmp_path: Path) -> None:
    files = {"templates/t.j2": "{% include 'part.j2' %}\n", "templates/part.j2": "{{ 'x' | password_hash }}\n"}
    (problem,) = _declined(tmp_path, "    - template: {src: t.j2, dest: /tmp/x}\n", files)
    assert "has no filter 'password_hash'" in problem and "part.j2" in problem


def test_a_fact_the_engine_does_not_gather_is_declined_when_facts_are_gathered(tmp_path: Path) -> None:
    """ansible's setup gathers network, virtualization and mount facts the engine's does not: read
    after gathering, they would be undefined in the engine only."""
    tasks = ("    - setup:\n    - debug: {msg: \"{{ ansible_default_ipv4.address }}\"}\n"
             "    - debug: {msg: \"{{ ansible_facts['mounts'] | length }} {{ ansible_distribution }}\"}\n")
    declined = _declined(tmp_path, tasks)
    assert [("ansible_default_ipv4" in p, "ansible_mounts" in p) for p in declined] == [(True, False), (False, True)]
    assert "ansible_distribution" not in " ".join(declined)


def test_an_ungathered_fact_is_not_declined_when_no_facts_are_gathered(tmp_path: Path) -> None:
    """Without gathering, the fact is undefined in ansible too: the run is the same."""
    assert _declined(tmp_path, "    - debug: {msg: \"{{ ansible_default_ipv4 | default('none') }}\"}\n") == []

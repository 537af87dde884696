"""What the engine does not reproduce exactly is declined by the plan, before anything runs
(engine.run.declines): arguments, meta actions, lookups and tests, with where they are written."""

from __future__ import annotations

import sys
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


def test_a_test_or_lookup_of_a_collection_not_installed_fails_alike(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible fails "No test named 'ansible.utils.ipv4'" as the engine does, and a lookup of a
    collection not installed "was not found", after the plugin loader's warning."""
    from engine.run.collection_lookups import load_failure
    from engine.run.preflight import make_run_plan

    _install(tmp_path / "installed", monkeypatch, "community/other")
    tasks = ("    - debug: {msg: x}\n      when: \"'a' is ansible.utils.ipv4\"\n"
             "    - debug: {msg: \"{{ query('community.general.dig', 'x') }}\"}\n"
             "    - debug: {msg: \"{{ lookup('filetree', '/x') }}\"}\n")
    assert _declined(tmp_path, tasks) == []
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]))
    collections = plan.playbook.plugins.collections
    assert load_failure("community.general.dig", collections) == (
        "Error loading plugin 'community.general.dig': No module named 'ansible_collections.community.general'")
    assert load_failure("foo.bar.baz", collections) == (
        "Error loading plugin 'foo.bar.baz': No module named 'ansible_collections.foo'")
    assert load_failure("community.other.x", collections) is None  # installed: ansible runs it


def test_a_with_loop_of_a_lookup_ansible_cannot_find_stops_the_load(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """In ansible's words, unless a lookup_plugins directory may hold it (then it is declined)."""
    from engine.flow.plan import PlanError

    _install(tmp_path / "installed", monkeypatch, "community/other")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ansible/plugins/lookup
    with pytest.raises(PlanError) as stopped:
        _declined(tmp_path, "    - debug: {msg: x}\n      with_my_own_lookup: [1]\n")
    assert stopped.value.exit_code == 4 and str(stopped.value).endswith(
        "site.yml:5:7: 'with_my_own_lookup' is not a valid attribute for a Task")
    assert stopped.value.ansible_text is not None and stopped.value.ansible_text.startswith(
        "[ERROR]: 'with_my_own_lookup' is not a valid attribute for a Task\nThis error can be suppressed")
    (tmp_path / "lookup_plugins").mkdir()
    (problem,) = _declined(tmp_path, "    - debug: {msg: x}\n      with_my_own_lookup: [1]\n")
    assert "does not implement 'lookup my_own_lookup'" in problem


@pytest.mark.parametrize(("task", "what"), [
    ("    - meta: end_everything\n", "meta: end_everything (not a meta action)"),
    ("    - uri: {url: 'http://x', body_format: form-multipart}\n", "uri: body_format=form-multipart"),
    ("    - unarchive: {src: 'https://x/a.tgz', dest: d}\n", "unarchive: a URL src"),
    ("    - file: {path: x, attributes: '+i'}\n", "file: attributes"),
    ("    - copy: {content: x, dest: y, attr: e}\n", "copy: attr"),
    ("    - template: {src: t.j2, dest: y, attributes: \"{{ 'e' if true else '' }}\", attr: a}\n", "template: attr"),
    ("    - debug: {msg: \"{{ query('community.general.dig', 'x') }}\"}\n", "lookup community.general.dig"),
    ("    - debug: {msg: x}\n      with_community.general.cartesian: [[1], [2]]\n",
     "lookup community.general.cartesian"),
    # a short name ansible-core routes to a collection, and a with_ loop of a lookup ansible-core
    # lacks (its load fails unless a collection or lookup_plugins/ offers it)
    ("    - debug: {msg: \"{{ lookup('cartesian', [1], [2]) }}\"}\n", "lookup cartesian"),
    ("    - debug: {msg: x}\n      with_cartesian: [[1], [2]]\n", "lookup cartesian"),
    ("    - debug: {msg: x}\n      when: \"'a' is ansible.utils.ipv4\"\n", "test ansible.utils.ipv4"),
    ("    - debug: {msg: x}\n      when: \"'a' is vault_encrypted\"\n", "test vault_encrypted"),
])
def test_what_the_engine_does_not_do_exactly_is_declined_where_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, what: str) -> None:
    _install(tmp_path / "installed", monkeypatch, "ansible/utils", "community/general")
    (problem,) = _declined(tmp_path, task)
    assert problem.startswith(f"{tmp_path}/site.yml:4:7: ") and f"does not implement '{what}'" in problem


def test_a_collection_lookup_the_engine_has_runs_where_the_collection_is_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tmp_path / "installed", monkeypatch, "community/general")
    tasks = ("    - debug: {msg: \"{{ lookup('filetree', '/x') }}\"}\n"
             "    - debug: {msg: x}\n      with_filetree: /x\n"
             "    - debug: {msg: x}\n      with_community.general.filetree: /x\n")
    assert _declined(tmp_path, tasks) == []


def test_what_the_engine_does_is_not_declined(tmp_path: Path) -> None:
    tasks = ("    - include_vars: {file: vars/a.yml}\n    - include_vars: {dir: vars, depth: 1}\n"
             "    - include_vars: {dir: vars, hash_behaviour: merge}\n"
             "    - debug: {msg: \"{{ lookup('file', 'a') }} {{ 'x' is match('x') }}\"}\n"
             "    - debug: {msg: x}\n      with_items: [1]\n"
             "    - meta: end_batch\n    - meta: clear_facts\n    - meta: clear_host_errors\n    - meta: noop\n"
             "    - set_stats: {data: {a: 1}}\n"
             "    - template: {src: a.j2, dest: b, variable_start_string: '[[', block_start_string: '[%'}\n"
             "    - debug: {msg: \"{{ lookup('ini', 'k', file='a.ini') }} {{ lookup('csvfile', 'k') }}\"}\n"
             "    - debug: {msg: \"{{ lookup('url', 'https://x', split_lines=False) }}\"}\n"
             "    - debug: {msg: \"{{ query('inventory_hostnames', 'all:!db') }}\"}\n"
             # a name ansible does not know either fails alike in both
             "    - debug: {msg: \"{{ lookup('no_such_lookup', 'x') }} {{ 1 is no_such_test }}\"}\n")
    assert _declined(tmp_path, tasks) == []


def test_a_lookup_in_a_template_file_is_found_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tmp_path / "installed", monkeypatch, "community/general")
    problems = _declined(tmp_path, "    - template: {src: t.j2, dest: out}\n",
                         {"templates/t.j2": "a\n{{ lookup('community.general.dig', 'x') }}\n"})
    assert [p.split(": playbook-ls")[0] for p in problems] == [f"{tmp_path}/templates/t.j2:2:1"]
    assert "'lookup community.general.dig'" in problems[0]


# slurp's results keep an invocation the engine does not make
LOOPED_COPY = "    - slurp: {src: 'out/{{ item }}'}\n      loop: [a, b]\n      register: written\n"


@pytest.mark.parametrize("task", [
    "    - debug: {msg: \"{{ item.dest }}\"}\n      loop: \"{{ written.results }}\"\n",
    "    - debug: {msg: x}\n      with_items: \"{{ written.results | selectattr('changed') | list }}\"\n",
    "    - debug: {var: written}\n",
    "    - debug: {var: written.results}\n",
    "    - debug: {msg: \"all: {{ written.results[0] }}\"}\n",
])
def test_a_looped_modules_results_shown_whole_are_declined(tmp_path: Path, task: str) -> None:
    # each item result of a looped module keeps its invocation (the module's arguments), which the
    # engine does not make for slurp
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


def test_a_filter_the_engine_lacks_in_an_included_template_is_declined(tmp_path: Path) -> None:
    files = {"templates/t.j2": "{% include 'part.j2' %}\n", "templates/part.j2": "{{ 'x' | password_hash }}\n"}
    (problem,) = _declined(tmp_path, "    - template: {src: t.j2, dest: /tmp/x}\n", files)
    assert "has no filter 'password_hash'" in problem and "part.j2" in problem


def test_a_fact_the_engine_does_not_gather_is_declined_when_facts_are_gathered(tmp_path: Path) -> None:
    """ansible's setup gathers virtualization and mount facts the engine's does not: read after
    gathering, they would be undefined in the engine only. The network and system-file facts it
    gathers are not declined."""
    tasks = ("    - setup:\n"
             "    - debug: {msg: \"{{ ansible_virtualization_type }} {{ ansible_default_ipv4.address }}\"}\n"
             "    - debug: {msg: \"{{ ansible_facts['mounts'] | length }} {{ ansible_distribution }}\"}\n"
             "    - debug: {msg: \"{{ ansible_dns }} {{ ansible_eth0 | default(1) }}\"}\n"
             "    - debug: {msg: \"{{ ansible_bios_date }} {{ ansible_uptime_seconds }} {{ ansible_loadavg }}\"}\n")
    declined = _declined(tmp_path, tasks)
    assert [("ansible_virtualization_type" in p, "ansible_mounts" in p) for p in declined] == \
        [(True, False), (False, True)]


def test_an_ungathered_fact_is_not_declined_when_no_facts_are_gathered(tmp_path: Path) -> None:
    """Without gathering, the fact is undefined in ansible too: the run is the same."""
    assert _declined(tmp_path, "    - debug: {msg: \"{{ ansible_default_ipv4 | default('none') }}\"}\n") == []


def test_module_defaults_the_engine_cannot_resolve_are_declined(tmp_path: Path) -> None:
    """An action group, a module the engine does not run, an action it carries out itself and
    defaults given as a template; a module it runs, by any of its names, is not declined."""
    tasks = ("    - copy: {content: x, dest: out}\n"
             "      module_defaults:\n"
             "        copy: {mode: '0600'}\n"
             "        ansible.legacy.file: {mode: '0700'}\n"
             "        ansible.builtin.lineinfile: {create: true}\n"
             "        ini_file: {create: true}\n"
             "    - debug: {msg: x}\n"
             "      module_defaults:\n"
             "        group/testgroup: {data: x}\n"
             "        apt: {update_cache: true}\n"
             "        set_fact: {x: 1}\n"
             "        command: '{{ command_defaults }}'\n"
             "    - debug: {msg: y}\n"
             "      module_defaults: '{{ all_defaults }}'\n")
    declined = "\n".join(_declined(tmp_path, tasks))
    for what in ("module_defaults for the action group testgroup",
                 "module_defaults for apt, a module the engine does not run",
                 "module_defaults for set_fact, a module the engine does not run",
                 "module_defaults for command given as a template",
                 "module_defaults that are not a mapping of module names"):
        assert what in declined
    assert len(_declined(tmp_path, tasks)) == 5


def test_sameas_on_values_ansible_tags_is_declined(tmp_path: Path) -> None:
    """ansible's values from the playbook and files are tagged copies: ``x is sameas 5`` is false
    there; against true, false or none, or between literals, the engine's answer is ansible's."""
    exact = ("    - debug: {msg: \"{{ x is sameas true }} {{ y is sameas none }} {{ 5 is sameas 5 }}\"}\n"
             "      vars: {x: true, y: null}\n")
    assert _declined(tmp_path, exact) == []
    declined = _declined(tmp_path, exact + "    - debug: {msg: \"{{ x is sameas 5 }}\"}\n      vars: {x: 5}\n")
    assert len(declined) == 1 and "the test sameas on a value the playbook or a file holds" in declined[0]


def test_refresh_inventory_is_declined_where_the_inventory_may_give_other_hosts(tmp_path: Path) -> None:
    """A no-op for the engine: exact with a host list or a file no task names; declined after
    add_host or group_by, with a script, or where a task may write the inventory file."""
    refresh = "    - meta: refresh_inventory\n"
    assert _declined(tmp_path, "    - debug: {msg: x}\n" + refresh, inventory="a,b") == []
    write(tmp_path, {"hosts.ini": "localhost ansible_connection=local\n"})
    inventory = str(tmp_path / "hosts.ini")
    assert _declined(tmp_path, "    - copy: {content: x, dest: out}\n" + refresh, inventory=inventory) == []
    for tasks, why in [
        ("    - copy: {content: x, dest: hosts.ini}\n", "an inventory file a task may write"),
        ("    - lineinfile: {path: '{{ inventory_file }}', line: x}\n", "an inventory file a task may write"),
        ("    - add_host: {name: new}\n", "a playbook that runs add_host or group_by"),
    ]:
        (problem,) = _declined(tmp_path, tasks + refresh, inventory=inventory)
        assert f"meta: refresh_inventory in {why}" in problem or f"meta: refresh_inventory with {why}" in problem
    (tmp_path / "script.sh").write_text("#!/bin/sh\necho '{}'\n")
    (tmp_path / "script.sh").chmod(0o755)
    (problem,) = _declined(tmp_path, refresh, inventory=str(tmp_path / "script.sh"))
    assert "a script, a plugin or a directory" in problem


def test_an_argument_the_copy_module_does_not_know_is_run_as_the_module_refuses_it(tmp_path: Path) -> None:
    """ansible's copy and template actions hand an unknown argument to the copy module, which
    refuses it where it writes a file (tests/run/scenarios/copy_arguments_the_module_refuses):
    the run is not declined; ``thirsty`` is no alias of ansible-core 2.19's copy module."""
    tasks = ("    - copy: {content: x, dest: out, bogus_opt: 1, force: true}\n"
             "    - template: {src: t.j2, dest: out2, lstrip_blocks: true, thirsty: false}\n"
             "    - copy: {content: x, dest: out3, mode: '0600', decrypt: false}\n")
    assert _declined(tmp_path, tasks, {"t.j2": "x\n"}) == []


def test_a_host_whose_python_does_not_start_is_declined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible fails every Python module of a host whose interpreter (set, or discovered the way
    ansible discovers it) does not start; the engine runs its modules itself, so the plan
    declines the run. Tasks that run no Python module (debug) need none."""
    monkeypatch.delenv("ANSIBLE_PYTHON_INTERPRETER", raising=False)
    broken = tmp_path / "bin" / "brokenpy"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\necho 'pyenv: brokenpy: command not found' >&2\nexit 127\n")
    broken.chmod(0o755)
    inventory = tmp_path / "hosts.ini"
    inventory.write_text(f"set ansible_connection=local ansible_python_interpreter={broken}\n"
                         "found ansible_connection=local "
                         f"ansible_interpreter_python_fallback=\"['nope-py', '{broken}']\"\n"
                         f"fine ansible_connection=local ansible_python_interpreter={sys.executable}\n")
    problems = _declined(tmp_path, "    - command: echo hi\n", inventory=str(inventory))
    assert [p for p in problems if "does not start" in p] == [
        f"playbook-ls's engine does not implement 'modules run with {broken}, which does not start "
        f"(the Python of host '{host}')'. Run with --engine ansible to use ansible-playbook."
        for host in ("set", "found")]
    assert not [p for p in _declined(tmp_path, "    - debug: {msg: hi}\n", inventory=str(inventory))
                if "does not start" in p]


def test_an_extra_vars_python_is_the_one_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-e ansible_python_interpreter=...`` is above the inventory's and the playbook's values (extra
    vars come first in ansible's precedence): the Python checked is that one, so a broken
    inventory or play value it overrides declines nothing, and a broken one it gives does."""
    monkeypatch.delenv("ANSIBLE_PYTHON_INTERPRETER", raising=False)
    broken = tmp_path / "bin" / "brokenpy"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\nexit 127\n")
    broken.chmod(0o755)
    (tmp_path / "bin" / "brokenpy2").symlink_to(broken)
    write(tmp_path, {"hosts.ini": f"local ansible_connection=local ansible_python_interpreter={broken}\n",
                     "roles/db/vars/main.yml": f"ansible_python_interpreter: {broken}2\n",
                     "roles/db/tasks/main.yml": "- command: echo hi\n"})
    tasks = "    - command: echo hi\n    - include_role: {name: db}\n"
    inventory = str(tmp_path / "hosts.ini")
    assert len([p for p in _declined(tmp_path, tasks, inventory=inventory) if "does not start" in p]) == 2
    fine = {"ansible_python_interpreter": sys.executable}
    assert [p for p in _declined(tmp_path, tasks, inventory=inventory, extra_vars=fine) if "does not start" in p] == []
    bad = {"ansible_python_interpreter": str(broken)}
    assert len([p for p in _declined(tmp_path, "    - command: echo hi\n", inventory="localhost,", extra_vars=bad)
                if "does not start" in p]) == 1


def test_a_python_the_playbook_or_a_role_sets_that_does_not_start_is_declined(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ansible_python_interpreter`` written in a role's defaults (or play, block or task vars, a
    set_fact) reaches the host's modules as the inventory's does: one that does not start is
    declined, wherever it is written; a template's value is left to the run."""
    monkeypatch.delenv("ANSIBLE_PYTHON_INTERPRETER", raising=False)
    broken = tmp_path / "bin" / "brokenpy"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\nexit 127\n")
    broken.chmod(0o755)
    write(tmp_path, {"roles/db/defaults/main.yml": f"ansible_python_interpreter: {broken}\n",
                     "roles/db/tasks/main.yml": "- command: echo hi\n",
                     "roles/web/defaults/main.yml": "ansible_python_interpreter: \"{{ ansible_playbook_python }}\"\n",
                     "roles/web/tasks/main.yml": "- command: echo hi\n"})
    write(tmp_path, {"unset.ini": "local ansible_connection=local\n",
                     "set.ini": f"local ansible_connection=local ansible_python_interpreter={sys.executable}\n"})
    problems = [p for p in _declined(tmp_path, "    - include_role: {name: db}\n    - include_role: {name: web}\n",
                                     inventory=str(tmp_path / "unset.ini"))
                if f"modules run with {broken}" in p]
    assert len(problems) == 1 and "which does not start" in problems[0]
    assert "roles/db/defaults/main.yml" in problems[0]
    # the inventory's value is above a role's default: the broken default reaches no host
    assert not [p for p in _declined(tmp_path, "    - include_role: {name: db}\n", inventory=str(tmp_path / "set.ini"))
                if "does not start" in p]
    write(tmp_path, {"roles/db/vars/main.yml": f"ansible_python_interpreter: {broken}\n"})  # above the inventory
    assert [p for p in _declined(tmp_path, "    - include_role: {name: db}\n", inventory=str(tmp_path / "set.ini"))
            if f"modules run with {broken}" in p]


def test_an_action_group_is_declined_only_where_its_defaults_may_reach_a_module_the_engine_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible-core's ``aws`` group extends the collections' groups (none installed here adds
    nothing); a collection's group of its own modules: neither reaches a module the engine runs,
    so their defaults change nothing the engine does. ansible-core's ``testgroup`` holds ``ping``;
    a group ansible cannot resolve stops its load: both declined."""
    _install(tmp_path / "installed", monkeypatch)
    runtime = tmp_path / "installed" / "ansible_collections" / "acme" / "cloud" / "meta" / "runtime.yml"
    runtime.parent.mkdir(parents=True)
    runtime.write_text("requires_ansible: '>=2.15'\naction_groups:\n  cloud:\n    - instance\n    - acme.cloud.volume\n"
                       "  mixed:\n    - instance\n    - ansible.builtin.copy\n"
                       "  wider:\n    - metadata:\n        extend_group: [mixed, other.coll.nope]\n"
                       "  routed:\n    - old_copy\n"
                       "plugin_routing:\n  modules:\n    old_copy:\n      redirect: ansible.builtin.copy\n"
                       "  # after the groups\n")
    tasks = ("    - copy: {content: x, dest: out}\n"
             "      module_defaults:\n"
             "        group/aws: {region: x}\n"
             "        group/acme.cloud.cloud: {region: x}\n")
    assert _declined(tmp_path, tasks) == []
    for group in ("testgroup", "acme.cloud.mixed", "acme.cloud.wider", "acme.cloud.routed", "nosuchgroup",
                  "acme.cloud.nosuch", "other.coll.grp"):
        task = f"    - debug: {{msg: x}}\n      module_defaults:\n        group/{group}: {{}}\n"
        declined = _declined(tmp_path, task)
        assert [f"module_defaults for the action group {group}" in problem for problem in declined] == [True], group


def test_an_action_group_in_a_runtime_file_that_cannot_be_read_is_declined_without_waiting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A collection's ``meta/runtime.yml`` that is a FIFO is read as no file (bounded, never a
    blocking read): its group does not resolve, which stops ansible's load, so the run is declined."""
    import os
    import threading

    _install(tmp_path / "installed", monkeypatch)
    runtime = tmp_path / "installed" / "ansible_collections" / "acme" / "cloud" / "meta" / "runtime.yml"
    runtime.parent.mkdir(parents=True)
    os.mkfifo(runtime)
    found: list[list[str]] = []
    reader = threading.Thread(target=lambda: found.append(_declined(
        tmp_path, "    - debug: {msg: x}\n      module_defaults:\n        group/acme.cloud.cloud: {}\n")), daemon=True)
    reader.start()
    reader.join(60)
    if reader.is_alive():  # the blocked reader is left behind; a writer ends it
        with open(runtime, "w"):
            pass
    assert found, "reading the runtime.yml FIFO blocked"
    assert ["module_defaults for the action group acme.cloud.cloud" in problem for problem in found[0]] == [True]

"""The run's lookups (engine.run.file_and_command_lookups) against ansible-core 2.19's lookup plugins: results,
wantlist/errors handling, search paths, with_<lookup> loops; and the safety rule that a templar
made without a lookup context (the editor's variable report) never runs one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers import run_playbook, write

from engine.flow.loops import loop_items
from engine.run.file_and_command_lookups import LookupContext, task_context
from engine.templating.templar import Templar, TemplateFailure


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path, {
        "files/greeting.txt": "hello\n\n",
        "greeting.txt": "top\n",
        "files/second.yml": "x\n",
        "files/globbed/a.conf": "a\n",
        "files/globbed/b.conf": "b\n",
        "files/globbed/c.txt": "c\n",
        "templates/t.j2": "v={{ v }} extra={{ extra | default('none') }}\n",
        "roles/r/files/greeting.txt": "role\n",
        "roles/r/tasks/main.yml": "- debug:\n",
    })
    return tmp_path


def templar(root: Path, variables: dict[str, Any] | None = None, role: bool = False, action: str = "debug") -> Templar:
    context = task_context(str(root / "roles/r") if role else None,
                           str(root / ("roles/r/tasks/main.yml" if role else "site.yml")), str(root), action)
    return Templar({"v": 1, "lk_a": 1, "lk_b": 2, **(variables or {})}, lookups=context)


def ev(t: Templar, expression: str) -> Any:
    return t.template("{{ " + expression + " }}")


# -- safety --------------------------------------------------------------------------------------
def test_templar_without_lookups_never_runs_one(tmp_path: Path) -> None:
    marker = tmp_path / "X"
    plain = Templar({})
    for expression in (f"lookup('pipe', 'touch {marker}')", f"query('pipe', 'touch {marker}')",
                       f"q('lines', 'touch {marker}')"):
        with pytest.raises(TemplateFailure):
            ev(plain, expression)
    with pytest.raises(TemplateFailure):
        plain.run_lookup("pipe", [f"touch {marker}"])
    with pytest.raises(TemplateFailure):  # nor through a child (a loop item's templar)
        ev(plain.child({"item": 1}), f"lookup('pipe', 'touch {marker}')")
    assert not marker.exists()


def test_var_report_does_not_run_lookups(tmp_path: Path) -> None:
    """The editor's "which value has this variable" never runs a lookup (pipe, password...)."""
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.task_variables import variables_at

    marker, secret = tmp_path / "X", tmp_path / "pw"
    write(tmp_path, {"site.yml": f"""
        - hosts: localhost
          gather_facts: false
          vars:
            piped: "{{{{ lookup('pipe', 'touch {marker}') }}}}"
            secret: "{{{{ lookup('password', '{secret}') }}}}"
          tasks:
            - debug: msg=hi
        """})
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]), dynamic_inventory=False)
    play_plan = plan.plays[0]
    report = variables_at(plan, play_plan, play_plan.hosts[0], None, ["piped", "secret"])
    assert all(report.variables[name].unknown for name in ("piped", "secret"))
    assert not marker.exists() and not secret.exists()


def test_child_keeps_lookups(tree: Path) -> None:
    assert ev(templar(tree).child({"item": "greeting.txt"}), "lookup('file', item)") == "hello"


# -- lookup() / query() shaping ---------------------------------------------------------------------
def test_lookup_joins_strings_query_lists(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('file', 'greeting.txt', 'greeting.txt')") == "hello,hello"
    assert ev(t, "query('file', 'greeting.txt')") == ["hello"]
    assert ev(t, "q('file', 'greeting.txt')") == ["hello"]
    assert ev(t, "lookup('file', 'greeting.txt', wantlist=True)") == ["hello"]
    assert ev(t, "lookup('items', [5])") == 5
    assert ev(t, "lookup('items', [1, 2])") == [1, 2]
    assert ev(t, "lookup('items', [])") == []
    assert ev(t, "lookup('ansible.builtin.items', ['a'])") == "a"


def test_errors_option(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('file', 'nope', errors='ignore')") is None
    assert ev(t, "lookup('file', 'nope', errors='warn')") is None
    assert ev(t, "query('file', 'nope', errors='ignore')") == []
    with pytest.raises(TemplateFailure, match="The lookup plugin 'file' failed: Unable to access the file 'nope': "
                                              "File not found. Use -vvvvv to see paths searched."):
        ev(t, "lookup('file', 'nope')")


def test_unknown_and_vault_lookups(tree: Path) -> None:
    t = templar(tree)
    with pytest.raises(TemplateFailure, match="The lookup plugin 'nosuch' was not found."):
        ev(t, "lookup('nosuch', 'x')")
    with pytest.raises(TemplateFailure, match="does not support vault"):
        ev(t, "lookup('unvault', 'greeting.txt')")


def test_inventory_hostnames_reads_the_groups_variable_as_the_plugin_does(tree: Path) -> None:
    groups = {"all": ["db1", "web1", "web2"], "ungrouped": [], "web": ["web1", "web2"], "db": ["db1"]}
    warnings: list[str] = []
    context = task_context(None, str(tree / "site.yml"), str(tree), "debug", warn=warnings.append)
    t = Templar({"groups": groups}, lookups=context)
    # a glob matching the group db and its host db1 gives it once, as get_hosts' de-duplication does
    assert ev(t, "lookup('inventory_hostnames', 'db*')") == "db1"
    assert ev(t, "query('inventory_hostnames', 'all:!db')") == ["web1", "web2"]
    assert ev(t, "query('inventory_hostnames', 'web[1]', 'web:&all')") == ["web2", "web1"]
    assert warnings == []
    assert ev(t, "query('inventory_hostnames', 'nothere')") == []
    assert warnings == ["Could not match supplied host pattern, ignoring: nothere"]
    assert ev(t, "query('inventory_hostnames', 'web[7]')") == []


def test_undefined_term_fails(tree: Path) -> None:
    with pytest.raises(TemplateFailure, match="undefined"):
        ev(templar(tree), "lookup('file', nope_var)")


# -- each lookup ------------------------------------------------------------------------------------
def test_file(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('file', 'greeting.txt', rstrip=False)") == "hello\n\n"
    assert ev(t, "lookup('file', 'greeting.txt', lstrip=True)") == "hello"
    assert ev(t, f"lookup('file', '{tree}/greeting.txt')") == "top"
    assert ev(templar(tree, role=True), "lookup('file', 'greeting.txt')") == "role"


def test_template(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('template', 't.j2')") == "v=1 extra=none\n"
    assert ev(t, "lookup('template', 't.j2', template_vars={'extra': 2})") == "v=1 extra=2\n"
    with pytest.raises(TemplateFailure, match="the template file nope.j2 could not be found for the lookup"):
        ev(t, "lookup('template', 'nope.j2')")


def test_env(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLS_LOOKUP_TEST", "yes")
    monkeypatch.delenv("PLS_LOOKUP_UNSET", raising=False)
    t = templar(tree)
    assert ev(t, "lookup('env', 'PLS_LOOKUP_TEST')") == "yes"
    assert ev(t, "lookup('env', 'PLS_LOOKUP_UNSET')") == ""
    assert ev(t, "lookup('env', 'PLS_LOOKUP_UNSET', default='d')") == "d"
    assert ev(t, "query('env', 'PLS_LOOKUP_TEST', 'PLS_LOOKUP_UNSET')") == ["yes", ""]


def test_fileglob(tree: Path) -> None:
    found = ev(templar(tree), "query('fileglob', 'globbed/*.conf')")
    assert sorted(os.path.basename(p) for p in found) == ["a.conf", "b.conf"]
    assert ev(templar(tree), "query('fileglob', '*.nothing')") == []


def test_first_found(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('first_found', ['nope', 'files/second.yml'])") == str(tree / "files/second.yml")
    assert ev(t, "lookup('first_found', {'files': ['nope', 'second.yml'], 'paths': ['files']})") == \
        str(tree / "files/second.yml")
    assert ev(t, "query('first_found', ['nope'], skip=True)") == []
    with pytest.raises(TemplateFailure, match="No file was found when using first_found."):
        ev(t, "lookup('first_found', ['nope'])")
    # as with_first_found, the task's action picks the subdirectory and undefined terms are left out
    assert loop_items("with_first_found", ["{{ undefined_x }}", "greeting.txt"], templar(tree, action="copy")) == \
        [str(tree / "files/greeting.txt")]


def test_vars_and_varnames(tree: Path) -> None:
    t = templar(tree, {"lk_t": "{{ lk_a + 1 }}"})
    assert ev(t, "lookup('vars', 'lk_t')") == 2
    assert ev(t, "lookup('vars', 'missing', default='d')") == "d"
    with pytest.raises(TemplateFailure, match="No variable named 'missing' was found."):
        ev(t, "lookup('vars', 'missing')")
    assert sorted(ev(t, "query('varnames', '^lk_')")) == ["lk_a", "lk_b", "lk_t"]


def test_list_shaped_lookups(tree: Path) -> None:
    t = templar(tree, {"m": {"x": 1, "y": 2}})
    assert ev(t, "query('items', [1, [2, 3]], 4)") == [1, [2, 3], 4]
    assert ev(t, "query('list', 1, 2)") == [1, 2]
    assert ev(t, "query('dict', m)") == [{"key": "x", "value": 1}, {"key": "y", "value": 2}]
    assert ev(t, "query('indexed_items', ['a', 'b'])") == [[0, "a"], [1, "b"]]
    assert ev(t, "query('together', [1, 2, 3], ['x', 'y'])") == [[1, "x"], [2, "y"], [3, None]]
    assert ev(t, "query('nested', ['a', 'b'], [1, 2])") == [["a", 1], ["a", 2], ["b", 1], ["b", 2]]
    with pytest.raises(TemplateFailure, match="the 'dict' lookup plugin expects a dictionary"):
        ev(t, "query('dict', [1])")


def test_sequence(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "query('sequence', '5')") == ["1", "2", "3", "4", "5"]
    assert ev(t, "query('sequence', '4:host%02d')") == ["host01", "host02", "host03", "host04"]
    assert ev(t, "query('sequence', 'start=2 end=10 stride=3')") == ["2", "5", "8"]
    assert ev(t, "query('sequence', 'count=3 start=5')") == ["5", "6", "7"]
    assert ev(t, "query('sequence', start=0, end=2)") == ["0", "1", "2"]
    assert ev(t, "query('sequence', 'start=10 end=0 stride=-5')") == ["10", "5", "0"]
    for term, message in (("start=1 end=0", "to count backwards make stride negative"),
                          ("start=1", "must specify count or end in with_sequence"),
                          ("end=2 count=2", "can't specify both count and end in with_sequence"),
                          ("end=2 bogus=1", r"unrecognized arguments to with_sequence: \['bogus'\]"),
                          ("end=2 format=%d%d", "bad formatting string: %d%d")):
        with pytest.raises(TemplateFailure, match=message):
            ev(t, f"query('sequence', '{term}')")


def test_pipe_and_lines_run_in_the_playbook_dir(tree: Path) -> None:
    t = templar(tree)
    assert ev(t, "lookup('pipe', 'cat greeting.txt')") == "top"
    assert ev(t, "query('lines', 'printf \"a\\nb\\n\"')") == ["a", "b"]
    with pytest.raises(TemplateFailure, match=r"lookup_plugin.pipe\(exit 3\) returned 3"):
        ev(t, "lookup('pipe', 'exit 3')")
    with pytest.raises(TemplateFailure, match=r"lookup_plugin.lines\(false\) returned 1"):
        ev(t, "lookup('lines', 'false')")


def test_subelements(tree: Path) -> None:
    users = [{"name": "a", "groups": ["g1", "g2"]}, {"name": "b", "groups": []},
             {"name": "c", "more": {"keys": ["k"]}}]
    t = templar(tree, {"users": users})
    pairs = ev(t, "query('subelements', users[:2], 'groups')")
    assert [(p[0]["name"], p[1]) for p in pairs] == [("a", "g1"), ("a", "g2")]
    assert pairs[0][0] == {"name": "a"}  # the sub-key is taken out of the item, as the plugin pops it
    assert [p[1] for p in ev(t, "query('subelements', users, 'more.keys', {'skip_missing': True})")] == ["k"]
    with pytest.raises(TemplateFailure, match="could not find 'groups' key in iterated item"):
        ev(t, "query('subelements', users, 'groups')")
    with pytest.raises(TemplateFailure, match="subelements lookup expects a list of two or three items"):
        ev(t, "query('subelements', users)")
    assert users[0]["groups"] == ["g1", "g2"]  # the variable itself is not changed


def test_config(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_TIMEOUT", raising=False)
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tree / "no-such.cfg"))
    t = templar(tree)
    monkeypatch.setenv("ANSIBLE_FORKS", "7")
    assert ev(t, "lookup('config', 'DEFAULT_FORKS')") == 7
    assert ev(t, "lookup('config', 'DEFAULT_FORKS', show_origin=True)") == [7, "env: ANSIBLE_FORKS"]
    with pytest.raises(TemplateFailure, match="knows only the settings"):  # ansible has it, the engine not
        ev(t, "lookup('config', 'DEFAULT_ROLES_PATH')")
    with pytest.raises(TemplateFailure, match="No config definition exists for 'NO_SUCH_SETTING'"):
        ev(t, "lookup('config', 'NO_SUCH_SETTING')")
    with pytest.raises(TemplateFailure, match="Both plugin_type and plugin_name are required"):
        ev(t, "lookup('config', 'x', plugin_type='become')")


def test_password(tree: Path) -> None:
    t = templar(tree)
    first = ev(t, "lookup('password', 'secrets/pw length=12 seed=pls chars=ascii_letters')")
    assert first == "PoWDEYMbvRAZ"  # what ansible-playbook 2.19 wrote (scenario lookups)
    stored = tree / "secrets/pw"
    assert stored.read_text() == "PoWDEYMbvRAZ\n"
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    assert ev(t, "lookup('password', 'secrets/pw length=30')") == first  # read back, not regenerated
    value = ev(t, "lookup('password', '/dev/null length=9 chars=digits')")
    assert len(value) == 9 and value.isdigit()
    with pytest.raises(TemplateFailure, match="Unrecognized parameter"):
        ev(t, "lookup('password', '/dev/null bogus=1')")
    with pytest.raises(TemplateFailure, match="does not support encrypt"):
        ev(t, "lookup('password', '/dev/null encrypt=sha512_crypt')")


def test_random_choice(tree: Path) -> None:
    assert ev(templar(tree), "lookup('random_choice', 'a', 'b')") in ("a", "b")
    assert ev(templar(tree), "query('random_choice')") == []


# -- loops ------------------------------------------------------------------------------------------
def test_loop_items(tree: Path) -> None:
    t = templar(tree, {"m": {"k": "v"}, "xs": ["a", ["b"]]})
    assert loop_items("with_items", "{{ xs }}", t) == ["a", "b"]
    assert loop_items("with_list", "{{ 'alone' }}", t) == ["alone"]
    assert loop_items("with_dict", "{{ m }}", t) == [{"key": "k", "value": "v"}]
    assert loop_items("with_sequence", "start=1 end=2", t) == ["1", "2"]
    assert loop_items("with_together", [[1, 2], ["a"]], t) == [[1, "a"], [2, None]]
    with pytest.raises(TemplateFailure, match=r"The `loop` value must resolve to a 'list', not 'str'."):
        loop_items("loop", "{{ lookup('items', ['a', 'b']) }}", t)
    assert loop_items("loop", "{{ query('items', ['a', 'b']) }}", t) == ["a", "b"]


def test_with_lookup_in_a_playbook(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - debug:
            msg: "{{ item }}"
          with_sequence: count=2
          register: seq
        - debug:
            msg: "{{ lookup('file', 'data.txt') }}"
          register: data
        - assert:
            that:
              - seq.results | map(attribute='item') | list == ['1', '2']
              - data.msg == 'payload'
    """
    code, _out, result = run_playbook(tmp_path, playbook, {"files/data.txt": "payload\n"})
    assert code == 0, result


def test_lookup_context_defaults() -> None:
    context = LookupContext(basedir="/x")
    assert context.search_paths == [] and not context.in_role


def test_errors_warn_prints_ansibles_warning(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - debug:
            msg: "{{ lookup('file', 'nope.txt', errors='warn') }}"
    """
    code, out, _ = run_playbook(tmp_path, playbook)
    assert code == 0
    assert ("[WARNING]: An error occurred while running the lookup plugin 'file': Unable to access the file "
            "'nope.txt': File not found. Use -vvvvv to see paths searched.") in out


def test_messages_of_unreadable_files_and_bad_numbers(tree: Path) -> None:
    t = templar(tree)
    (tree / "files/adir").mkdir()
    with pytest.raises(TemplateFailure, match=r"The lookup plugin 'file' failed: Unable to access the file 'adir': "
                                              r"An error occurred while trying to read the file '.*/files/adir': "
                                              r"\[Errno 21\] Is a directory"):
        ev(t, "lookup('file', 'adir')")
    with pytest.raises(TemplateFailure, match="Config 'end' for 'sequence' lookup plugin from 'Direct' has an invalid "
                                              "value: Invalid value provided for 'integer': '0x10'"):
        ev(t, "lookup('sequence', 'end=0x10')")


def test_constant_terms_with_embedded_templates_are_templated(tree: Path) -> None:
    """ansible 2.19 still templates a constant term such as '{{ role_path }}/x' (with a deprecation
    warning), but not a variable's value: only literal strings of the expression."""
    warnings: list[str] = []
    context = LookupContext(basedir=str(tree), search_paths=[str(tree)], warn=warnings.append)
    t = Templar({"name": "greeting", "raw": "{{ name }}"}, lookups=context)
    assert ev(t, "lookup('file', '{{ name }}.txt')") == "hello"
    assert ev(t, "query('items', ['{{ 1 + 1 }}', 'x'])") == [2, "x"]
    assert warnings and warnings[0].startswith("Jinja constant strings should not contain embedded templates.")
    from engine.values import UnsafeText

    unsafe = Templar({"raw": UnsafeText("{{ 1 + 1 }}")}, lookups=context)
    assert ev(unsafe, "lookup('items', [raw])") == "{{ 1 + 1 }}"
    # without lookups the constant is left alone and no lookup runs
    with pytest.raises(TemplateFailure):
        ev(Templar({"name": "greeting"}), "lookup('file', '{{ name }}.txt')")


def test_an_undefined_variable_chains_as_in_ansible() -> None:
    """ansible 2.19: ``x.a.b | default('d')`` is 'd', ``x['a'] is defined`` is false, and using
    the chain fails with "'x' is undefined" (checked with ansible-playbook)."""
    from engine.templating.templar import Templar, TemplateFailure

    templar = Templar({})
    assert templar.template("{{ x.a.b | default('d') }}") == "d"
    assert templar.template("{{ x['a'] is defined }}") is False
    with pytest.raises(TemplateFailure, match="'x' is undefined"):
        templar.template("{{ x.a ~ 'z' }}")


def test_the_list_of_ansibles_settings_matches_installed_ansible_core() -> None:
    import subprocess
    import sys

    pytest.importorskip("ansible")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "scripts" / "gen_ansible_settings.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_config_of_a_setting_ansible_does_not_have(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - debug: msg="{{ lookup('config', 'NOPE', on_missing='warn') }}"
            - debug: msg="{{ lookup('config', 'NOPE', on_missing='skip') }}"
            - debug: msg="{{ lookup('config', 'NOPE') }}"
        """)
    assert code == 2
    assert "[WARNING]: Skipping NOPE: No config definition exists for 'NOPE'.\n" in out  # recorded from ansible 2.19
    assert out.count('"msg": []') == 2
    assert "The lookup plugin 'config' failed: No config definition exists for 'NOPE'." in out

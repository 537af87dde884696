"""community.general's json_query: run by the engine where ansible-playbook runs the collection's
(the collection installed where it looks, jmespath importable by this Python), declined where
jmespath is missing, and its functions that check a tagged value's type declined where written
(engine.templating.filters.json_query). The texts are those ansible-playbook 2.19 printed with
community.general 11 and jmespath 1.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook, write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems
from engine.templating.filters import json_query


def _collections(root: Path, monkeypatch: pytest.MonkeyPatch, installed: bool = True) -> None:
    """community.general installed where ansible looks (or nothing), no Python path scanned."""
    (root / "installed" / "ansible_collections" / ("community/general" if installed else "other/x")).mkdir(
        parents=True)
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(root / "installed"))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "false")


def _problems(root: Path, tasks: str) -> list[str]:
    write(root, {"site.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n" + tasks})
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan)]


QUERY = "    - debug: {msg: \"{{ {'a': [1]} | json_query('a[0]') }}\"}\n      when: false\n"


def test_without_jmespath_it_is_declined_even_where_the_collection_is_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """community.general's filter then fails "You need to install jmespath" in the Python of an
    ansible-playbook the engine cannot tell is this one: the plan hands the run over."""
    _collections(tmp_path, monkeypatch)
    monkeypatch.setattr(json_query, "jmespath_module", lambda: None)
    (problem,) = _problems(tmp_path, QUERY)
    assert "has no filter 'json_query'" in problem


def test_where_the_collection_is_not_installed_both_tools_fail_on_the_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _collections(tmp_path, monkeypatch, installed=False)
    assert _problems(tmp_path, QUERY) == []
    assert json_query.available(None) == frozenset()


PLAY = """- hosts: localhost
  gather_facts: false
  vars:
    data:
      servers:
        - {name: a1, port: "8080", size: 3, tags: [x, y]}
        - {name: b2, port: "9090", size: 5, tags: [z]}
    query: "servers[?size > `4`].name"
  tasks:
    - debug: msg="{{ data | json_query('servers[*].name') | join(',') }}"
    - debug: msg="{{ data | community.general.json_query(query) | join(',') }}"
    - debug: msg="{{ data | json_query('servers[?starts_with(name, `a`)].port') | join(',') }}"
    - debug: msg="{{ data | json_query('servers[?contains(tags, `z`)].name | [0]') }}"
    - debug: msg="{{ data | json_query('servers[?port > `8000`].name') }}"
      ignore_errors: true
    - debug: msg="{{ data | json_query('servers[') }}"
      ignore_errors: true
    - debug: msg="{{ data | json_query(sorted_query) }}"
      vars:
        sorted_query: sort_by(servers, &size)
      ignore_errors: true
"""


def test_it_runs_as_the_collection_s_plugin_where_jmespath_is_importable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jmespath")
    _collections(tmp_path, monkeypatch)
    assert _problems(tmp_path, QUERY) == []
    code, text, _ = run_playbook(tmp_path, PLAY)
    assert code == 0
    assert [line.split('"msg": ')[1] for line in text.splitlines() if '"msg": ' in line][:4] == [
        '"a1,b2"', '"b2"', '"8080"', '"b2"']
    # a comparison of a tagged string: the templar's rendering again names ansible's classes
    assert ("The filter plugin 'community.general.json_query' failed.\nOrigin:" in text
            and "Error in jmespath.search in json_query filter plugin:\n'>' not supported between instances "
                "of '_AnsibleTaggedStr' and 'int'\n" in text)
    assert ("JMESPathError in json_query filter plugin:\nInvalid jmespath expression: Incomplete expression:\n"
            "\"servers[\"\n         ^\n" in text)
    # a function whose type check refuses ansible's tagged values, met where only the run knows it
    assert "playbook-ls's engine does not run json_query's sort_by() as ansible does" in text


@pytest.mark.parametrize(("expression", "declined"), [
    ("sum(servers[].size)", ["sum"]),
    ("max_by(servers, &name).name", ["max_by"]),
    ("servers[?length(tags) > `1`] | sort(@) | [0]", ["sort"]),
    ("servers[?starts_with(name, `a`)].port", []),
    ("servers[", []),  # jmespath's own error, worded alike at run time
])
def test_functions_that_check_a_tagged_value_s_type_are_declined_where_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expression: str, declined: list[str]) -> None:
    pytest.importorskip("jmespath")
    assert json_query.declined_functions(expression) == declined
    _collections(tmp_path, monkeypatch)
    problems = _problems(tmp_path, f"    - debug: {{msg: \"{{{{ data | json_query('{expression}') }}}}\"}}\n")
    assert [problem.split("does not implement ")[1].split(". ")[0] for problem in problems] == [
        f"'json_query's {name}()'" for name in declined]


@pytest.mark.parametrize(("text", "found"), [
    ("query: \"sort_by(servers, &size)[].name\"", ["sort_by"]),
    ("q = 'servers[].size | sum(@)'", ["sum"]),
    ("expr: max(servers[].size)", ["max"]),
    ("{{ items | sort(attribute='name') | map(attribute='size') | max }}", []),  # Jinja's filters
    ("{{ names.sort() }} {{ sizes | sum(start=0) }}", []),
    ("servers[?size > `4`].name", []),
])
def test_what_may_call_a_declined_function_in_any_file(text: str, found: list[str]) -> None:
    assert json_query.declined_calls(text) == found


VARIABLE_QUERY = "    - debug: {msg: \"{{ data | json_query(query) }}\"}\n      vars: {data: {servers: []}}\n"


@pytest.mark.parametrize("where", ["play", "vars_files", "group_vars", "extra vars", "nowhere"])
def test_an_expression_a_variable_gives_is_declined_before_the_run_where_a_value_may_call_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """ansible hands the query its tagged values wherever the expression comes from: a variable's
    expression that may call a declined function is declined before the run (not when the filter
    meets it), one that cannot is run."""
    pytest.importorskip("jmespath")
    _collections(tmp_path, monkeypatch)
    query = "sort_by(servers, &size)[].name" if where != "nowhere" else "servers[].name"
    play = {"play": f"  vars: {{query: '{query}'}}\n", "vars_files": "  vars_files: [q.yml]\n"}.get(where, "")
    write(tmp_path, {"site.yml": f"- hosts: all\n  gather_facts: false\n{play}  tasks:\n{VARIABLE_QUERY}",
                     "q.yml": f"query: '{query}'\n" if where == "vars_files" else "",
                     "inv/hosts": "localhost\n",
                     "inv/group_vars/all.yml": f"query: '{query}'\n" if where in ("group_vars", "nowhere") else ""})
    extra = {"query": query} if where == "extra vars" else {}
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inv")],
                                    extra_vars=extra), has_module=lambda action: True)
    problems = [str(problem) for problem in unknown_module_problems(plan)]
    assert problems == ([] if where == "nowhere" else [
        f"{tmp_path}/site.yml:{5 if play else 4}:7: playbook-ls's engine does not implement 'json_query's sort_by() "
        "in an expression a variable gives'. Run with --engine ansible to use ansible-playbook."])

"""Variables seen while loading a playbook (role names, import paths, tags): templated when read,
as ansible's lazy templating does, and only then."""

from __future__ import annotations

import pytest

from engine.templating import load_time as templating
from engine.templating.load_time import LazyVars, Unresolved, render, resolve_variables


def test_a_deep_chain_of_references_resolves() -> None:
    variables = {f"v{i}": "{{ v" + str(i + 1) + " }}" for i in range(40)}
    variables["v40"] = "web"
    assert render("{{ v0 }}-role", resolve_variables(variables)) == "web-role"


def test_a_value_that_needs_itself_is_left_as_written() -> None:
    lazy = resolve_variables({"a": "{{ b }}", "b": "{{ a }}", "c": "{{ c }}x", "d": 1})
    assert lazy["c"] == "{{ c }}x"
    assert lazy["a"] in ("{{ a }}", "{{ b }}")
    with pytest.raises(Unresolved):
        render("{{ c }}", lazy)
    assert lazy["d"] == 1


def test_only_the_values_read_are_templated(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[str] = []
    original = templating._render

    def counting(value, variables, depth, nesting=0):  # type: ignore[no-untyped-def]
        if isinstance(value, str):
            rendered.append(value)
        return original(value, variables, depth, nesting)

    monkeypatch.setattr(templating, "_render", counting)
    lazy = resolve_variables({"used": "{{ base }}/tasks", "base": "roles", "unused": "{{ 1 / 0 }}"})
    assert render("{{ used }}.yml", lazy) == "roles/tasks.yml"
    assert "{{ 1 / 0 }}" not in rendered
    assert lazy.get("missing", "default") == "default"
    assert dict(lazy.items())["used"] == "roles/tasks"


def test_a_copy_holds_values_as_written_and_resolves_in_its_own_scope() -> None:
    play = resolve_variables({"path": "{{ where }}/main.yml", "where": "play"})
    assert play["path"] == "play/main.yml"
    role = resolve_variables({**play, "where": "role"})
    assert isinstance(role, LazyVars)
    assert role["path"] == "role/main.yml"
    assert play["path"] == "play/main.yml"


def test_a_remembered_result_is_not_shared_with_its_callers() -> None:
    variables = {"items": [1, 2]}
    first = render("{{ items + [3] }}", variables)
    first.append("changed")
    assert render("{{ items + [3] }}", variables) == [1, 2, 3]


def test_a_remembered_result_depends_on_the_values_read() -> None:
    assert render("{{ name | upper }}", {"name": "a"}) == "A"
    assert render("{{ name | upper }}", {"name": "b"}) == "B"
    assert render("{{ flag }}", {"flag": True}) is True
    assert render("{{ flag }}", {"flag": 1}) == 1
    with pytest.raises(Unresolved, match="'name' is undefined"):
        render("{{ name | upper }}", {})


@pytest.mark.parametrize(("template", "expected"), [
    # recorded from ansible-playbook 2.19 --list-tasks (a play's name, a task's tags)
    (r"{{ 'ab12' | regex_replace('(\d)', '<\1>') }}", "ab<1><2>"),
    (r"tag{{ '\t' | length }}", "tag2"),
    (r"{{ 'c:\new' }}", "c:\\new"),
    (r"{% set x = 'a\tb' %}{{ x }}", "a\tb"),  # a statement is not escaped
])
def test_backslashes_inside_braces_are_escaped_at_load_time_as_ansibles_lexer_does(template: str,
                                                                                   expected: str) -> None:
    assert render(template, resolve_variables({})) == expected

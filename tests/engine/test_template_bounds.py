"""Static templating is bounded: a hostile template met while opening a repository is refused
quickly, in little memory, as "too large to evaluate statically", and reported where it is."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from bounded import spent

from engine.loading.resolve import Resolver
from engine.templating.load_time import Unresolved, render

DOUBLING = '{% set a = "xxxxxxxx" %}' + "{% set a = a ~ a %}" * 40 + "{{ a }}"

HOSTILE = {
    "center filter": '{{ "x"|center(10**9) }}',
    "center method": '{{ "x".center(1000000000) }}',
    "ljust method": '{{ "x".ljust(999999999) }}',
    "format filter width": '{{ "%1000000000s"|format(1) }}',
    "format filter star width": '{{ "%*s"|format(1000000000, 1) }}',
    "str.format width": '{{ "{:>1000000000}".format(1) }}',
    "str.format nested width": '{{ "{:>{}}".format(1, 1000000000) }}',
    "percent operator": '{{ "%1000000000s" % 1 }}',
    "replace": '{{ ("x" * 100000)|replace("x", "y" * 100000) }}',
    "replace empty": '{{ ("x" * 90000)|replace("", "y" * 90000) }}',
    "wordwrap then indent": '{{ ("ab " * 30000)|wordwrap(1)|indent(100000) }}',
    "doubling with ~": DOUBLING,
    "doubling with +": '{% set a = "xxxxxxxx" %}' + "{% set a = a + a %}" * 40 + "{{ a }}",
    "nested loops": "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}"
                    "{% endfor %}{% endfor %}{% endfor %}x",
    "loop output": '{% set big = "x" * 99999 %}{% for i in range(1000) %}{{ big }}{% endfor %}',
    "join": '{{ range(1000)|join("x" * 100000) }}',
    "batch": "{{ [1]|batch(1000000000, 0)|list }}",
    "slice": "{{ [1]|slice(1000000000)|list }}",
    "recursive macro": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "exponential macro": "{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(30) }}",
    "lipsum": "{{ lipsum(n=100000000) }}",
    "repeated squaring": "{% set ns = namespace(x=10**60) %}{% for i in range(40) %}{% set ns.x = ns.x * ns.x %}"
                         "{% endfor %}{{ ns.x > 1 }}",
    "translate": '{{ ("x" * 100000).translate({120: "y" * 100000}) }}',
    "sum of lists": '{{ ([["x"] * 100000] * 1000)|sum(start=[]) }}',
}


@pytest.mark.parametrize("template", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_template_is_refused_quickly_in_little_memory(template: str) -> None:
    tracemalloc.start()
    try:
        with spent() as took, pytest.raises(Unresolved) as refused:
            render(template, {})
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert refused.value.too_large, refused.value
    assert "too large to evaluate statically" in str(refused.value)
    assert took.cpu < 5
    assert peak < 50_000_000, f"{peak:,} bytes"


@pytest.mark.parametrize(("template", "expected"), [
    ('{{ "a"|center(5) }}', "  a  "),
    ('{{ "%5s"|format(1) }}', "    1"),
    ('{{ "{:>3}".format(7) }}', "  7"),
    ("{% for i in range(3) %}{{ i }}{% endfor %}", "012"),
    ('{{ ["a", "b"]|join(",") }}', "a,b"),
    ('{{ "a-b"|replace("-", "_") }}', "a_b"),
    ("{{ 2 ** 10 }}", 1024),
    ('{{ "ab" ~ "cd" }}', "abcd"),
    ('{{ [1] + [2] }}', [1, 2]),
    ('{{ "x%sy" % "-" }}', "x-y"),
    ("{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ n }}{% endif %}{% endmacro %}{{ f(5) }}", "12345"),
])
def test_ordinary_templates_still_render(template: str, expected: object) -> None:
    assert render(template, {}) == expected


def test_variables_that_refer_to_each_other_forever_are_unresolved_not_a_recursion_error() -> None:
    with pytest.raises(Unresolved):
        render("{{ a }}", {"a": "{{ b }}", "b": "{{ a }}x"})


def test_a_too_large_import_path_is_a_positioned_problem(tmp_path: Path) -> None:
    site = tmp_path / "site.yml"
    site.write_text("- hosts: all\n  vars:\n    name: '" + DOUBLING.replace("'", "''") + "'\n"
                    "  tasks:\n    - import_tasks: '{{ name }}.yml'\n    - debug: msg=after\n")
    with spent() as took:
        book = Resolver().load_playbook(str(site))
    assert took.cpu < 10
    [problem] = [p for p in book.problems if p.code == "unresolved-template"]
    assert "too large to evaluate statically" in problem.message and "Simplify" in problem.hint
    assert problem.span is not None and (problem.span.line, problem.span.col) == (4, 20)  # 0-based: line 5
    assert [t.name for t in book.plays[0].all_tasks()] == [None]  # the play is still resolved


def test_regex_replace_is_bounded_while_evaluating_statically_only() -> None:
    from engine.templating.bounds import TooLarge, evaluation
    from engine.templating.filters.regex_and_ternary import regex_replace

    with evaluation(), pytest.raises(TooLarge):
        regex_replace("x" * 90_000, "", "y" * 90_000)
    assert regex_replace("a-b", "-", "_") == "a_b"
    assert len(regex_replace("x" * 200_000, "x", "yy")) == 400_000  # a run may rewrite a large file


def test_a_value_worked_out_when_first_read_is_not_charged_to_the_template(monkeypatch) -> None:
    """The model works some values out when a template first reads them (the play's host lists
    less the hosts the run takes out: the whole run planned). That is not the template's own
    computing: charged to it, an ordinary loop over a group's list came out "too large" on a busy
    machine, depending on which template happened to read such a value first."""
    import time

    from engine.templating import bounds
    from engine.values import Pending

    monkeypatch.setattr(bounds, "MAX_SECONDS", 0.05)
    nested: list[bool] = []

    def work_out() -> int:
        nested.append(bounds.static_evaluation_in_progress())
        end = time.thread_time() + 0.2
        while time.thread_time() < end:
            pass
        return 1

    pending = Pending(work_out)
    with bounds.evaluation() as budget:
        assert budget.deadline  # the template's clock has started
        assert pending.get() == 1
        left = bounds.seconds_left()
        assert left is not None and left > 0
    assert nested == [False]  # the model's own templates are bounded each on their own


def _burn(seconds: float) -> None:
    import time

    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_another_hosts_variables_are_not_charged_to_the_template_reading_them(monkeypatch) -> None:
    """``hostvars[other]`` makes the model work out the other host's variables (and, before the run,
    walk its earlier tasks) when a template first reads them: that is not the template's own
    computing, so whether a value is "too large" cannot depend on which template read them first."""
    from types import SimpleNamespace

    from engine.templating import bounds
    from engine.variables.followed_hostvars import _EarlierValues
    from engine.variables.layer import Layer
    from engine.variables.manager import HostVars

    monkeypatch.setattr(bounds, "MAX_SECONDS", 0.05)

    class SlowHostVars(HostVars):
        def host_values(self, host):
            _burn(0.2)
            return {"port": 80}

    inventory = SimpleNamespace(data=SimpleNamespace(get_host=lambda name: SimpleNamespace(name=name)))
    hostvars = SlowHostVars(SimpleNamespace(inventory=inventory), SimpleNamespace())

    def walk() -> list[Layer]:
        _burn(0.2)
        return [Layer("set_fact", "earlier tasks", {"port": 8080}, runtime=True)]

    earlier = _EarlierValues(walk, frozenset({"port"}))
    with bounds.evaluation() as budget:
        assert budget.deadline  # the template's clock has started
        assert hostvars["web1"]["port"] == 80
        assert earlier["port"] == 8080
        left = bounds.seconds_left()
        assert left is not None and left > 0

"""A variable the run certainly sets to a value only it knows: a template that only asks whether
it is defined has its answer; any other use of it stays the run's."""

from __future__ import annotations

import pytest

from engine.templating.errors import RunTimeOnly
from engine.templating.templar import Templar
from engine.variables.layer import Layer, RuntimeValue
from engine.variables.raw import RawVariables


def _templar(value: RuntimeValue) -> Templar:
    return Templar(RawVariables([Layer("set_facts", "what earlier tasks set", {"leader": value, "n": 3})], {}))


@pytest.mark.parametrize(("template", "expected"), [
    ("{{ leader is defined }}", True),
    ("{{ leader is undefined }}", False),
    ("{{ 'yes' if leader is defined and n > 2 else 'no' }}", "yes"),
    ("{{ leader is not defined }}", False),
])
def test_only_whether_it_is_defined(template: str, expected: object) -> None:
    assert _templar(RuntimeValue("set by a run_once task", defined=True)).template(template) == expected


@pytest.mark.parametrize("template", [
    "{{ leader }}",
    "{{ leader | default('none') }}",
    "{{ leader is defined and leader == 'h1' }}",
    "{{ leader is string }}",
    "{{ [leader] | length }}",
])
def test_any_other_use_is_the_runs(template: str) -> None:
    with pytest.raises(RunTimeOnly):
        _templar(RuntimeValue("set by a run_once task", defined=True)).template(template)


def test_a_value_that_may_not_be_set_stays_the_runs() -> None:
    with pytest.raises(RunTimeOnly):
        _templar(RuntimeValue("set by a task whose condition only the run knows")).template("{{ leader is defined }}")


def test_a_template_is_parsed_once_per_environment() -> None:
    """What a template reads depends on its text and the environment parsing it only: asked again
    (another host, another variable of it), it is not parsed again; another parser parses it."""
    from jinja2 import Environment

    from engine.templating.defined_only import only_tested_defined

    parsed: list[str] = []

    class Counting(Environment):
        def parse(self, source, name=None, filename=None):  # type: ignore[override]
            parsed.append(source)
            return super().parse(source, name, filename)

    first, second = Counting(), Counting()
    text = "leader is defined and other is defined and other | length > 1 and y.x is defined"
    answers = [only_tested_defined(first.parse, text, True, name) for name in ("leader", "other", "y", "x", "z")]
    assert answers == [True, False, False, False, False]
    assert only_tested_defined(first.parse, text, True, "leader") is True
    assert len(parsed) == 1
    assert only_tested_defined(second.parse, text, True, "leader") is True
    assert only_tested_defined(first.parse, "{{ leader is defined }}", False, "leader") is True
    assert only_tested_defined(first.parse, "{{ leader is defined", False, "leader") is False
    assert len(parsed) == 4

"""One rule for variables whose values are templates, in both templars that render with
variables (run time, the constructed inventory plugin): ansible 2.19's lazy templating."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from engine.inventory.constructed import ConstructedTemplar
from engine.templating.lazy_variables import LazyVariables, TemplateLoop
from engine.templating.templar import Templar, TemplateFailure


def _run_time(expression: str, variables: Mapping[str, Any]) -> Any:
    return Templar(variables).template("{{ " + expression + " }}")


def _constructed(expression: str, variables: Mapping[str, Any]) -> Any:
    return ConstructedTemplar().evaluate_expression(expression, variables)


TEMPLARS: list[Callable[[str, Mapping[str, Any]], Any]] = [_run_time, _constructed]


def _chain(length: int) -> dict[str, Any]:
    """v0 refers to v1, ..., the last is a plain value: a deep but loop-free reference."""
    variables: dict[str, Any] = {f"v{i}": "{{ v" + str(i + 1) + " }}" for i in range(length)}
    variables[f"v{length}"] = 7
    return variables


@pytest.mark.parametrize("evaluate", TEMPLARS)
def test_depth_of_distinct_references_is_not_a_loop(evaluate: Callable[..., Any]) -> None:
    # constructed used to stop at 20 nested templates; ansible has no such limit
    assert evaluate("v0", _chain(40)) == 7


@pytest.mark.parametrize("evaluate", TEMPLARS)
@pytest.mark.parametrize(("expression", "variables"), [
    ("a", {"a": "{{ a }}"}),
    ("a", {"a": "{{ b }}", "b": "{{ a }}"}),
    ("a", {"a": "{{ a | default(1) }}"}),  # ansible reports the loop, default does not hide it
    ("a", {"a": "{{ a is defined }}"}),
    ("x", {"x": ["{{ x }}"]}),
])
def test_a_value_that_needs_itself_is_a_loop(evaluate: Callable[..., Any], expression: str,
                                             variables: dict[str, Any]) -> None:
    with pytest.raises((TemplateFailure, TemplateLoop), match="Recursive loop detected"):
        evaluate(expression, variables)


@pytest.mark.parametrize("evaluate", TEMPLARS)
def test_values_are_rendered_with_their_native_type_and_inside_containers(evaluate: Callable[..., Any]) -> None:
    variables = {"a": "{{ b + 1 }}", "b": 2, "items": ["{{ a }}", {"k": "{{ b }}"}]}
    assert evaluate("items", variables) == [3, {"k": 2}]


def test_each_variable_is_rendered_once() -> None:
    rendered: list[Any] = []

    def render(value: Any) -> Any:
        rendered.append(value)
        return value

    lazy = LazyVariables({"a": "{{ b }}", "b": 1}, render)
    assert [lazy["a"], lazy["a"], lazy["b"]] == ["{{ b }}", "{{ b }}", 1]
    assert rendered == ["{{ b }}", 1]


def test_a_failed_render_is_not_remembered() -> None:
    attempts: list[Any] = []

    def render(value: Any) -> Any:
        attempts.append(value)
        raise ValueError("no")

    lazy = LazyVariables({"a": 1}, render)
    for _ in range(2):
        with pytest.raises(ValueError):
            lazy["a"]
    assert len(attempts) == 2 and "a" in lazy and list(lazy) == ["a"] and len(lazy) == 1

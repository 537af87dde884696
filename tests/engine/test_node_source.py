"""A Jinja expression node written back as text (engine.templating.node_source) means what it was
written as: the text, parsed and evaluated again, gives the same value."""

from __future__ import annotations

import pytest
from jinja2 import nodes
from jinja2.nativetypes import NativeEnvironment

from engine.templating.node_source import NotWritable, expression_source, names_bound, names_read

VALUES = {"a": [3, 1, 2], "b": [2, 5], "d": {"k": "v", "n": 2}, "s": "Text", "n": 7, "t": True}


@pytest.mark.parametrize("expression", [
    "a | unique | sort", "d.k ~ '-' ~ s | lower", "d['n'] * 2 + n // 3 - 1", "(a + b)[1:] | length",
    "a[0] if t and not n > 9 else b[-1]", "a | map('string') | join(',')", "{'x': [1, (2, 3)], 'y': none}",
    "s is string and 1 in a", "a[::2] + a[1:] + a[:n]", "a | sort(reverse=true, attribute=none)", "-n ** 2 % 5",
    "range(3) | list",
    "a != b or d.k == 'v'", "'a' not in s",
])
def test_the_text_written_back_gives_the_same_value(expression: str) -> None:
    env = NativeEnvironment()
    node = env.parse("{{ " + expression + " }}").body[0].nodes[0]
    written = expression_source(node)
    assert env.from_string("{{ " + written + " }}").render(**VALUES) == \
        env.from_string("{{ " + expression + " }}").render(**VALUES)


def test_what_it_does_not_write_is_said() -> None:
    env = NativeEnvironment()
    node = env.parse("{{ f(*a) }}").body[0].nodes[0]
    with pytest.raises(NotWritable):
        expression_source(node)


def test_the_names_a_template_binds_and_reads() -> None:
    tree = NativeEnvironment().parse("{% set x = 1 %}{% for k, v in d.items() %}{{ k }}{% endfor %}"
                                     "{% macro m(p) %}{{ p }}{% endmacro %}{% import 'f' as lib %}{{ a | union(x) }}")
    assert {"x", "k", "v", "m", "p", "lib", "loop"} <= names_bound(tree)
    (union,) = [node for node in tree.find_all(nodes.Filter) if node.name == "union"]
    assert names_read(union) == {"a", "x"}

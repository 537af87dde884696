"""Argument strings split as ansible's ``split_args`` / ``parse_kv`` split them."""

from __future__ import annotations

import pytest

from engine.parsing.splitter import SplitError, parse_kv, split_args


@pytest.mark.parametrize(("text", "words"), [
    ('a=b c="foo bar"', ["a=b", 'c="foo bar"']),
    ('msg="{{ item }}" x=1', ['msg="{{ item }}"', "x=1"]),
    ("msg={{ a | default('x y') }}", ["msg={{ a | default('x y') }}"]),
    ("a=1  b=2", ["a=1 ", "b=2"]),
    ("echo {% if x %}y{% endif %} done", ["echo", "{% if x %}y{% endif %}", "done"]),
    ("line one\nline two", ["line", "one\n", "line", "two"]),
])
def test_split_args_keeps_quotes_and_jinja_whole(text: str, words: list[str]) -> None:
    assert split_args(text) == words


@pytest.mark.parametrize("text", [
    'a=b c="foo bar"', 'msg="{{ item }}" x=1', "a=1  b=2", "line one\nline two", "x='it''s' y=\\n",
    "echo {% if x %}y{% endif %} done", "k={{ {'a': 1} }} j=\"{# c #}\"", "a \\\nb",
])
def test_same_words_as_ansible(text: str) -> None:
    splitter = pytest.importorskip("ansible.parsing.splitter")
    assert split_args(text) == splitter.split_args(text)
    assert parse_kv(text) == splitter.parse_kv(text)


def test_parse_kv_like_ansible() -> None:
    assert parse_kv('msg="{{ item }}" other=\'a b\'') == {"msg": "{{ item }}", "other": "a b"}
    assert parse_kv("echo hi creates=/x chdir=/tmp", frozenset({"creates", "chdir"})) == {
        "creates": "/x", "chdir": "/tmp", "_raw_params": "echo hi"}
    assert parse_kv(r"a\=b c=d") == {"c": "d", "_raw_params": "a=b"}


def test_unbalanced_quotes_are_an_error() -> None:
    with pytest.raises(SplitError, match="unbalanced jinja2 block or quotes"):
        split_args('msg="{{ x }}')

"""A JSON text has the values ``json.loads`` gives it (ansible's loader tries JSON first) and the
spans the YAML path gives the same text; what JSON refuses goes the YAML way."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.parsing import yaml_compose
from engine.parsing.yaml_compose import parse_yaml
from engine.parsing.yaml_json import parse_json
from engine.values import UnsafeText, VaultText


def _through_yaml(text: str) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_compose, "looks_like_json", lambda text: False)
        loaded = parse_yaml(text, "f.json")
    assert loaded.error is None, loaded.error
    return loaded.data


def _spans(value: object) -> object:
    if isinstance(value, dict):
        return ("map", value.span, [(key, value.key_spans[key], value.value_spans[key], _spans(item))
                                    for key, item in value.items()])
    if isinstance(value, list):
        return ("seq", value.span, value.item_spans, [_spans(item) for item in value])
    return None


def _typed(value: object) -> object:
    """A value with the type of every part, NaN made comparable."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _read(text: str) -> object:
    value = parse_json(text, "f.json")
    assert value is not None, text
    assert _typed(value) == _typed(json.loads(text))
    return value


CASES = [
    '{"a": [1, "x", {"b": null}],\n "c": 1.5e3, "d": "\\/\\u00e9", "e": 1.0e+3}\n',
    '[]', '{}', '[[], {}, [[]]]', '  {\n\t"k" :\n  "v" , "n": -0, "f": -0.5, "t": true, "z": false}  \n',
    '{"dup": 1, "other": 2, "dup": 3}',
    '{"long": "' + "é" * 300 + '", "after": "x"}',
    '{"multi": [\n  1,\n  2\n],\n"x": {\n}\n}',
    '{"big": 123456789012345678901234567890, "exp": 1E5, "neg": -1e-3, "dot": 10.25}',
    '{"<<": {"a": 1}, "b": 2}',
    '{"yes": "no", "on": "off", "~": null}',
    '{\r\n"a": [1,\r\n 2]}\r\n', '{"a":\t1}', '{"escaped": "\\u007f\\u0085\\t"}',
]


@pytest.mark.parametrize("text", CASES)
def test_json_values_with_the_yaml_paths_spans(text: str) -> None:
    assert _spans(_read(text)) == _spans(_through_yaml(text))


@pytest.mark.parametrize(("text", "expected"), [
    ('{"n": 1e3, "y": "yes", "nan": NaN, "inf": -Infinity}', {"n": 1000.0, "y": "yes", "inf": -math.inf}),
    ('["\\ud83d\\ude00"]', ["\U0001f600"]),
])
def test_where_json_and_yaml_1_1_differ_json_wins(text: str, expected: object) -> None:
    value = _read(text)
    if isinstance(value, dict):
        assert math.isnan(value.pop("nan"))
    assert value == expected


def test_ansibles_unsafe_and_vault_objects() -> None:
    value = parse_json('{"u": {"__ansible_unsafe": "{{ x }}"},\n "v": {"__ansible_vault": "$ANSIBLE_VAULT;1.1"}}',
                       "f.json")
    assert type(value["u"]) is UnsafeText and value["u"] == "{{ x }}"
    assert type(value["v"]) is VaultText
    assert value.value_spans["v"].line == 1
    # a serialized type, or an unsafe value that is no string: not followed, the YAML way reads it
    assert parse_json('{"t": {"__ansible_type": "x"}}', "f.json") is None
    assert parse_json('{"u": {"__ansible_unsafe": 1}}', "f.json") is None


def test_lines_end_as_an_editor_ends_them() -> None:
    value = parse_json('{\r"a": 1,\n"b": [\r\n2]}', "f.json")
    assert [span.line for span in value.key_spans.values()] == [1, 2]
    assert value["b"].item_spans[0].line == 3


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(json_values, max_size=4) | st.dictionaries(st.text(max_size=5), json_values, max_size=4),
       st.sampled_from([None, 1, 2]), st.booleans())
def test_generated_json(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    if any(key.startswith("__ansible_") for key in _keys(value)):
        return
    read = _read(text)
    lines_alike = not any(char in text for char in "\x85\u2028\u2029\r")  # YAML 1.1 ends lines at them too
    if lines_alike and not _yaml_refuses(text):
        assert _spans(read) == _spans(_through_yaml(text))


def _keys(value: object) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(key for item in value.values() for key in _keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in _keys(item)]
    return []


def _yaml_refuses(text: str) -> bool:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_compose, "looks_like_json", lambda text: False)
        return parse_yaml(text, "f.json").error is not None


@pytest.mark.parametrize("text", [
    '{"a": 1} trailing', '{"a": 1,}', "{'a': 1}", '{"a": "tab\there"}', '["\\ud83d"]', '{"a": nope}',
    '[' * 2000 + ']' * 2000, '{"a": 1',
])
def test_what_json_refuses_goes_the_yaml_way(text: str) -> None:
    assert parse_json(text, "f.json") is None
    loaded = parse_yaml(text, "f.json")  # and the YAML path answers, value or positioned error
    assert loaded.data is not None or loaded.error is not None

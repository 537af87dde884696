"""The engine's filters and tests against ansible-core 2.19's own, on the table of
``filter_table.py`` (edge inputs, usual and wrong arguments): the same value of the same type, or
an error where ansible fails. Where they still differ, the difference is listed here, with why
it is left."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import filter_table  # noqa: E402

# expression -> why the engine may still differ there (none of these is how roles use the filter)
KNOWN = {
    "{{ v_date | from_yaml }}": "a date is ansible's tagged datetime (type_debug names its class)",
    "{{ v_date | from_yaml_all }}": "a date is ansible's tagged datetime (type_debug names its class)",
    "{{ v_szero | max(attribute='n') }}": "a one-character string's missing attribute fails in ansible",
    "{{ v_szero | min(attribute='n') }}": "a one-character string's missing attribute fails in ansible",
    "{{ v_szero | sort(attribute='n') }}": "a one-character string's missing attribute fails in ansible",
    "{{ v_none | urlsplit }}": "urlsplit of no string: ansible fails storing a method of its bytes result",
    "{{ v_zero | urlsplit }}": "urlsplit of no string: ansible fails storing a method of its bytes result",
    "{{ v_false | urlsplit }}": "urlsplit of no string: ansible fails storing a method of its bytes result",
    "{{ v_none is filter }}": "ansible's plugin loader takes None, 0 or a float for a filter's name",
    "{{ v_zero is filter }}": "ansible's plugin loader takes None, 0 or a float for a filter's name",
    "{{ v_float is filter }}": "ansible's plugin loader takes None, 0 or a float for a filter's name",
    "{{ v_none is test }}": "ansible's plugin loader takes None, 0 or a float for a test's name",
    "{{ v_zero is test }}": "ansible's plugin loader takes None, 0 or a float for a test's name",
    "{{ v_float is test }}": "ansible's plugin loader takes None, 0 or a float for a test's name",
}


def test_the_engine_gives_what_ansible_gives() -> None:
    differing = {expression for expression, _expected, _got in filter_table.differences(filter_table.load())}
    assert differing - set(KNOWN) == set(), "differs from ansible-core"
    assert set(KNOWN) - differing == set(), "no longer differs: take it out of KNOWN"


def test_the_table_covers_every_filter_and_test() -> None:
    filters, tests = filter_table.engine_names()
    table = filter_table.load()
    expected = set(filter_table.cases(filters, tests))
    assert expected - set(table) == set(), "the table lacks them: record it again (python tests/engine/filter_table.py)"


def test_a_filter_error_is_worded_as_ansible_words_a_plugin_failure() -> None:
    render = filter_table.engine_renderer()
    outcome = filter_table.outcome(render, "{{ v_list | round(1) }}")
    assert outcome == filter_table.load()["{{ v_list | round(1) }}"] == {
        "error": "The filter plugin 'ansible.builtin.round' failed: type _AnsibleLazyTemplateList doesn't define "
                 "__round__ method"}


@pytest.mark.ansible
def test_the_table_is_what_ansible_gives() -> None:
    pytest.importorskip("ansible")
    recorded = filter_table.record()
    assert recorded == filter_table.load()

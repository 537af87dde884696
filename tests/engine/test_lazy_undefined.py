"""A variable whose template needs an undefined variable is undefined where it is used, as ansible
2.19's markers are: ``default`` and ``is defined`` see it as undefined, a branch not taken does not
fail, and a template that uses it fails with the undefined name (recorded from ansible-playbook
2.19: ``[a | default('d'), a is defined, b | default('bd')]`` is ``["d", false, "bd"]``)."""

from __future__ import annotations

import pytest

from engine.templating.templar import Templar, TemplateFailure

VARIABLES = {"a": "{{ nope }}", "b": "{{ a }}x", "loop": "{{ loop }}",
             "endpoint": "{% if true %}localhost{% else %}{{ a }}{% endif %}"}


def test_undefined_inside_a_variable_reads_as_undefined() -> None:
    templar = Templar(VARIABLES)
    assert templar.template("{{ [a | default('d'), a is defined, b | default('bd')] }}") == ["d", False, "bd"]
    assert templar.template("{{ endpoint }}") == "localhost"


def test_using_it_fails_with_the_undefined_name() -> None:
    with pytest.raises(TemplateFailure, match="'nope' is undefined"):
        Templar(VARIABLES).template("{{ b }}")


def test_a_loop_is_still_an_error_behind_default() -> None:
    with pytest.raises(TemplateFailure, match="Recursive loop"):
        Templar(VARIABLES).template("{{ loop | default('d') }}")

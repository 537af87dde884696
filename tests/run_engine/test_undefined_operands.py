"""An undefined value on the right of ``+`` or ``*`` with a list on the left, as ansible-core 2.19
words it: ansible's lazy list (a variable's list, a filter's or query's result, a slice of one)
calls ``list.__add__`` / ``list.__mul__`` itself, which fail on the undefined value as a Python
TypeError naming its class (UndefinedMarker) before the undefined value's own ``__radd__`` is
tried; a literal list, a string or a number meets the undefined value's own failure ("'x' is
undefined"). Checked against ansible-playbook 2.19 on the same expressions."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook

CONCATENATE = 'Error rendering template: can only concatenate list (not \\"UndefinedMarker\\") to list'
UNDEFINED = "'nope' is undefined"


@pytest.mark.parametrize(("expression", "message"), [
    ("base + nope", CONCATENATE),
    ("missing | default([]) + nope", CONCATENATE),
    ("(base | map('upper') | list) + nope", CONCATENATE),
    ("query('items', base) + nope", CONCATENATE),
    ("base[:1] + nope", CONCATENATE),
    ("base + d.missing", CONCATENATE),
    ("base * nope", "Error rendering template: 'UndefinedMarker' object cannot be interpreted as an integer"),
    ("[1] + nope", UNDEFINED),
    ("nope + base", UNDEFINED),
    ("s + nope", UNDEFINED),
    ("d | combine(nope)", UNDEFINED),
])
def test_an_undefined_operand_of_a_list(tmp_path: Path, expression: str, message: str) -> None:
    playbook = ("- hosts: localhost\n  gather_facts: false\n  vars: {base: [a, b], d: {x: 1}, s: text}\n  tasks:\n"
                f"    - debug: {{msg: \"{{{{ {expression} }}}}\"}}\n")
    code, text, _ = run_playbook(tmp_path, playbook)
    assert code == 2
    assert f"Error while resolving value for 'msg': {message}\"}}" in text

"""Which word under the cursor is a variable: inside {{ }} or {% %}, or in a condition."""

from __future__ import annotations

import pytest

from playbook_ls.features.variables import variable_at

TEXT = """\
- name: t
  debug:
    msg: "{{ app.port | default(web_port) }} and {{ 'literal' }} {% if flag %}x{% endif %}"
  when: enabled and version is defined
  failed_when:
    - result.rc != 0
    - other_flag
  tags: [deploy]
"""


def at(line: int, word: str, nth: int = 0) -> str | None:
    text = TEXT.splitlines()[line]
    column = -1
    for _ in range(nth + 1):
        column = text.index(word, column + 1)
    found = variable_at(TEXT, line, column + 1)
    return found.name if found else None


@pytest.mark.parametrize(("line", "word", "expected"), [
    (2, "app", "app"), (2, "port", None), (2, "default", None), (2, "web_port", "web_port"),
    (2, "literal", None), (2, "flag", "flag"), (2, "msg", None),
    (3, "enabled", "enabled"), (3, "version", "version"), (3, "defined", None), (3, "when", None),
    (5, "result", "result"), (5, "rc", None), (6, "other_flag", "other_flag"),
    (7, "deploy", None), (0, "t", None),
])
def test_variables_under_the_cursor(line: int, word: str, expected: str | None) -> None:
    assert at(line, word) == expected

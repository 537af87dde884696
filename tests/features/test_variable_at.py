"""Which word under the cursor is a variable: inside {{ }} or {% %}, or in a condition."""

from __future__ import annotations

import pytest

from playbook_ls.features.variables import VariableAt, variable_at

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


def test_lines_are_the_client_s_lines_past_a_line_separator(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """LSP ends lines only at CR, LF and CRLF: a U+2028 or U+2029 inside a line leaves the
    line numbers (and the columns after them) as the client counts them."""
    from playbook_ls.features.completion import complete
    from playbook_ls.features.workspace import WorkspaceIndex

    text = ('- hosts: localhost\n  gather_facts: false\n  vars:\n    ok: 1\n  tasks:\n'
            '    - debug:\n        msg: "a\u2028b\u2029 {{ o"\n      when: ok\n')
    (tmp_path / "site.yml").write_text(text)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    line = text.split("\n")[6]
    assert variable_at(text, 6, line.index("{{ o") + 4) == VariableAt("o", 6, line.index("{{ o") + 3,
                                                                      line.index("{{ o") + 4)
    found = complete(index, str(tmp_path / "site.yml"), 6, len(line) - 1, text)
    assert found is not None and "ok" in [item.label for item in found.items]
    assert variable_at(text, 7, text.split("\n")[7].index("ok")) is not None

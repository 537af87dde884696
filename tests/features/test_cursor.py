"""Both readers of a position (the parsed tree for navigation, the raw text for hover and
completion) describe a place the same way and agree on what it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.parsing.source import SourceCache
from playbook_ls.features import cursor, yamlnav
from playbook_ls.features.token_hover import token_at
from playbook_ls.features.yamltext import Doc, top_kind_from_text

PLAYBOOK = """\
- hosts: all
  roles:
    - common
    - role: web
      tags: [front, back]
  tasks:
    - name: one
      ansible.builtin.include_tasks:
        file: inc.yml
        apply:
          tags: applied
      notify: restart
    - import_tasks: other.yml
      tags: t1, t2
    - import_role:
        name: base
        tasks_from: extra
    - block:
        - debug: msg=x
          tags: inner
      rescue:
        - action: copy src=a dest=b
    - some.module:
        tags: an_option
- import_playbook: more.yml
"""

CASES = [
    ("common", cursor.ROLE),
    ("web", cursor.ROLE),
    ("front", cursor.TAG),
    ("inc.yml", cursor.TASK_FILE),
    ("applied", cursor.TAG),
    ("restart", cursor.NOTIFY),
    ("other.yml", cursor.TASK_FILE),
    ("t2", cursor.TAG),
    ("base", cursor.ROLE),
    ("extra", cursor.ROLE_FILE),
    ("inner", cursor.TAG),
    ("copy", cursor.MODULE),
    ("ansible.builtin.include_tasks", cursor.MODULE),
    ("more.yml", cursor.PLAYBOOK),
    ("an_option", None),  # a module's own tags option is not an ansible tag
    ("one", None),
    ("hosts", None),
    ("all", None),
]


def _position(needle: str) -> tuple[int, int]:
    for number, line in enumerate(PLAYBOOK.splitlines()):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def _from_text(line: int, column: int) -> str | None:
    token = token_at(Doc(PLAYBOOK), line, column, "play")
    if token is None:
        return None
    return cursor.name_kind(token.ctx, token.key, is_key=token.kind == "key", item=token.kind == "item")


def _from_tree(tmp_path: Path, line: int, column: int) -> str | None:
    path = tmp_path / "site.yml"
    path.write_text(PLAYBOOK)
    data = SourceCache().load(str(path)).data
    target = yamlnav.classify(data, PLAYBOOK.splitlines(), line, column)
    return target.kind if target is not None else None


@pytest.mark.parametrize(("needle", "expected"), CASES)
def test_text_and_tree_name_the_same_thing(tmp_path: Path, needle: str, expected: str | None) -> None:
    line, column = _position(needle)
    assert _from_text(line, column) == expected
    assert _from_tree(tmp_path, line, column) == expected


def test_the_top_level_kind_is_guessed_alike_from_tree_and_text(tmp_path: Path) -> None:
    tasks = "- name: a\n  debug: msg=x\n  notify: restart\n"
    for text, expected in ((PLAYBOOK, "play"), (tasks, "task")):
        path = tmp_path / "file.yml"
        path.write_text(text)
        assert yamlnav.top_kind_from_data(SourceCache().load(str(path)).data) == expected
        assert (top_kind_from_text(Doc(text)) or "task") == expected


def test_a_broken_buffer_is_read_from_the_text_alone() -> None:
    broken = PLAYBOOK.replace("tags: t1, t2", "tags: [t1, t2")
    line, column = next((n, text.index("t2") + 1) for n, text in enumerate(broken.splitlines()) if "t2" in text)
    token = token_at(Doc(broken), line, column, "play")
    assert token is not None
    assert cursor.name_kind(token.ctx, token.key, item=token.kind == "item") == cursor.TAG

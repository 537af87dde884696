"""Hover on a block's own lines shows what the block passes on to its tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from playbook_ls.features.hover import hover_markdown
from playbook_ls.features.workspace import WorkspaceIndex

SITE = """\
- hosts: all
  tags: web
  tasks:
    - name: group
      when: ready
      tags: [grp]
      block:
        - debug: msg=a
        - debug: msg=b
"""


def test_block_header_hover(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "site.yml").write_text(SITE)
    monkeypatch.chdir(tmp_path)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    path = str(tmp_path / "site.yml")
    text = hover_markdown(index, path, 4)
    assert text is not None and text.startswith('**block "group"** · 2 tasks')
    assert '`web` ← play "all" (site.yml:2) · `grp` ← this block' in text
    assert "- `ready` — this block" in text
    # a task inside the block still gets the task hover, the play line the play hover
    assert hover_markdown(index, path, 7).startswith("**debug** · `debug`")  # type: ignore[union-attr]
    assert hover_markdown(index, path, 0).startswith("**play** all")  # type: ignore[union-attr]


IMPORTS = """\
- hosts: all
  tasks:
    - name: group
      tags: [grp]
      block:
        - import_tasks: inc.yml
          tags: [imp]
          when: ready
        - import_role:
            name: r
"""


def test_static_import_hover(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an import_tasks / import_role entry: what it passes on to the tasks it brings in."""
    (tmp_path / "site.yml").write_text(IMPORTS)
    (tmp_path / "inc.yml").write_text("- debug: msg=a\n- debug: msg=b\n")
    (tmp_path / "roles/r/tasks").mkdir(parents=True)
    (tmp_path / "roles/r/tasks/main.yml").write_text("- debug: msg=c\n")
    monkeypatch.chdir(tmp_path)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    path = str(tmp_path / "site.yml")
    text = hover_markdown(index, path, 5)
    assert text is not None and text.startswith("**import_tasks inc.yml** · 2 tasks"), text
    assert "`grp` ← block \"group\" (site.yml:4) · `imp` ← this import" in text
    assert "- `ready` — this import" in text
    role = hover_markdown(index, path, 9)
    assert role is not None and role.startswith("**import_role r** · 1 task"), role
    # the block's own header still gets the block hover
    assert hover_markdown(index, path, 2).startswith('**block "group"**')  # type: ignore[union-attr]


def test_an_includes_when_is_checked_once_in_hover_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """include_tasks with when: flag is not defined, whose first task sets flag: ansible checks
    the condition once, on the include, and runs every included task. Hover and why say so,
    from one computation, and neither calls it the task's own."""
    from playbook_ls.features import selection

    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks:\n    - name: Include it\n      include_tasks: inc.yml\n"
                                       "      when: flag is not defined\n")
    (tmp_path / "inc.yml").write_text("- set_fact:\n    flag: true\n- name: Second\n  debug: msg=second\n")
    monkeypatch.chdir(tmp_path)
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    expected = ("`flag is not defined` — the include_tasks at site.yml:3: checked once, when it runs; "
                "the tasks it loads do not re-check it")
    text = hover_markdown(index, str(tmp_path / "inc.yml"), 2)
    assert text is not None and expected in text
    preview = selection.make_preview(None, None, None, ([], []))
    [explanation] = selection.explain(index, str(tmp_path / "inc.yml"), 2, preview)
    [condition] = selection.context_json(explanation)["when"]
    assert f"`{condition['condition']}` — {condition['from']}" == expected

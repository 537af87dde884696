"""Hover on a block's own lines shows what the block passes on to its tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from playbook_ls.features.hover import hover_markdown
from playbook_ls.workspace import WorkspaceIndex

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

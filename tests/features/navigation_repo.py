"""A small repository exercising every kind of navigation, indexed once per test module.

Not a conftest: other feature tests share this directory and bring their own fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from playbook_ls.features.workspace import WorkspaceIndex

FILES = {
    "site.yml": """\
- import_playbook: web.yml
  tags: nightly
""",
    "web.yml": """\
- name: web servers
  hosts: web
  tags: [edge, "front"]
  pre_tasks:
    - name: prepare
      include_tasks: tasks/prepare.yml
  roles:
    - role: web
      tags: web, www
  tasks:
    - name: outer block
      tags: blk
      block:
        - name: in block
          debug: msg=hi
          notify: restart web

        - import_tasks:
            file: tasks/common.yml
      rescue:
        - name: rescued
          debug: msg=oops
          notify:
            - reload things
    - include_role:
        name: base
        tasks_from: extra
        apply:
          tags: applied
  handlers:
    - name: reload things
      debug: msg=reload
""",
    "tasks/prepare.yml": "- name: preparing\n  debug: msg=prep\n",
    "tasks/common.yml": "- name: common one\n  debug: msg=c\n- import_tasks: more.yml\n",
    "tasks/more.yml": "- name: more\n  debug: msg=m\n",
    "roles/web/tasks/main.yml": """\
- name: install web
  debug: msg=install
  tags: install
  notify: restart web
""",
    "roles/web/handlers/main.yml": """\
- name: restart web
  debug: msg=restart
- name: also restart
  debug: msg=listening
  listen: restart web
""",
    "roles/web/meta/main.yml": "dependencies:\n  - role: base\n    tags: basedep\n",
    "roles/base/tasks/main.yml": "- name: base main\n  debug: msg=base\n",
    "roles/base/tasks/extra.yml": "- name: base extra\n  debug: msg=extra\n",
    "roles/lonely/tasks/main.yml": """\
- name: lonely
  debug: msg=alone
  notify: nobody
- import_role:
    name: base
""",
}


class Repo:
    """The indexed repository, and positions in it found by the text they point at."""

    def __init__(self, root: Path, index: WorkspaceIndex) -> None:
        self.root, self.index = root, index

    def path(self, name: str) -> str:
        return str(self.root / name)

    def at(self, name: str, needle: str, nth: int = 0, offset: int = 1) -> tuple[str, int, int]:
        """``(path, line, column)`` of the ``nth`` occurrence of ``needle`` (plus ``offset``)."""
        lines = (self.root / name).read_text().splitlines()
        hits = [(number, col) for number, line in enumerate(lines)
                for col in range(len(line)) if line.startswith(needle, col)]
        number, col = hits[nth]
        return self.path(name), number, col + offset

    def where(self, spans: list) -> list[tuple[str, int, str]]:
        """Spans as ``(relative file, line, text)`` for readable assertions."""
        result = []
        for span in spans:
            line = Path(span.file).read_text().splitlines()[span.line]
            whole_file = (span.line, span.col, span.end_line, span.end_col) == (0, 0, 0, 0)
            text = line[span.col:span.end_col] if span.line == span.end_line and not whole_file else ""
            result.append((os.path.relpath(span.file, self.root), span.line, text))
        return result


def build(root: Path, files: dict[str, str]) -> Repo:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    index = WorkspaceIndex(str(root))
    index.index()
    return Repo(root, index)


def indexed_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    """For a module-scoped fixture: the repository indexed in a clean environment."""
    base = tmp_path_factory.mktemp("nav")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_RUN_TAGS", "ANSIBLE_SKIP_TAGS"):
            patch.delenv(name, raising=False)
        patch.setenv("HOME", str(base))
        patch.chdir(base)
        (base / "repo").mkdir()
        yield build(base / "repo", FILES)

"""A cache never changes a result: what is worked out from files (a role's defaults, a task's
variable levels, what earlier tasks set, an analysis) is kept until the files change, not for a
moment, so a value hovered right after a file changed on disk is the file's new one."""

from __future__ import annotations

import os
from pathlib import Path

from playbook_ls.features import variables
from playbook_ls.features.workspace import WorkspaceIndex


def _value_of_port(index: WorkspaceIndex, path: Path) -> str:
    line = 4
    text = path.read_text().splitlines()[line]
    hover = variables.hover_markdown(index, str(path), line, text.index("port }}"))
    assert hover is not None
    return hover


def _rewrite(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))  # a later time, even on a coarse clock


def test_a_changed_role_default_and_vars_file_show_at_once(tmp_path: Path) -> None:
    (tmp_path / "hosts.ini").write_text("web1\n")
    (tmp_path / "ansible.cfg").write_text("[defaults]\ninventory = hosts.ini\n")
    role = tmp_path / "roles" / "web"
    (role / "tasks").mkdir(parents=True)
    (role / "defaults").mkdir()
    (role / "defaults" / "main.yml").write_text("port: 80\n")
    (tmp_path / "extra.yml").write_text("extra: a\n")
    (role / "tasks" / "main.yml").write_text('- include_vars: "{{ playbook_dir }}/extra.yml"\n'
                                             '- set_fact:\n    seen: "{{ extra }}"\n'
                                             '- debug:\n    msg: "{{ port }}"\n'
                                             '- debug:\n    msg: "{{ seen }}"\n')
    (tmp_path / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  roles: [web]\n")
    index = WorkspaceIndex(str(tmp_path))
    index.index()
    tasks = role / "tasks" / "main.yml"
    assert "`80`" in _value_of_port(index, tasks)
    _rewrite(role / "defaults" / "main.yml", "port: 8080\n")
    index.refresh([str(role / "defaults" / "main.yml")], on_disk=True)
    assert "`8080`" in _value_of_port(index, tasks)

    def seen() -> str:
        hover = variables.hover_markdown(index, str(tasks), 6, 14)  # `seen`, set from the included file
        assert hover is not None
        return hover

    assert "`'a'`" in seen() or '`"a"`' in seen() or "`a`" in seen(), seen()
    _rewrite(tmp_path / "extra.yml", "extra: bb\n")
    index.refresh([str(tmp_path / "extra.yml")], on_disk=True)
    assert "bb" in seen(), seen()

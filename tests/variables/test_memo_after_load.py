"""What is followed on a play's hosts is kept in one store per play (engine.variables.host_runtime
``followed_memo``). Tasks an include loads again while the run is planned drop that store; dropped
in the middle of following, no store was begun again until the outermost walk ended, so every walk
after it got a store of its own and kept nothing: a looping include_role after a looping
include_tasks named by its items had its items templated again at every setter, every item and
every host (minutes of CPU for two hosts). The work now grows with hosts and items, not with
their products over every walk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from var_values import scenario_plan, values_at

from engine.variables import loop_vars

SITE = """
- name: repositories
  hosts: repo
  gather_facts: false
  tasks:
    - name: formats
      ansible.builtin.include_tasks: "formats/{{ fmt }}.yml"
      loop: "{{ formats }}"
      loop_control: {loop_var: fmt, index_var: fmt_index}
    - name: wanted
      ansible.builtin.set_fact:
        wanted: "{{ repos | selectattr('format', 'in', formats) | list }}"
    - name: each repository
      ansible.builtin.include_role: {name: repo}
      loop: "{{ wanted }}"
      loop_control: {loop_var: repo, index_var: repo_idx}
    - name: probe
      ansible.builtin.debug:
        msg: {created: "{{ created }}"}
"""

ROLE = """
- name: check
  ansible.builtin.debug: {msg: "{{ repo.name }}"}
  changed_when: repo.format == 'docker'
  notify: reindex
- name: create
  ansible.builtin.set_fact:
    created: "{{ created | default([]) + [repo.name ~ '@' ~ settings[repo.format]] }}"
"""

HANDLERS = """
- name: reindex
  ansible.builtin.set_fact:
    reindexed: "{{ (reindexed | default(0) | int) + 1 }}"
"""

FORMAT = """
- name: {fmt}
  ansible.builtin.set_fact:
    settings: "{{{{ settings | default({{}}) | combine({{'{fmt}': fmt_index}}) }}}}"
"""


def _project(root: Path, hosts: int, items: int) -> Path:
    formats = ["maven", "npm", "docker"]
    (root / "formats").mkdir(parents=True)
    for fmt in formats:
        (root / "formats" / f"{fmt}.yml").write_text(FORMAT.format(fmt=fmt))
    (root / "roles" / "repo" / "tasks").mkdir(parents=True)
    (root / "roles" / "repo" / "tasks" / "main.yml").write_text(ROLE)
    (root / "roles" / "repo" / "handlers").mkdir()
    (root / "roles" / "repo" / "handlers" / "main.yml").write_text(HANDLERS)
    repos = [{"name": f"r{n}", "format": formats[n % 3]} for n in range(items)]
    (root / "inventory.ini").write_text("[repo]\n" + "".join(
        f"h{n} formats='{json.dumps(formats[: 1 + n % 3])}'\n" for n in range(hosts)))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "repo.yml").write_text(f"repos: {json.dumps(repos)}\n")
    (root / "site.yml").write_text(SITE)
    (root / "case.json").write_text(json.dumps({"inventory": ["inventory.ini"]}))
    return root


BOUND = 5000
"""Templatings past which a question stops (each walk keeping nothing made it tens of thousands)."""


def _templated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The looping includes' items templated, one entry per templating."""
    counted: list[str] = []
    original = loop_vars.loop_scopes

    def counting(task, templar):  # type: ignore[no-untyped-def]
        if task.name in ("formats", "each repository"):
            counted.append(task.name)
            if len(counted) > BOUND:
                pytest.fail(f"the includes' items templated over {BOUND} times")
        return original(task, templar)

    monkeypatch.setattr(loop_vars, "loop_scopes", counting)
    return counted


def _asked(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    monkeypatch.chdir(root)
    templated = _templated(monkeypatch)
    found = values_at(root, "site.yml:17", "h2", 0, ["created"])
    count = len(templated)
    monkeypatch.undo()
    return found, count


def _exact_or_unknown(found: dict[str, Any], ansible: list[str]) -> bool:
    return found["created"] == ansible or str(found["created"]).startswith("unknown: ")


def test_items_templated_in_proportion_to_hosts_and_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, small_count = _asked(_project(tmp_path / "small", 3, 3), monkeypatch)
    assert _exact_or_unknown(small, ["r0@0", "r1@1", "r2@2"])  # ansible's on h2
    large, large_count = _asked(_project(tmp_path / "large", 6, 6), monkeypatch)
    assert _exact_or_unknown(large, ["r0@0", "r1@1", "r2@2", "r3@0", "r4@1", "r5@2"])
    scenario_plan.cache_clear()
    # twice the hosts and twice the items: at most about four times the templating (521 and 1427)
    assert large_count <= 4 * small_count, (small_count, large_count)

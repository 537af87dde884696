"""A host that failed in an earlier play and is not among a later play's hosts has no outcome in that
play: ansible-playbook lists and runs a play's tasks on the play's hosts only (those that failed
before are left out of them). The plan listed every host that failed before at each task of every
later play, as stopped."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import planned_by_play

INVENTORY = "a\nb\nc\n"
PLAYBOOK = """
- hosts: all
  gather_facts: false
  tasks:
    - name: Fail on some
      ansible.builtin.fail: {msg: stop}
      when: inventory_hostname in failing
- hosts: a
  gather_facts: false
  tasks:
    - {name: Second play task, ansible.builtin.debug: {msg: hi}}
- hosts: a,b
  gather_facts: false
  tasks:
    - {name: Third play task, ansible.builtin.debug: {msg: hi}}
"""


@pytest.mark.parametrize(("failing", "second", "third"), [
    ("['b']", {"a": "runs"}, {"a": "runs", "b": "skipped"}),
    ("['a', 'b', 'c']", {"a": "skipped"}, {"a": "skipped", "b": "skipped"}),
])
def test_hosts_failed_before_are_listed_only_in_plays_they_are_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, second: dict[str, str],
        third: dict[str, str]) -> None:
    (tmp_path / "inventory.ini").write_text(INVENTORY)
    (tmp_path / "site.yml").write_text(PLAYBOOK.replace("in failing", f"in {failing}"))
    monkeypatch.chdir(tmp_path)
    plays = planned_by_play(tmp_path)
    rows = {name: {host: outcome for task, host, outcome, _ in play_rows}
            for _, _, play_rows in plays[1:] for name in {task for task, *_ in play_rows}}
    assert rows["Second play task"] == second
    assert rows["Third play task"] == third

"""Whether a setter in a block with a ``rescue`` of the reader's own play ran by the reader is a
question of the sections of those blocks the reader is in (engine.variables.block_runs.runs_there):
readers in the same sections share each host's answers (engine.variables.walk_classes), readers in
other sections are given their own, and the plan stays what walking each host on its own gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import planned_rows, walked_alone_fleet

from engine.variables import walk_classes

PLAYBOOK = """
- name: own rescue
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: probe, ansible.builtin.set_fact: {probed: "{{ rack }}"}}
        - {name: may break, ansible.builtin.command: "false", when: rack | int == 1}
        - {name: set late, ansible.builtin.set_fact: {late: "{{ rack }}"}}
        - {name: in block, ansible.builtin.debug: {msg: b}, when: probed is defined and late is defined}
      rescue:
        - {name: in rescue, ansible.builtin.debug: {msg: r}, when: late is defined}
        - {name: in rescue too, ansible.builtin.debug: {msg: r2}, when: late is not defined and probed is defined}
    - {name: after 1, ansible.builtin.debug: {msg: a1}, when: late is defined}
    - {name: after 2, ansible.builtin.debug: {msg: a2}, when: late is not defined}
"""


fleet = walked_alone_fleet("[web]\n" + "".join(f"h{n:02d} rack={n % 3}\n" for n in range(9)), PLAYBOOK)


def test_readers_in_other_sections_are_given_their_own_answers(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    original = walk_classes._TaskSteps.keep_answers
    kept: dict[str, int] = {}

    def keep(self, follower, play_plan):  # type: ignore[no-untyped-def]
        original(self, follower, play_plan)
        if self.answers is not None and self.reader_path is not None:
            kept.setdefault(repr(self.reader_path), id(self.answers))

    monkeypatch.setattr(walk_classes._TaskSteps, "keep_answers", keep)
    assert planned_rows(root) == alone
    # on a host the command may fail, the setter after it ran for a reader in the block (it got there)
    # and only maybe for one after the block
    outcomes = {(task, host): outcome for task, host, outcome, _ in alone}
    assert outcomes[("in block", "h01")] == "runs" and outcomes[("after 1", "h01")] == "depends"
    assert outcomes[("after 1", "h00")] == "runs"
    assert len(kept) >= 2 and len(set(kept.values())) == len(kept)  # one table of answers per run of sections

"""Whether a setter in a block with a ``rescue`` ran on a host is, where the blocks around it decide
it without asking whether an earlier task fails the host, the same on every host
(engine.variables.block_runs.runs_anywhere): found once, not once per host of a fleet; where they
ask, it is each host's (None)."""

from __future__ import annotations

from pathlib import Path

from engine.loading.resolve import Resolver
from engine.variables.block_runs import play_blocks, runs_anywhere, runs_there

PLAYBOOK = """
- hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: first, ansible.builtin.set_fact: {a: 1}}
        - {name: may break, ansible.builtin.command: "false"}
        - {name: late, ansible.builtin.set_fact: {b: 1}}
        - {name: reader in block, ansible.builtin.debug: {msg: b}}
      rescue:
        - {name: rescued, ansible.builtin.set_fact: {c: 1}}
      always:
        - {name: first always, ansible.builtin.set_fact: {d: 1}}
    - {name: after, ansible.builtin.debug: {msg: a}}
"""


def test_answered_alike_only_where_no_failure_is_asked(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    play = Resolver().load_playbook(str(tmp_path / "site.yml")).plays[0]
    tasks, pending = {}, list(play.compile())
    while pending:
        item = pending.pop()
        if hasattr(item, "rescue"):
            pending.extend([*item.block, *item.rescue, *item.always])
        else:
            tasks[item.name] = item
            pending.extend(getattr(item, "children", ()))
    blocks = play_blocks(play)
    after, in_block = tasks["after"], tasks["reader in block"]
    # nothing before it may fail; the always section runs whatever failed
    assert runs_anywhere(blocks, tasks["first"], after) is True
    assert runs_anywhere(blocks, tasks["first always"], after) is True
    # the command before them may fail a host: each host's own answer
    assert runs_anywhere(blocks, tasks["late"], after) is None
    assert runs_anywhere(blocks, tasks["rescued"], after) is None
    # a reader in the same section got there with the setter: it ran
    assert runs_anywhere(blocks, tasks["late"], in_block) is True
    # where it answers, it is what each host is answered, whatever fails there
    for fails in (lambda task: True, lambda task: False, lambda task: "the run's"):
        assert runs_there(blocks, tasks["first"], after, fails) is True
        assert runs_there(blocks, tasks["late"], in_block, fails) is True
    assert runs_there(blocks, tasks["late"], after, lambda task: True) is False

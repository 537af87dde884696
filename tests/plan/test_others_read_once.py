"""Another host's variables (``hostvars``) are followed once for all the hosts that read them
alike (engine.variables.host_answers.others_alike: one batch of the linear strategy, no looping
include around the task): a loop over the fleet's hostvars on every host cost hosts x hosts
walks. The plan is the one followed for each reader on its own; in a play of several batches each
reader still follows its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import calls_counted

from engine.flow.host_plan import plan_hosts
from engine.flow.plan import RunOptions, make_plan
from engine.variables import followed_hostvars

HOSTS = 12
PLAYBOOK = """\
- name: note each host
  hosts: all
  gather_facts: false
  {serial}
  tasks:
    - name: note
      set_fact:
        note: "{{{{ 'big' if weight | int > 5 else 'small' }}}}"
    - name: over the fleet's notes
      debug:
        msg: "{{{{ item }}}}"
      loop: "{{{{ groups['all'] | map('extract', hostvars, 'note') | unique | list }}}}"
      when: item == 'big'
"""


def _plan(root: Path, serial: str) -> tuple[dict[tuple[str, str], tuple[str, str]], int]:
    lines = ["[fleet]", *(f"h{n:02d} weight={n}" for n in range(HOSTS))]
    (root / "hosts.ini").write_text("\n".join(lines) + "\n")
    (root / "site.yml").write_text(PLAYBOOK.format(serial=serial))
    with pytest.MonkeyPatch.context() as patch:
        calls = calls_counted(patch, followed_hostvars.FollowedHostVars, "_followed_values")
        plan = make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "hosts.ini")]))
        found = {(task.name, host): (outcome.outcome, outcome.reason)
                 for play in plan_hosts(plan) for task in play.tasks for host, outcome in task.hosts.items()}
    return found, len(calls)


@pytest.mark.parametrize("serial", ["", "serial: 4"])
def test_hostvars_followed_once_where_read_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, serial: str) -> None:
    for side in ("shared", "alone"):
        (tmp_path / side).mkdir()
    shared, calls = _plan(tmp_path / "shared", serial)
    monkeypatch.setattr(followed_hostvars, "others_alike", lambda play_plan, task: False)
    alone, calls_alone = _plan(tmp_path / "alone", serial)
    assert shared == alone
    looped = {outcome for (task, _), (outcome, _) in shared.items() if task == "over the fleet's notes"}
    if serial:  # the first batch reads notes the later batches have not set yet: undefined, as ansible fails
        assert "fails" in looped
        assert calls == calls_alone  # each batch's readers follow their own
    else:
        assert looped == {"runs"}  # an item is big on every host
        assert calls == HOSTS < calls_alone

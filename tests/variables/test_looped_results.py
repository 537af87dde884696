"""A looped module task's registered result before the run: each item's loop variables and
whether its ``when`` skipped it are known (``TaskExecutor._run_loop``); what the module returns
for an item it runs, and the loop's ``msg``, are the run's; the loop's ``changed`` is known where
each item's ``changed_when`` decides it (a command reports a change), outside check mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from var_values import values_at

PLAY = """\
- hosts: web
  gather_facts: false
  tasks:
    - name: write
      ansible.builtin.command: "echo {{{{ item }}}}"
      loop: [a, b, c]
      when: item != 'b'
      register: written{check}
    - name: probe
      ansible.builtin.debug:
        msg: "{{{{ ran }}}}"
      vars:
        ran: "{{{{ written.results | rejectattr('skipped', 'defined') | map(attribute='item') | list }}}}"
        reason: "{{{{ written.results[1].false_condition }}}}"
        whole_skipped: "{{{{ written.skipped }}}}"
        output: "{{{{ written.results[0].stdout }}}}"
        changed: "{{{{ written.changed }}}}"
"""


@pytest.mark.parametrize("check", [False, True])
def test_looped_command_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: bool) -> None:
    (tmp_path / "site.yml").write_text(PLAY.format(check="\n      check_mode: true" if check else ""))
    (tmp_path / "hosts.ini").write_text("[web]\nw1\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    where = f"site.yml:{10 if check else 9}"
    values = values_at(tmp_path, where, "w1", 0, ["ran", "reason", "whole_skipped", "output", "changed"])
    assert values["reason"] == "item != 'b'"
    # in check mode the command skips itself at each item it would run (command.py without
    # creates/removes): each item's result is known (so is the loop's changed), its skipped stays the run's
    unknown = ["whole_skipped"] if check else ["output"]
    if check:
        assert values["ran"] == []
        assert values["output"] == ""
        assert values["changed"] is False
    else:
        assert values["ran"] == ["a", "c"]
        assert values["whole_skipped"] is False
        assert values["changed"] is True  # the items a command ran report a change
    for name in unknown:
        assert str(values[name]).startswith("unknown: "), (name, values[name])

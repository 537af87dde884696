"""A `when` ansible fails on (its value is no boolean) fails in the plan with ansible's message,
naming where the value is written as ansible does (an INI line, a YAML value's line and column),
not '<unknown>'."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import plan_outcomes

PLAY = """\
- hosts: srv
  gather_facts: false
  tasks:
    - name: audit
      ansible.builtin.debug:
        msg: x
      when: audit
      ignore_errors: true
    - name: flag
      ansible.builtin.debug:
        msg: y
      when: flag
      ignore_errors: true
"""


def test_the_failure_names_where_the_value_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "site.yml").write_text(PLAY)
    (tmp_path / "inventory.ini").write_text("[srv]\ns1 audit=yes\ns2 audit=false\n")
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "srv.yml").write_text('flag: "on"\n')
    monkeypatch.chdir(tmp_path)
    found = {(where, host): (outcome, reason) for where, host, outcome, reason, *_ in
             plan_outcomes(tmp_path, [], "inventory.ini")}
    message = "Conditional result (True) was derived from value of type 'str' at '{}'. Conditionals must have " \
              "a boolean result."
    # ansible-core 2.19: inventory.ini:2 and :3 (an INI line), group_vars/srv.yml:1:7
    assert found[("site.yml:4", "s1")] == ("fails", "`audit` (this task): " + message.format(
        tmp_path / "inventory.ini:2"))
    assert found[("site.yml:4", "s2")][1].endswith(message.format(tmp_path / "inventory.ini:3"))
    assert found[("site.yml:9", "s2")][1].endswith(message.format(tmp_path / "group_vars" / "srv.yml:1:7"))

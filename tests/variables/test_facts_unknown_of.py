"""The reasons a fleet's hosts' facts are the run's, worked out for many hosts at once
(engine.variables.host_facts.facts_unknown_of), are each host's own (facts_unknown), at every play."""

from __future__ import annotations

from pathlib import Path

from engine.flow.host_plan import plan_hosts
from engine.flow.plan import RunOptions, make_plan
from engine.parsing.source import files_changed
from engine.variables.host_facts import facts_unknown, facts_unknown_of

_PLAYBOOK = """\
- hosts: web
  gather_facts: false
  tasks:
    - debug: msg=one
- hosts: db
  gather_facts: true
  tasks:
    - debug: msg=two
- hosts: all
  gather_facts: false
  tasks:
    - setup:
      when: inventory_hostname == 'nothing'
- hosts: web:db
  gather_facts: true
  tasks:
    - debug: msg=three
"""


def test_many_hosts_reasons_are_each_hosts_own(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text(_PLAYBOOK)
    (tmp_path / "hosts.ini").write_text("[web]\nw[1:4]\n[db]\nd[1:3]\nw1\n[other]\no[1:2]\n")
    files_changed()
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "hosts.ini")]))
    plan_hosts(plan)
    hosts = list(plan.inventory.data.hosts.values())
    seen = set()
    for play_plan in plan.plays:
        names = [host.name for host in hosts]
        together = facts_unknown_of(plan, play_plan, names)
        alone = {host.name: facts_unknown(plan, play_plan, host) for host in hosts}
        assert together == {name: reason for name, reason in alone.items() if reason is not None}
        seen.update(alone.values())
    assert None in seen and len(seen) >= 3  # none yet, a gathering play's, a play running setup

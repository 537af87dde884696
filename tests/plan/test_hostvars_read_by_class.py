"""A task reading other hosts' variables (``groups['cache'] | map('extract', hostvars, 'ansible_host')``,
``hostvars[groups['db'][0]]['ansible_host']``), also beside what earlier tasks set on the host, is read
once per class of hosts where every host reads the others alike (engine.variables.host_answers.others_alike),
even after a task that may set any name (a templated ``set_fact`` key): ``hostvars`` is ansible's magic
variable, over every level, so no task sets it on the reader, and what it gives is named by the other
names read. The outcomes are those of each host read on its own, and the readings do not grow with the
hosts."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import hosts_asked, planned_rows, readings_by_size, shared_and_alone

from engine.variables import followed_hostvars
from engine.variables.host_runtime import Follower

PLAYBOOK = """
- name: caches
  hosts: cache
  gather_facts: false
  tasks:
    - name: a name only the run tells
      ansible.builtin.set_fact: {"{{ tier }}_seen": true}
    - name: cache port
      ansible.builtin.set_fact: {cache_port: "{{ 6379 if tier == 'gold' else 6380 }}"}
    - name: one cache renamed
      ansible.builtin.set_fact: {ansible_host: "renamed-{{ inventory_hostname }}"}
      when: inventory_hostname == 'cache1'
    - {name: motd, ansible.builtin.set_fact: {motd: "{{ tier }} cache"}}
    - {name: banner, ansible.builtin.set_fact: {banner: "{{ motd }} in {{ dc }}"}}
    - {name: checked, ansible.builtin.assert: {that: banner is defined}, register: checked}
- name: applications
  hosts: app
  gather_facts: false
  tasks:
    - name: another name only the run tells
      ansible.builtin.set_fact: {"{{ dc }}_app": true}
    - name: app cache hosts
      ansible.builtin.set_fact:
        app_cache_hosts: >-
          {{ groups['cache'] | intersect(groups['dc_' ~ dc]) | map('extract', hostvars, 'ansible_host') | list }}
    - name: cache ports
      ansible.builtin.set_fact:
        ports: "{{ groups['cache'] | intersect(groups['dc_' ~ dc]) | map('extract', hostvars, 'cache_port') | list }}"
    - name: write env
      ansible.builtin.copy:
        dest: /tmp/app.env
        content: "DB={{ hostvars[groups['cache'][0]]['ansible_host'] }} CACHE={{ app_cache_hosts | join(',') }}"
      when: app_env | default(true) | bool
    - name: on several caches
      ansible.builtin.debug: {msg: several}
      when: app_cache_hosts | length > 1
    - name: on a second port
      ansible.builtin.debug: {msg: second}
      when: 6380 in ports
    - name: on a renamed cache
      ansible.builtin.debug: {msg: renamed}
      when: app_cache_hosts | select('match', 'renamed-') | list | length > 0
"""
TASKS = ("app cache hosts", "cache ports", "write env", "on several caches", "on a second port", "on a renamed cache")


def _fleet(root: Path, hosts: int) -> None:
    centres = ("fra", "ams", "nyc")
    lines = ["[cache]"]
    lines += [f"cache{n} ansible_host=10.1.0.{n} dc={centres[n % 3]} tier={('gold', 'silver')[n % 2]}"
              for n in range(6)]
    lines += ["", "[app]"] + [f"app{n} ansible_host=10.2.{n // 250}.{n % 250} dc={centres[n % 3]}"
                              + (" app_env=false" if n % 7 == 0 else "") for n in range(hosts)]
    for centre in centres:
        lines += ["", f"[dc_{centre}]"] + [f"cache{n}" for n in range(6) if centres[n % 3] == centre]
        lines += [f"app{n}" for n in range(hosts) if centres[n % 3] == centre]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "site.yml").write_text(PLAYBOOK)


def test_hostvars_readers_share_changes_no_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 40)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    outcomes = {(task, outcome) for task, _host, outcome, _reason in shared}
    assert {("write env", "runs"), ("write env", "skipped"), ("on several caches", "runs"),
            ("on a second port", "runs"), ("on a renamed cache", "runs"), ("on a renamed cache", "skipped")} <= outcomes
    assert shared == alone


def test_other_hosts_followed_name_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a task before may set any name, another host's variables are followed for each name read
    through the setters that may set it (and those that may set any name), not through every setter:
    the same plan, fewer setters asked on the hosts read."""
    _fleet(tmp_path, 40)
    monkeypatch.chdir(tmp_path)
    asked = hosts_asked(monkeypatch, Follower, "_runs_on", 2, lambda args: args[2].name.startswith("cache"))
    by_name, by_name_asked = sorted(planned_rows(tmp_path)), len(asked)
    asked.clear()
    monkeypatch.setattr(followed_hostvars, "BY_NAME", False)
    assert sorted(planned_rows(tmp_path)) == by_name
    assert by_name_asked < len(asked), (by_name_asked, len(asked))


@pytest.mark.parametrize("task", TASKS)
def test_hostvars_readers_read_once_per_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str) -> None:
    counts = readings_by_size(tmp_path, monkeypatch, _fleet, task, (30, 90))
    assert counts[0] == counts[1], counts

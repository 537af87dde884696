"""The setters a looping include loads no longer make each host walk the tasks before a reader on
its own: a host's runs of them are what the include's items there, their order and the names the
runs read give (engine.variables.walk_steps._runs_told), so hosts alike in those share the walk
(engine.variables.walk_classes), as a hardening role's file looped over its mount points (each
item registering whether the mount exists, a fact listing the changed ones) had every host walk
it at each reader. Where a task of the file may fail the host, at which item each host's
templating decides is kept in its key too (a ``failed_when: false`` task fails where its
arguments do), as a monitoring agent's role's key import file, looped over its keys, had each host
walk it. The plan is the one walking every host alone."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import earlier_key, item_setter_reads, walk_classes

PLAYBOOK = """
- name: hardened mounts
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - name: each mount
          ansible.builtin.include_tasks: mount.yml
          loop:
            - {path: /boot, opts: "{{ boot_opts }}", enabled: "{{ boot_enabled }}"}
            - {path: /home, opts: "{{ home_opts }}", enabled: true}
            - {path: /tmp, opts: "{{ tmp_opts }}", enabled: "{{ tier | default('') == 'gold' }}"}
          loop_control: {loop_var: mount}
%s
    - {name: boot changed, ansible.builtin.debug: {msg: "{{ changed }}"}, when: "'/boot' in changed | default([])"}
    - {name: two changed, ansible.builtin.debug: {msg: "{{ changed }}"}, when: "changed | default([]) | length > 1"}
    - {name: three changed, ansible.builtin.debug: {msg: "{{ changed }}"}, when: "changed | default([]) | length > 2"}
    - {name: last skipped, ansible.builtin.debug: {msg: "{{ probe }}"}, when: probe is skipped}
  handlers:
    - {name: remount, ansible.builtin.debug: {msg: "{{ changed }}"}, when: "'/tmp:1' in changed | default([])"}
"""

RESCUE = """      rescue:
        - {name: rescued, ansible.builtin.debug: {msg: rescued}}"""
"""A rescue around the include: a host its file fails goes on after it."""

MOUNT = """
- name: probe mount
  ansible.builtin.debug: {msg: "mount -o remount,{{ mount.opts }} {{ mount.path }}"}
  changed_when: true
  register: probe
  when: mount.enabled | bool
  notify: remount
- name: record mount
  ansible.builtin.set_fact:
    changed: "{{ changed | default([]) + [mount.path ~ (':' ~ rack if mount.path == '/tmp' else '')] }}"
  when: probe is not skipped
- name: strict mount
  ansible.builtin.debug: {msg: "{{ mount.path }}"}
  when: probe is not skipped and 'noexec' in mount.opts
- {name: listed mount, ansible.builtin.debug: {msg: "{{ changed }}"}, when: "changed | default([]) | length > 1"}
"""

STOPPING = MOUNT.replace("- name: record mount", """- name: zone check
  ansible.builtin.assert: {that: "mount.path != '/home' or zone | default('a') != 'b'"}
- name: record mount""")
"""The file with a task that fails the host at one item on some hosts: where its runs stop is each
host's own templating, kept in its key."""

ARGUMENTS = MOUNT.replace("- name: record mount", """- name: zone probe
  ansible.builtin.debug: {msg: "{{ zones[mount.path] }}"}
  failed_when: false
- name: record mount""")
"""A task that never fails by its result but whose arguments fail on one host at one item (w03 has no
zone for /home)."""

READERS = ("strict mount", "listed mount", "boot changed", "two changed", "three changed", "last skipped", "remount")


def _fleet(root: Path, tmp_opts: str, mount: str = MOUNT, rescue: str = "") -> None:
    lines = ["[web]", *(f"w{n:02d} rack={n % 3}" + (" tier=gold" if n % 4 == 1 else "") + (" zone=b" if n == 3 else "")
                        for n in range(12)), "",
             "[db]", *(f"d{n:02d} rack={n % 2}" for n in range(12)), "",
             "[web:vars]", "boot_enabled=true", "boot_opts=rw,nosuid", "home_opts=rw,nodev", "",
             "[db:vars]", "boot_enabled=false", "boot_opts=rw,noexec", "home_opts=rw,noexec", ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text(f"tmp_opts: {tmp_opts!r}\nzones: {{/boot: a, /home: a, /tmp: a}}\n")
    (root / "host_vars").mkdir()
    (root / "host_vars" / "w03.yml").write_text("zones: {/boot: b, /tmp: b}\n")
    (root / "mount.yml").write_text(mount)
    (root / "site.yml").write_text(PLAYBOOK % rescue)


_ALONE: dict[str, dict[str, list]] = {"own": {}, "shared": {}, "assert": {}, "arguments": {}}  # type: ignore[type-arg] - each host walked on its own


@pytest.fixture(params=["own", "shared"])
def fleet(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list, str]:  # type: ignore[type-arg]
    # own: each group's /tmp item its own (every host runs its items in order); shared: the db hosts' /tmp
    # item is the plain web hosts' too, at the same place, so neither knows which comes first in the run
    tmp_opts = "{{ home_opts }},noexec" if request.param == "own" else "rw,noexec"
    root, alone = fleet_planned_alone(tmp_path, partial(_fleet, tmp_opts=tmp_opts), _ALONE[request.param], monkeypatch,
                                      (walk_classes, "SHARING", False), planned=planned_rows)
    return root, alone, request.param


def test_item_setters_share_walks(fleet: tuple[Path, list, str], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone, kind = fleet
    walked = hosts_asked(monkeypatch, earlier_key, "_walked", 3, lambda args: args[4].name in READERS)
    shared = planned_rows(root)
    assert shared == alone
    outcomes = {(task, outcome) for task, _, outcome, _ in shared}
    # what the runs set at the items tells the hosts apart: where the items' order is each host's
    # (the gold web hosts', everywhere in "own"), and where it is the run's
    told = {"own": ("runs", "skipped"), "shared": ("runs", "depends")}[kind]
    for task in ("boot changed", "three changed"):
        assert {(task, told[0]), (task, told[1])} <= outcomes, task
    # what a run reads of the host beside the item (the rack, at /tmp) tells the gold web hosts apart
    remount = {host: outcome for task, host, outcome, _ in shared if task == "remount"}
    assert (remount["w01"], remount["w05"], remount["w09"]) == ("runs", "skipped", "skipped")
    assert 0 < len(walked) < 24  # each of the 24 hosts walked for each of the seven readers, had none shared


@pytest.fixture(params=["assert", "arguments"])
def stopping(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    mount = STOPPING if request.param == "assert" else ARGUMENTS
    write = partial(_fleet, tmp_opts="{{ home_opts }},noexec", mount=mount, rescue=RESCUE)
    return fleet_planned_alone(tmp_path, write, _ALONE[request.param], monkeypatch, (walk_classes, "SHARING", False),
                               planned=planned_rows)


def test_stopping_file_shares_walks(stopping: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = stopping
    walked = hosts_asked(monkeypatch, earlier_key, "_walked", 3, lambda args: args[4].name in READERS)
    shared = planned_rows(root)
    assert shared == alone
    # w03 stops at /home before recording it (its zone, which no setter reads): w00, on its rack, records it
    two = {host: outcome for task, host, outcome, _ in shared if task == "two changed"}
    assert (two["w00"], two["w03"]) == ("runs", "skipped")
    # where each host stops is in its key: w03 is walked for its own, the hosts stopping nowhere share
    # (each of the 24 hosts walked for each of the seven readers, had none shared)
    assert "w03" in walked and len(set(walked)) < 12


def test_item_runs_keys_kept_per_host(fleet: tuple[Path, list, str], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """The include's items and their order on a host, and where its file stops the host (what each
    walk's key past the file's setters asks of the host), are found once per host and setters while
    the play's planned runs (and the handler runs planned so far) stay the same, not again at each
    of the seven readers."""
    root, alone, _kind = fleet
    asked = hosts_asked(monkeypatch, walk_classes, "item_runs_key", 2)
    found = hosts_asked(monkeypatch, item_setter_reads, "_item_runs_key", 2)
    assert planned_rows(root) == alone
    assert found and 2 * len(found) < len(asked), (len(found), len(asked))
    assert max(Counter(found).values()) <= 3, Counter(found)  # (again where the handler's runs were planned)

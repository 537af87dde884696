"""A reading that tests ``group_names`` only for membership of groups it names (``'web' in group_names``, ``'db'
not in group_names``, ``inventory_hostname not in groups['db']``) tells hosts apart by those memberships, not
by every group they are in: a fleet's hosts sit in a rack or datacenter group of their own, which such a
reading never looks at. The plan is the one of each host read on its own, and the readings do not grow with
the racks; a reading of the whole list (its length, a loop over it) still tells every group apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import hosts_asked, planned_rows, readings_by_size, shared_and_alone

from engine.templating.read_names import MEMBERSHIP, names_recorded, note_template
from engine.templating.templar import parsing_environment
from engine.variables.host_runtime import Follower

PLAYBOOK = """
- name: site
  hosts: all
  gather_facts: false
  tasks:
    - name: role of the host
      ansible.builtin.set_fact:
        is_web: "{{ 'web' in group_names }}"
        is_db: "{{ 'db' in group_names and 'legacy' not in group_names }}"
    - name: web only
      ansible.builtin.debug: {msg: web}
      when: is_web
    - name: db only
      ansible.builtin.debug: {msg: db}
      when: "'db' in group_names"
    - name: not legacy
      ansible.builtin.debug: {msg: modern}
      when: "'legacy' not in group_names and port > 1000"
    - name: in many groups
      ansible.builtin.debug: {msg: many}
      when: group_names | length > 3
    - name: outside the legacy group
      ansible.builtin.debug: {msg: outside}
      when: inventory_hostname not in groups['legacy'] and port > 1000
"""
MEMBERSHIP_TASKS = ("web only", "db only", "not legacy", "outside the legacy group")


def _fleet(root: Path, hosts: int) -> None:
    """``hosts`` hosts, web or db (every fifth db host also legacy), each in a rack group of its own
    and one of three datacenter groups; some with a port of their own."""
    kinds = {"web": [], "db": [], "legacy": []}
    racks = []
    for n in range(hosts):
        name = f"h{n:03d}"
        kinds["db" if n % 3 == 0 else "web"].append(name)
        if n % 15 == 0:
            kinds["legacy"].append(name)
        racks.append((f"rack_{n:03d}", name))
    lines = ["[all:vars]", "port=8080", ""]
    for kind, members in kinds.items():
        lines += [f"[{kind}]", *(f"{name} port=80" if kind == "legacy" else name for name in members), ""]
    for rack, name in racks:
        lines += [f"[{rack}]", name, ""]
    for centre in range(3):
        lines += [f"[dc_{centre}]", *(f"h{n:03d}" for n in range(hosts) if n % 3 == centre), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "site.yml").write_text(PLAYBOOK)


def test_membership_readers_plan_as_each_host_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path, 45)
    shared, alone = shared_and_alone(tmp_path, monkeypatch)
    outcomes = {(task, outcome) for task, _host, outcome, _reason in shared}
    assert {("web only", "runs"), ("web only", "skipped"), ("db only", "runs"), ("db only", "skipped"),
            ("not legacy", "runs"), ("not legacy", "skipped"), ("in many groups", "skipped"),
            ("outside the legacy group", "runs"), ("outside the legacy group", "skipped")} <= outcomes
    assert shared == alone


@pytest.mark.parametrize("task", MEMBERSHIP_TASKS)
def test_membership_readers_read_once_per_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str) -> None:
    counts = readings_by_size(tmp_path, monkeypatch, _fleet, task, (30, 90))
    assert counts[0] == counts[1], counts


def test_a_whole_list_reader_tells_every_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = readings_by_size(tmp_path, monkeypatch, _fleet, "in many groups", (30, 90))
    assert counts[0] < counts[1], counts


@pytest.mark.parametrize(("text", "tested"), [
    ("{{ 'web' in group_names }}", {"web"}),
    ("{{ 'web' not in group_names and ('db' in group_names) }}", {"web", "db"}),
    ("{% if 'web' in group_names %}{{ port }}{% endif %}", {"web"}),
    ("{{ inventory_hostname not in groups['kube_master'] }}", {"kube_master"}),
    ("{{ inventory_hostname in groups.etcd or 'web' in group_names }}", {"etcd", "web"}),
    ("{{ group_names | length }}", None),
    ("{{ 'web' in group_names or group_names[0] == 'db' }}", None),
    ("{{ kind in group_names }}", None),
    ("{{ 'a' in group_names in things }}", None),
    ("{% set group_names = [] %}{{ 'web' in group_names }}", None),
    ("{{ inventory_hostname in groups[kind] }}", None),
    ("{{ inventory_hostname in groups['web'] and inventory_hostname != 'h1' }}", None),
    ("{{ inventory_hostname in hosts_list }}", None),
])
def test_membership_tests_are_told_only_where_that_is_all_the_template_reads(text: str, tested: set[str] | None
                                                                             ) -> None:
    with names_recorded(memberships=True) as told, names_recorded() as plain:
        note_template(text, parsing_environment().parse)
    identity = plain & {"group_names", "inventory_hostname"}
    assert identity
    if tested is None:
        assert identity <= told
        assert not any(name.startswith(MEMBERSHIP) for name in told)
    else:
        assert not identity & told
        assert {name[len(MEMBERSHIP):] for name in told if name.startswith(MEMBERSHIP)} == tested


def test_a_setter_testing_membership_is_followed_once_per_class(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What a ``set_fact`` of ``'web' in group_names`` sets is worked out once per class of hosts in the
    same of the groups tested (engine.variables.setter_classes), not once per rack."""
    followed = []
    for hosts in (30, 90):
        fleet = tmp_path / str(hosts)
        fleet.mkdir()
        _fleet(fleet, hosts)
        monkeypatch.chdir(fleet)
        asked = hosts_asked(monkeypatch, Follower, "_follow", 2, lambda args: args[3].name == "role of the host")
        planned_rows(fleet)
        followed.append(len(set(asked)))
    assert followed[0] == followed[1] < 10, followed

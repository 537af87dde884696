"""A task's hosts are keyed by the names its readings read. A value is a template on some hosts
alone (``tool: "{{ site_tool }}"`` where a group does not set it plainly): a host whose ``tool`` is
plain reads ``tool`` alone, a later host reads ``site_tool`` too. The hosts are then keyed by every
name read so far (engine.flow.shared_outcomes, ``_read_names``), class by class too
(engine.flow.host_classes), instead of each host being read on its own from there on; the plan is
the one reading every host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.flow import host_outcome, shared_outcomes

PLAYBOOK = """
- name: values templated on some hosts
  hosts: all
  gather_facts: false
  tasks:
    - {name: chrony, ansible.builtin.debug: {msg: c}, when: tool == 'chrony'}
    - {name: not chrony, ansible.builtin.debug: {msg: n}, when: tool != 'chrony' and level | int > 1}
    - {name: level, ansible.builtin.debug: {msg: l}, when: level | int == 3}
"""


def _fleet(root: Path) -> None:
    """60 hosts, their values from groups (hosts alike in the groups they are in are one class):
    ``tool`` is ``chrony`` on the first ten hosts (``pinned``), elsewhere ``{{ site_tool }}``, which
    each site sets; so the first host's readings read ``tool`` alone, a later host's ``site_tool`` too."""
    groups: dict[str, list[str]] = {}
    for n in range(60):
        host = f"h{n:02d}"
        for group in ("pinned" if n < 10 else "fleet", f"site{n % 3}", f"level{1 + n % 5 % 3}"):
            groups.setdefault(group, []).append(host)
    (root / "inventory.ini").write_text("".join(f"[{group}]\n" + "\n".join(hosts) + "\n\n"
                                                for group, hosts in groups.items()))
    (root / "group_vars").mkdir()
    values = {"all": "tool: \"{{ site_tool }}\"", "pinned": "tool: chrony", "site0": "site_tool: chrony",
              "site1": "site_tool: ntp", "site2": "site_tool: timesyncd", "level1": "level: 1",
              "level2": "level: 2", "level3": "level: 3"}
    for group, text in values.items():
        (root / "group_vars" / f"{group}.yml").write_text(text + "\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - each host read on its own once one reads more


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (shared_outcomes, "_WIDENINGS", 0),
                               planned=planned_rows)


def test_names_read_by_later_hosts_key_the_hosts(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    read = hosts_asked(monkeypatch, host_outcome, "_HostTask", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for _, _, outcome, _ in shared} == {"runs", "skipped"}
    # 60 hosts, 3 tasks: a reading per distinct (tool, site_tool, level) at most, not one per host
    assert 0 < len(read) < 60


def test_classes_told_apart_again_by_the_names_read(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """Classes made from the first host's names, not made again once a class's first host read
    more, give the hosts of a class that differ in ``site_tool`` its first host's outcome."""
    root, alone = fleet
    from engine.flow import host_classes

    def keep_classes(sharing, chosen, start, conditions):  # type: ignore[no-untyped-def] - the classes told once
        found, hosts = sharing.class_table(), chosen[start:]
        if found is None:
            return None
        firsts, member_of = host_classes._classes(sharing.signatures, *found, sharing.entry, hosts)
        outcomes = [sharing.outcome(hosts[at], conditions) for at in firsts]
        return {host.name: outcomes[index] for host, index in zip(hosts, member_of, strict=True)} \
            if sharing.shared else None

    monkeypatch.setattr(host_outcome, "by_class", keep_classes)
    assert planned_rows(root) != alone

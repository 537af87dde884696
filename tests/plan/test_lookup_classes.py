"""A lookup that reads nothing but its terms (``first_found``, ``file``, ``env``...) reads what its
arguments read, not every variable (engine.templating.read_names): hosts alike in those share a
setter's effects by class (engine.variables.setter_classes), as roles picking their OS's vars file
with ``lookup('first_found', params)`` do. A task's ``vars`` and ``lookup('vars', ...)`` read
variables by a computed name: the names they look up are noted as the template reads them, so hosts
alike in those share the setter too (a role's "set what is unset from its defaults" loop); a
template listing every variable (iterating ``vars``) reads every one: each host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import classes_followed, fleet_planned_alone, planned_rows

from engine.flow import host_outcome
from engine.templating import read_names
from engine.variables import setter_classes

PLAYBOOK = """
- name: picks a file per OS
  hosts: all
  gather_facts: false
  tasks:
    - name: picked
      ansible.builtin.include_vars:
        file: "{{ lookup('first_found', params) }}"
      vars:
        params:
          files: ["{{ os_name }}.yml", default.yml]
          paths: [vars]
    - name: by name
      ansible.builtin.set_fact:
        by_name: "{{ lookup('vars', 'size_' + os_name) }}"
    - name: unset from defaults
      ansible.builtin.set_fact:
        "{{ item }}": "{{ lookup('vars', '__' ~ item) }}"
      when: item not in vars
      with_items: [size_debian, size_redhat]
    - name: every variable
      ansible.builtin.set_fact:
        counted: "{{ vars.keys() | list | length }}"
    - {name: on the pick, ansible.builtin.debug: {msg: p}, when: picked | int == 1}
    - {name: on the name, ansible.builtin.debug: {msg: n}, when: by_name | int > 1}
    - {name: on the default, ansible.builtin.debug: {msg: d}, when: size_redhat | int == 1}
    - {name: on the count, ansible.builtin.debug: {msg: c}, when: counted | int > 0}
"""


def _fleet(root: Path) -> None:
    groups: dict[str, list[str]] = {}
    for n in range(30):
        for group in (("debian", "redhat", "suse")[n % 3], f"site{n % 2}"):
            groups.setdefault(group, []).append(f"h{n:02d}")
    (root / "inventory.ini").write_text("".join(f"[{group}]\n" + "\n".join(hosts) + "\n\n"
                                                for group, hosts in groups.items()))
    (root / "group_vars").mkdir()
    for number, group in enumerate(("debian", "redhat", "suse")):
        (root / "group_vars" / f"{group}.yml").write_text(f"os_name: {group}\nsize_{group}: {number}\n")
    (root / "group_vars" / "all.yml").write_text("__size_debian: 5\n__size_redhat: 6\n")
    (root / "vars").mkdir()
    (root / "vars" / "debian.yml").write_text("picked: 1\n")
    (root / "vars" / "default.yml").write_text("picked: 2\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with each host followed on its own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    every_host_its_own = (host_outcome, "per_host_vars_files", lambda _play: True)
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (setter_classes, "SHARING", False),
                               every_host_its_own, planned=planned_rows)


def test_a_terms_only_lookup_shares_the_setter(fleet: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    root, alone = fleet
    followed = classes_followed(monkeypatch)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for task, _, outcome, _ in shared if task == "on the pick"} == {"runs", "skipped"}
    picked = [host for task, host in followed if task == "picked"]
    by_name = [host for task, host in followed if task == "by name"]
    assert 0 < len(picked) < 10  # a few per OS, not one per host
    assert {outcome for task, _, outcome, _ in shared if task == "on the default"} == {"runs", "skipped"}
    assert 0 < len(by_name) < 10  # lookup('vars', ...) reads the name its value gives: a few per OS
    assert 0 < len([host for task, host in followed if task == "unset from defaults"]) < 10
    assert len([host for task, host in followed if task == "every variable"]) == 30  # every name: each host


@pytest.mark.parametrize(("text", "read"), [
    ("{{ lookup('first_found', params) }}", {"params"}),
    ("{{ lookup('ansible.builtin.file', base ~ '/x') | trim }}", {"base"}),
    ("{{ query('fileglob', pattern) + q('items', more) }}", {"pattern", "more"}),
    ("{{ lookup('vars', 'x_' + os) }}", {read_names.READS_ALL}),
    ("{{ lookup('template', 'a.j2') }}", {read_names.READS_ALL}),
    ("{{ lookup(kind, 'a') }}", {read_names.READS_ALL}),
    ("{{ lookup('community.general.keyring', 'a') }}", {read_names.READS_ALL}),
    ("{{ lookup('env', 'HOME') ~ lookup }}", {read_names.READS_ALL}),
])
def test_names_a_lookup_reads(text: str, read: set[str]) -> None:
    from engine.templating.jinja_environment import environment

    with read_names.names_recorded() as names:
        read_names.note_template(text, environment().parse)
    assert names == read


@pytest.mark.parametrize(("text", "read"), [
    ("{{ lookup('vars', 'x_' + os) }}", {"os", "x_debian"}),
    ("{{ 'a' in vars and vars['b_' ~ os] }}", {"os", "a", "b_debian"}),
    ("{{ vars.get('c') }}", {"c"}),
    ("{{ vars | length }}", {read_names.READS_ALL}),
    ("{{ lookup('template', 'a.j2') }}", {read_names.READS_ALL}),
])
def test_names_a_task_reads_through_vars(text: str, read: set[str]) -> None:
    """A run-time templar notes each name its ``vars`` and ``vars`` lookup look up."""
    from engine.templating.pure_lookups import PureLookups
    from engine.templating.templar import Templar

    templar = Templar({"os": "debian", "x_debian": 1, "a": 1, "b_debian": 2, "c": 3}, PureLookups())
    with read_names.names_recorded() as names:
        try:
            templar.template(text)
        except Exception:  # noqa: BLE001 - a lookup refused here: what it read is all that counts
            pass
    assert names == read

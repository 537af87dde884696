"""The values a review compares are read once per class of hosts (playbook_ls.review.value_classes):
on every kind of input that can tell hosts apart, the review is the one that reads each host on
its own, and every host of a play is compared, not only the first ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_cases import SIDES, review_json, write_tree

from playbook_ls.review import value_classes

HOSTS = 24
PLAYBOOK = """\
- name: first
  hosts: all
  gather_facts: false
  tasks:
    - name: remember
      set_fact:
        remembered: special
      when: inventory_hostname == 'h02'
    - name: and on every host
      set_fact:
        every: "{{ tier }}-{{ inventory_hostname }}"
- name: second
  hosts: all
  gather_facts: false
  roles: [app]
  tasks:
    - name: by the tier
      debug:
        msg: "{{ tier }} {{ weight }}"
    - name: through a chain
      debug:
        msg: "{{ chain_a }}"
    - name: by the remembered value
      debug:
        msg: "{{ summary }} {{ every }}"
    - name: by a name looked up
      debug:
        msg: "{{ looked }}"
    - name: by a name looked up, written with a space
      debug:
        msg: "{{ spaced }}"
    - name: by another host
      debug:
        msg: "{{ hostvars['h00']['tier'] }} {{ tier }}"
    - name: looped over the tier's ports
      debug:
        msg: "{{ port_note }}"
      loop: "{{ ports }}"
    - name: by a fact
      debug:
        msg: "{{ ansible_distribution | default('?') }} {{ tier }}"
"""
ROLE_TASKS = """\
- name: role reads the tier
  debug:
    msg: "{{ app_note }}"
"""
DEFAULTS = "app_note: \"{{ tier }} at {{ app_port }}\"\napp_port: 8080\n"
# four levels of templates: the last reads the host's name, past the levels a review shows
GROUP_ALL = ("tier: base\nports: [1, 2]\nchain_a: \"{{ chain_b }}\"\nchain_b: \"{{ chain_c }}\"\n"
             "chain_c: \"{{ chain_d }}\"\nchain_d: \"{{ tier }}/{{ inventory_hostname }}\"\n"
             # what an earlier task set on one host; a name looked up by a computed string; a loop's items
             "summary: \"{{ tier }} {{ remembered | default('x') }}\"\n"
             "looked: \"{{ tier }} {{ lookup('vars', 'host_' ~ 'note', default='n') }}\"\n"
             "spaced: \"{{ tier }} {{ lookup ('vars', 'host_' ~ 'note', default='n') }}\"\n"
             "port_note: \"{{ tier }}:{{ item }}\"\n")


def _project(root: Path) -> None:
    lines = ["[web]", *(f"h{n:02d}" + (f" weight={n % 3}" if n % 2 else "") for n in range(0, HOSTS, 2)),
             "[db]", *(f"h{n:02d}" + (f" weight={n % 3}" if n % 2 else "") for n in range(1, HOSTS, 2)),
             "[canary]", "h03", "h04"]
    write_tree(root, {
        "hosts.ini": "\n".join(lines) + "\n", "group_vars/all.yml": GROUP_ALL,
        "group_vars/web.yml": "tier: front\nports: [80, 443]\nremember: true\n", "group_vars/db.yml": "tier: data\n",
        "group_vars/canary.yml": "weight: 5\n", "host_vars/h07.yml": "tier: special\nweight: 7\n",
        "host_vars/h20.yml": "weight: 1\nports: [1]\nhost_note: twenty\n", "roles/app/tasks/main.yml": ROLE_TASKS,
        "roles/app/defaults/main.yml": DEFAULTS, "site.yml": PLAYBOOK})


@pytest.mark.parametrize("change", [
    ("group_vars/web.yml", "tier: front", "tier: edge"),
    ("group_vars/all.yml", "ports: [1, 2]", "ports: [3]"),
    ("group_vars/web.yml", "ports: [80, 443]", "ports: [8080]"),
    ("host_vars/h07.yml", "weight: 7", "weight: 8"),
    ("host_vars/h20.yml", "weight: 1", "weight: 2"),
    ("group_vars/canary.yml", "weight: 5", "weight: 6"),
    ("roles/app/defaults/main.yml", "app_port: 8080", "app_port: 9090"),
    ("group_vars/all.yml", "chain_d: \"{{ tier }}/", "chain_d: \"{{ tier }}:"),
])
def test_values_read_by_class_are_those_read_host_by_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          change: tuple[str, str, str]) -> None:
    path, old_text, new_text = change
    for side in SIDES:
        _project(tmp_path / side)
    target = tmp_path / "new" / path
    assert old_text in target.read_text()
    target.write_text(target.read_text().replace(old_text, new_text))
    monkeypatch.chdir(tmp_path / "new")
    readings: list[str] = []
    original = value_classes.TaskValues._reading

    def counted(self: value_classes.TaskValues, host: object) -> object:
        readings.append(host.name)  # type: ignore[attr-defined]
        return original(self, host)  # type: ignore[arg-type]

    monkeypatch.setattr(value_classes.TaskValues, "_reading", counted)
    by_class = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    shared_readings = len(readings)
    monkeypatch.setattr(value_classes.TaskValues, "of", _host_by_host)
    host_by_host = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    assert by_class == host_by_host
    assert '"values"' in by_class and '"before"' in by_class  # the change shows as values that change
    assert shared_readings < len(readings)  # classes were shared: fewer readings than hosts × tasks


def _host_by_host(self: value_classes.TaskValues, host: object) -> dict[str, str]:
    return self._reading(host)[0]  # type: ignore[arg-type]


def _review_of_all_yml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> str:
    """The review of ``old`` written ``new`` in group_vars/all.yml, 5 hosts read on their own at most."""
    for side in SIDES:
        _project(tmp_path / side)
    (tmp_path / "new/group_vars/all.yml").write_text(GROUP_ALL.replace(old, new))
    monkeypatch.chdir(tmp_path / "new")
    monkeypatch.setattr(value_classes, "MAX_HOSTS", 5)
    return review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")


def test_hosts_past_the_ones_read_alone_are_named_in_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    review = _review_of_all_yml(tmp_path, monkeypatch, "chain_d: \"{{ tier }}/", "chain_d: \"{{ tier }}:")
    assert f"values at task 'through a chain' compared on 5 of {HOSTS} hosts" in review


def test_values_set_by_earlier_tasks_are_read_by_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task reading what tasks before set (``remembered`` on one host, ``every`` on each) is
    read once per class of hosts the walk of those tasks tells apart, as the plan keys its outcomes:
    every host is compared, and the values are those read host by host."""
    by_class = _review_of_all_yml(tmp_path, monkeypatch, "summary: \"{{ tier }} {{", "summary: \"{{ tier }}! {{")
    assert "values at task 'by the remembered value'" not in by_class
    assert '"before"' in by_class
    monkeypatch.setattr(value_classes.TaskValues, "of", _host_by_host)
    assert by_class == review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")


OTHERS_PLAYBOOK = """\
- name: first
  hosts: all
  gather_facts: false
  tasks:
    - name: note
      set_fact:
        role_note: "{{ tier }}-{{ inventory_hostname }}"
    - name: over the others
      debug:
        msg: "{{ item }} {{ tier }}"
      loop: "{{ groups['all'] | map('extract', hostvars, 'role_note') | list }}"
    - name: one other
      debug:
        msg: "{{ hostvars['h03']['role_note'] }} {{ tier }}"
- name: second
  hosts: all
  serial: 4
  gather_facts: false
  tasks:
    - name: over the others in batches
      debug:
        msg: "{{ item }} {{ tier }}"
      loop: "{{ groups['all'] | map('extract', hostvars, 'role_note') | list }}"
"""


def test_other_hosts_variables_are_read_by_class_where_every_host_reads_them_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hostvars`` gives each other host's variables, whoever reads them, in one batch of the
    linear strategy: a task reading them is read once per class; in a play of several ``serial``
    batches (what the batches before ran shows) each host is read on its own."""
    for side in SIDES:
        _project(tmp_path / side)
        (tmp_path / side / "site.yml").write_text(OTHERS_PLAYBOOK)
    (tmp_path / "new/group_vars/web.yml").write_text("tier: edge\nports: [80, 443]\nremember: true\n")
    monkeypatch.chdir(tmp_path / "new")
    monkeypatch.setattr(value_classes, "MAX_HOSTS", 5)
    few = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    assert "values at task 'over the others'" not in few
    assert "values at task 'one other'" not in few
    assert f"values at task 'over the others in batches' compared on 5 of {HOSTS} hosts" in few
    monkeypatch.setattr(value_classes, "MAX_HOSTS", HOSTS)
    by_class = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    monkeypatch.setattr(value_classes.TaskValues, "of", _host_by_host)
    assert by_class == review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    assert "\"over the others\"" in by_class  # its values are compared


def test_hosts_the_inventory_answers_alike_share_a_class_without_a_key_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hosts in the same groups with no variables of their own (the even hosts but the canaries)
    are given their class's values without their key being worked out at each task."""
    for side in SIDES:
        _project(tmp_path / side)
    (tmp_path / "new/group_vars/web.yml").write_text("tier: edge\nports: [80, 443]\nremember: true\n")
    monkeypatch.chdir(tmp_path / "new")
    asked: list[str] = []
    keyed: list[str] = []
    original_of, original_key = value_classes.TaskValues.of, value_classes.TaskValues._key

    def of(self: value_classes.TaskValues, host: object) -> object:
        asked.append(host.name)  # type: ignore[attr-defined]
        return original_of(self, host)  # type: ignore[arg-type]

    def key(self: value_classes.TaskValues, host: object, *args: object) -> object:
        keyed.append(host.name)  # type: ignore[attr-defined]
        return original_key(self, host, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(value_classes.TaskValues, "of", of)
    monkeypatch.setattr(value_classes.TaskValues, "_key", key)
    with_twins = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    keyed_with_twins, asked_with_twins = len(keyed), len(asked)
    keyed.clear()
    asked.clear()
    monkeypatch.setattr(value_classes.TaskValues, "_twin", lambda self, host, names: None)
    assert review_json(tmp_path / "old", tmp_path / "new", "hosts.ini") == with_twins
    assert asked_with_twins == len(asked) and keyed_with_twins < len(keyed) - 100

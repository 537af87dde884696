"""A setter (or a ``group_by``) reading another host's variables
(``hostvars[groups['server'][0]].random_token``) keeps its classes where every host reads the others
alike (engine.variables.followed_hostvars: one batch of the linear strategy, where each host's
values are followed once for all readers): the hosts it reads are named by the other names it read,
and what their variables give is the same object for every reader, so hosts alike in those names are
given one class's effects. The plan is the one
followed with each host on its own; in a play of several batches each reader still reads its own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from plan_cases import classes_followed, fleet_planned_alone, planned_rows

from engine.variables import followed_hostvars, walk_classes

AGENTS = 18
PLAYBOOK = """
- name: servers make tokens
  hosts: server
  gather_facts: false
  tasks:
    - {name: token made, ansible.builtin.set_fact: {random_token: "tok-{{ tier }}"}}
    - {name: second stops, ansible.builtin.fail: {msg: stop}, when: inventory_hostname == 's2'}
    - {name: token again, ansible.builtin.set_fact: {late_token: "late-{{ tier }}"}}
- name: every host reads the first server's
  hosts: all
  gather_facts: false
  tasks:
    - name: token from the first server
      ansible.builtin.set_fact: {token: "{{ hostvars[groups['server'][0]].random_token }}-{{ tier | default('none') }}"}
      when: hostvars[groups['server'][0]].random_token is defined
    - name: late from the second server
      ansible.builtin.set_fact: {late: "{{ hostvars[groups['server'][1]].late_token | default('stopped') }}"}
    - name: own through hostvars
      ansible.builtin.set_fact: {mine: "{{ hostvars[inventory_hostname].tier | default('none') }}"}
    - {name: endpoint, ansible.builtin.set_fact: {endpoint: "{{ api_endpoint }}:{{ rack }}"}}
    - {name: on the token, ansible.builtin.debug: {msg: a}, when: token == 'tok-gold-gold'}
    - {name: on the late one, ansible.builtin.debug: {msg: b}, when: late == 'stopped'}
    - {name: on my own, ansible.builtin.debug: {msg: c}, when: mine == 'silver'}
    - {name: on the endpoint, ansible.builtin.debug: {msg: d}, when: endpoint.endswith('.1:1')}
- name: every host groups itself by the first server's token
  hosts: all
  gather_facts: false
  tasks:
    - name: grouped by the first server's token
      ansible.builtin.group_by:
        key: "by_{{ hostvars[groups['server'][0]].random_token }}_{{ tier | default('none') }}"
- name: on a group by the first server's token
  hosts: by_tok-gold_silver
  gather_facts: false
  tasks:
    - {name: silver agents, ansible.builtin.debug: {msg: f}, when: rack | int == 1}
- name: in batches
  hosts: agent
  serial: 6
  gather_facts: false
  tasks:
    - {name: stamp, ansible.builtin.set_fact: {stamp: "{{ tier | default('none') }}"}}
    - name: stamp of the last agent
      ansible.builtin.set_fact: {last_stamp: "{{ hostvars[groups['agent'][-1]].stamp | default('unset') }}"}
    - {name: on the last stamp, ansible.builtin.debug: {msg: e}, when: last_stamp == 'unset'}
"""


def _fleet(root: Path) -> None:
    lines = ["[server]", "s1 tier=gold ansible_host=10.0.0.1", "s2 tier=silver", "", "[agent]"]
    lines += [f"a{n:02d} rack={n % 2}" + ("", " tier=gold", " tier=silver")[n % 3] for n in range(AGENTS)]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "group_vars").mkdir()
    endpoint = "{{ hostvars[groups['server'][0]]['ansible_host'] | default(groups['server'][0]) }}"
    (root / "group_vars" / "all.yml").write_text(f'rack: 0\napi_endpoint: "{endpoint}"\n')
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg] - the plan with every hostvars reading a host's own


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (followed_hostvars, "CLASSED", False),
                               planned=planned_rows)


def _walks_counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """By task, how many times a walk of the setters before it was walked on a host (not given by
    its class: engine.variables.walk_classes.class_walk) from now on."""
    walked: Counter[str] = Counter()
    original = walk_classes.class_walk

    def counted(follower: Any, play_plan: Any, host: Any, task: Any, names: Any, what: str, walk: Any) -> Any:
        def walked_here() -> Any:
            walked[task.name] += 1
            return walk()
        return original(follower, play_plan, host, task, names, what, walked_here)

    monkeypatch.setattr(walk_classes, "class_walk", counted)
    return walked


def test_hostvars_read_alike_keep_setter_classes(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    classed = classes_followed(monkeypatch)
    walked = _walks_counted(monkeypatch)
    shared = planned_rows(root)
    followed, walked = Counter(task for task, _ in classed), Counter(walked)
    assert shared == alone
    outcomes = {(task, outcome) for task, _, outcome, _ in shared}
    assert {("on the token", "runs"), ("on the token", "skipped"), ("on the late one", "runs"),
            ("on the endpoint", "runs"), ("on the endpoint", "skipped")} <= outcomes
    assert {("on the last stamp", "runs"), ("on the last stamp", "skipped")} <= outcomes  # the batches differ
    with monkeypatch.context() as patch:  # each host reading another's hostvars on its own
        patch.setattr(followed_hostvars, "CLASSED", False)
        classed_alone, walked_alone = classes_followed(patch), _walks_counted(patch)
        assert planned_rows(root) == alone
    followed_alone = Counter(task for task, _ in classed_alone)
    hosts = AGENTS + 1  # (s2 failed in the first play)
    # one class per tier (and per rack for the endpoint), not one per host
    for task in ("token from the first server", "late from the second server", "endpoint",
                 "grouped by the first server's token"):
        assert followed[task] <= 6 < hosts <= followed_alone[task]
    assert followed["own through hostvars"] >= hosts  # the host's own name read
    assert followed["stamp of the last agent"] == followed_alone["stamp of the last agent"] == AGENTS  # batches
    assert sum(walked.values()) < sum(walked_alone.values())
    assert walked["on the token"] < hosts <= walked_alone["on the token"]


def test_batches_read_the_others_each_their_own_way(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Where several batches read another host's variables, a reader of an earlier batch sees what
    the hosts of later ones have not set yet: taken as alike, the batches would share one answer."""
    root, alone = fleet
    monkeypatch.setattr(followed_hostvars.FollowedHostVars, "read_alike", lambda _self: True)
    assert planned_rows(root) != alone

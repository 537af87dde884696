"""The play's host lists in the magic variables are built once per play (a fleet's thousands of
names), not at every task: each task and host still sees the lists the play context gives it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from var_values import scenario_plan

from engine.variables.play_context import PlayContext, PlayLists
from engine.variables.report import layers_at, tasks_in_order, templar_at

LISTS = ("play_hosts", "ansible_play_hosts", "ansible_play_batch", "ansible_play_hosts_all")


@pytest.mark.parametrize("batches", [[["a", "b"], ["c", "d"], ["e"]], [["e", "c", "a", "b", "d"]]])
def test_the_shared_lists_are_the_context_s(batches: list[list[str]]) -> None:
    hosts = ["a", "b", "c", "d", "e"]
    lists = PlayLists(hosts, batches)
    play: Any = None  # the lists do not read the play
    for at in (None, *range(len(batches))):
        context = PlayContext(play, hosts, list(hosts), [], batch=batches[at] if at is not None else None)
        made = lists.magic(at)
        assert made == context.magic_lists()
        assert len({id(made[name]) for name in LISTS}) == len(LISTS)  # a list of its own each, as the context's
        assert lists.magic(at) is made  # and once for the play
        assert lists.left(at) == context.batch_left()


PLAY = """\
- hosts: grp
  gather_facts: false
  serial: 2
  tasks:
    - name: first
      ansible.builtin.debug:
        msg: "{{ ansible_play_batch.append('x') }}"
    - name: second
      ansible.builtin.debug:
        msg: "{{ ansible_play_batch }}"
"""


def test_each_task_sees_its_batch_from_one_set_of_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "site.yml").write_text(PLAY)
    (tmp_path / "hosts.ini").write_text("[grp]\na\nb\nc\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    plan = scenario_plan(tmp_path)
    play_plan = plan.plays[0]
    first, second = list(tasks_in_order(play_plan.play))[:2]
    for task in (first, second):
        for host in play_plan.hosts:
            _, magic = layers_at(plan, play_plan, host, task)
            assert magic["ansible_play_batch"] == (["a", "b"] if host.name != "c" else ["c"])
            assert magic["play_hosts"] == magic["ansible_play_batch"]
            assert magic["ansible_play_hosts"] == magic["ansible_play_hosts_all"] == ["a", "b", "c"]
    shared = layers_at(plan, play_plan, play_plan.hosts[1], first)[1]["ansible_play_batch"]
    assert layers_at(plan, play_plan, play_plan.hosts[1], second)[1]["ansible_play_batch"] is shared
    # a template that changes the list in place changes its own copy (ansible's lists are built anew)
    templar_at(plan, play_plan, play_plan.hosts[1], first).template("{{ ansible_play_batch.append('x') }}")
    assert shared == ["a", "b"]
    assert templar_at(plan, play_plan, play_plan.hosts[1], second).template("{{ ansible_play_batch }}") == ["a", "b"]


def test_the_hosts_removed_are_taken_out_once_per_shared_list() -> None:
    """A task's hosts read a batch list in two objects (the first host's own copy, the one the
    others share), and every task of the play the same two: each is answered from its object
    after the first reading, whichever was asked last, with what its items give."""
    from engine.flow.removed_hosts import RemovedHosts

    hosts = [f"h{n:03d}" for n in range(20)]
    batches = (tuple(hosts[:10]), tuple(hosts[10:]))
    removed = RemovedHosts(frozenset({"h001"}), frozenset(), batches)
    own, shared = list(batches[0]), list(batches[0])
    first = removed.value("ansible_play_batch", own, "h000")
    assert removed.value("ansible_play_batch", shared, "h002") == first
    for _task in range(3):
        assert removed.value("ansible_play_batch", own, "h000") is first
        assert removed.value("ansible_play_batch", shared, "h003") == first
    assert first == ([host for host in batches[0] if host != "h001"], None)
    assert removed.value("ansible_play_batch", list(batches[1]), "h012")[0] == list(batches[1])

"""The steps of a walk before a task (engine.variables.walk_classes._steps) and the names their
classes read (``_read``) depend only on those of the names asked for that a setter so far may set
(engine.variables.walk_steps.steps_names): names no setter sets pick no step, so sets of names
differing only in them are given the same steps, found once, and the same names read."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.variables import walk_classes

SITE = """
- name: setters
  hosts: all
  gather_facts: false
  tasks:
    - {name: set a, ansible.builtin.set_fact: {fact_a: "{{ weight }}"}}
    - {name: set b, ansible.builtin.set_fact: {fact_b: "{{ colour }}"}}
- name: readers
  hosts: all
  gather_facts: false
  tasks:
    - {name: set c, ansible.builtin.set_fact: {fact_c: "{{ size }}"}}
    - {name: read, ansible.builtin.debug: {msg: "{{ fact_a }} {{ fact_c }} {{ other }}"}}
"""


def test_names_no_setter_sets_pick_the_same_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.host_runtime import Follower
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at
    from engine.variables.walk_steps import steps_names

    hosts = "\n".join(f"h{n} weight={n % 2} colour=c{n % 3} size={n % 2}" for n in range(6))
    (tmp_path / "inventory.ini").write_text(f"[fleet]\n{hosts}\n")
    (tmp_path / "site.yml").write_text(SITE)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    follower = Follower(plan, play_order, templar_at, include_item_order)
    readers = plan.plays[-1]
    task = play_order(readers.play).tasks[-1]

    assert steps_names(follower, readers, frozenset({"fact_a", "fact_c", "other"})) == {"fact_a", "fact_c"}
    assert steps_names(follower, readers, frozenset({"other"})) == frozenset()
    assert steps_names(follower, readers, None) is None

    asked = []
    original = walk_classes.shareable_steps

    def counted(*args: object) -> object:
        asked.append(args[-1])
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(walk_classes, "shareable_steps", counted)
    steps = walk_classes._steps(follower, readers, task, frozenset({"fact_a", "fact_c"}))
    assert steps is not None
    assert [done.name for _, done in steps] == ["set a", "set c"]
    assert walk_classes._steps(follower, readers, task, frozenset({"fact_a", "fact_c", "other", "more"})) is steps
    assert asked == [frozenset({"fact_a", "fact_c"})]
    # fact_b's setter is not on the way: asked with it, the steps are others
    assert [done.name for _, done in walk_classes._steps(follower, readers, task, frozenset({"fact_b"}))] == ["set b"]
    assert walk_classes._read(follower, readers, task, frozenset({"fact_a", "other"})) == \
        walk_classes._read(follower, readers, task, frozenset({"fact_a"}))


def test_a_class_added_on_the_same_names_keeps_what_the_names_read_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the classes of the setters read (walk_classes._read) changes when classes are made, read
    more names or stop being usable (class_changes.READS), not when a class is added on the same names."""
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.change_classes import CHANGES, READS, HostClasses
    from engine.variables.play_order import play_order

    hosts = "\n".join(f"h{n} weight={n % 2} colour=c{n % 3} size={n % 2}" for n in range(6))
    (tmp_path / "inventory.ini").write_text(f"[fleet]\n{hosts}\n")
    (tmp_path / "site.yml").write_text(SITE)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    readers = plan.plays[-1]
    task = play_order(readers.play).tasks[0]
    first, second, third = readers.hosts[:3]

    reads = READS[0]
    classes = HostClasses(plan, readers, task)
    assert READS[0] == reads + 1
    classes.add(first, {"size"}, "one")
    assert (READS[0], classes.names) == (reads + 2, {"size"})
    changes = CHANGES[0]
    classes.add(second, {"size"}, "two")
    assert (READS[0], CHANGES[0]) == (reads + 2, changes + 1)
    classes.add(third, {"colour"}, "three")
    assert (READS[0], classes.names) == (reads + 3, {"size", "colour"})

"""What the plays before a task's play set on a host is the same at every task of that play: the
walk of each earlier play is put together once per host and play (engine.variables.earlier_walk's
``earlier_plays``), and the plays with an ``end_play`` are found once per play
(engine.variables.walk_classes), not again at each task a host reads them at (plays x hosts x
tasks). Checked by counting: the walks asked for do not grow with the tasks of the last play."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.variables import earlier_walk, setters

SETTERS = """
- name: play {n}
  hosts: all
  gather_facts: false
  tasks:
    - {{name: set {n}, ansible.builtin.set_fact: {{fact_{n}: "{{{{ weight }}}}"}}}}
    - {{name: stop {n}, ansible.builtin.meta: end_play, when: "weight | int > 90"}}
"""

RESCUED = """
- name: rescued
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {name: may fail, ansible.builtin.command: "true", when: "weight | int > 1"}
        - {name: set in the block, ansible.builtin.set_fact: {blocked: "{{ weight }}"}}
      rescue:
        - {name: set in the rescue, ansible.builtin.set_fact: {rescued: true}}
"""

READERS = """
- name: readers
  hosts: all
  gather_facts: false
  tasks:
"""


def _write(root: Path, readers: int) -> None:
    hosts = "\n".join(f"h{n:02d} weight={n % 4}" for n in range(12))
    (root / "inventory.ini").write_text(f"[fleet]\n{hosts}\n")
    tasks = "".join(
        f"    - {{name: read {k}, ansible.builtin.debug: {{msg: r}}, when: fact_{k % 4} | int > {k % 3}}}\n"
        for k in range(readers)
    )
    (root / "site.yml").write_text("".join(SETTERS.format(n=n) for n in range(4)) + RESCUED + READERS + tasks)


def _counted(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    calls = [0]
    original = getattr(owner, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_earlier_plays_are_walked_once_per_host_and_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.host_runtime import Follower
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at
    from engine.variables.walk_classes import _ended, _enders_before

    _write(tmp_path, 24)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    follower = Follower(plan, play_order, templar_at, include_item_order)
    readers = plan.plays[-1]
    tasks = play_order(readers.play).tasks
    host = readers.hosts[5]
    played = _counted(monkeypatch, earlier_walk, "played")
    enders = _counted(monkeypatch, setters, "batch_enders")

    def walked(task: object) -> dict[str, dict[str, object]]:
        return {layer.label: dict(layer.values) for layer in follower.earlier_layers(readers, host, task, 0, ())}

    facts = [walked(tasks[0])]
    ended = [_ended(follower, host, _enders_before(follower, readers, tasks[0]))]
    first = played[0], enders[0]
    facts += [walked(task) for task in tasks[1:]]
    ended += [_ended(follower, host, _enders_before(follower, readers, task)) for task in tasks[1:]]
    assert (played[0], enders[0]) == first  # not once more per task of the last play (and per earlier play)
    assert all(found == facts[0] for found in facts)
    assert [values for values in facts[0].values() if "fact_0" in values] == [{"fact_0": 1}]
    assert all(found == ended[0] for found in ended) and len(ended[0]) == len(plan.plays) - 2


def test_a_rescued_setter_of_a_play_before_is_asked_once_per_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.host_runtime import Follower
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at
    from engine.variables.setters import host_names
    from engine.variables.walk_classes import _ran_column

    _write(tmp_path, 4)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    plan.plays[-2].planned_runs = {}  # planned: what the plan says of it stays until it is planned again
    follower = Follower(plan, play_order, templar_at, include_item_order)
    rescued = plan.plays[-2]
    setter = next(task for task in play_order(rescued.play).tasks if task.name == "set in the block")
    reader, every = plan.plays[-1], host_names(rescued)

    def by_the_end(hosts: list) -> list:  # type: ignore[type-arg]
        return _ran_column(follower, reader, rescued, setter, every, setter, hosts, [host.name for host in hosts])

    for host, expected in ((rescued.hosts[1], True), (rescued.hosts[2], "the run")):
        with monkeypatch.context() as patched:
            asked = _counted(patched, Follower, "_ran")
            answers = by_the_end([host])
            first = asked[0]
            answers += [by_the_end([host])[0] for _ in range(5)]
        assert first > 0 and asked[0] == first  # asked once, not once per task after the play
        assert answers == [follower._ran(rescued, host, setter, None)] * 6  # noqa: SLF001
        assert answers[0] is True if expected is True else isinstance(answers[0], str)
    # asked of the play's hosts at once: each host's own answer, those asked before not asked again
    with monkeypatch.context() as patched:
        asked = _counted(patched, Follower, "_ran")
        answers = by_the_end(rescued.hosts)
        first = asked[0]
        assert by_the_end(rescued.hosts[::-1]) == answers[::-1]
        assert len(rescued.hosts) > 2 and first > 0 and asked[0] == first
    assert answers == [follower._ran(rescued, host, setter, None) for host in rescued.hosts]  # noqa: SLF001


def test_the_setters_of_names_are_those_a_scan_of_every_setter_finds(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The setters of a set of names come from the play's index of them by name (asked with a new
    set of names at most tasks of a fleet): the same, in the same order, as asking each setter."""
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.play_order import play_order

    _write(tmp_path, 6)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    orders = [play_order(play_plan.play) for play_plan in plan.plays]
    for order in orders:
        every = setters.setters(order, len(order.tasks))
        for names in (frozenset(), frozenset({"fact_0"}), frozenset({"fact_1", "fact_3", "weight"}),
                      frozenset({"probe", "fact_2"})):
            scanned = [(at, task) for at, task in every if setters.ends_host_task(task) or setters.ends_in_batch(task)
                       or (found := setters.set_names(task)) is None or not found.isdisjoint(names)]
            for before in (0, 3, len(order.tasks)):
                assert setters.setters(order, before, names) == [(at, t) for at, t in scanned if at < before]
    assert any(setters.setters(order, len(order.tasks), frozenset({"fact_1"})) for order in orders)


def test_names_with_the_same_setters_in_a_play_share_its_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a walk of a play takes of a set of names is their setters there (and the rescues' for
    every name): sets of names with the same setters are walked once on a host, each given what a
    walk of its own gives."""
    from engine.flow.plan import RunOptions, make_plan
    from engine.variables.host_runtime import Follower
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at

    _write(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    follower = Follower(plan, play_order, templar_at, include_item_order)
    first, host = plan.plays[0], plan.plays[0].hosts[5]
    size = len(play_order(first.play).tasks)
    alike = [frozenset({"fact_0"}), frozenset({"fact_0", "weight"}), frozenset({"fact_0", "probe"})]
    none = [frozenset(), frozenset({"probe"}), frozenset({"fact_1", "weight"})]

    def seen(effects: list[object]) -> list[tuple[str, dict[str, object]]]:
        return [(layer.label, dict(layer.values)) for found in effects for layer in [*found.included, *found.facts]]

    def alone(names: frozenset[str]) -> tuple[list[object], list[object]]:  # a walk of its own: a new store
        first.play.derived.pop("host effects", None)
        return seen(earlier_walk.played(follower, first, host, names)), \
            seen(earlier_walk.own_play(follower, first, host, size, names) or [])

    expected = [alone(names) for names in [*alike, *none, None]]
    first.play.derived.pop("host effects", None)
    walks, prefixes = _counted(monkeypatch, earlier_walk, "ItemMajor"), _counted(monkeypatch, earlier_walk, "_Prefix")
    played, own = [], []
    for group in (alike, none, [None]):  # one walk per list of setters (every name's too), not one per set of names
        played.append(earlier_walk.played(follower, first, host, group[0]))
        own.append(earlier_walk.own_play(follower, first, host, size, group[0]) or [])
        counts = walks[0], prefixes[0]
        played += [earlier_walk.played(follower, first, host, names) for names in group[1:]]
        own += [earlier_walk.own_play(follower, first, host, size, names) or [] for names in group[1:]]
        assert (walks[0], prefixes[0]) == counts
    assert played[0] is played[1] is played[2] and played[3] is played[4] is played[5]
    assert [(seen(a), seen(b)) for a, b in zip(played, own, strict=True)] == expected
    assert expected[0][0] == [("set_fact in task 'set 0'", {"fact_0": 1})] and expected[3] == ([], [])

"""The index of the setters of the plays before a reader's play (engine.variables.walk_steps) is
the index of the play before's, extended by that play's setters, not all of them indexed again at
every play; the plays whose gathering makes facts the run's again after each play
(engine.variables.host_facts.gathering_after) are a tail of the gathering ones; the class key a
setter's first host of a class is keyed by is the one its class was looked up by
(engine.variables.change_classes). Each is compared with what it is built from anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PLAY = """
- name: play {n}
  hosts: {hosts}
  gather_facts: {gather}
  tasks:
    - {{name: set {n}, ansible.builtin.set_fact: {{fact_{n}: "{{{{ weight }}}}", shared: "{{{{ weight + {n} }}}}"}}}}
    - {{name: keep {n}, ansible.builtin.debug: {{msg: "{{{{ fact_{n} }}}}"}}, register: kept_{n}}}
    - {{name: vars {n}, ansible.builtin.include_vars: {{file: "vars_{{{{ weight }}}}.yml"}}, when: {include}}}
    - {{name: read {n}, ansible.builtin.debug: {{msg: r}}, when: "shared | int > {n} and fact_{n} | int > 0"}}
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


def _plan(root: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from engine.flow.plan import RunOptions, make_plan

    hosts = "\n".join(f"h{n:02d} weight={n % 4}" for n in range(10))
    (root / "inventory.ini").write_text(f"[fleet]\n{hosts}\n[small]\nh01\nh02\n")
    for weight in range(4):
        (root / f"vars_{weight}.yml").write_text(f"from_file: {weight}\n")
    plays = [PLAY.format(n=n, hosts="small" if n == 2 else "all", gather=str(n in (1, 4)).lower(),
                         include="true" if n % 2 else "false") for n in range(3)]
    plays.insert(2, RESCUED)
    plays += [PLAY.format(n=n, hosts="all", gather=str(n == 4).lower(), include="false") for n in range(3, 6)]
    (root / "site.yml").write_text("".join(plays))
    monkeypatch.chdir(root)
    return make_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[str(root / "inventory.ini")]))


def _index(earlier: Any) -> tuple[Any, ...]:
    return (earlier.shareable, earlier.rescuing, [(id(play), id(task), own) for play, task, own in earlier.entries],
            earlier.by_name, earlier.always)


def test_the_index_of_the_plays_before_extends_the_play_befores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.variables import walk_steps
    from engine.variables.host_runtime import Follower, followed_memo
    from engine.variables.play_order import play_order
    from engine.variables.report import include_item_order, templar_at

    plan = _plan(tmp_path, monkeypatch)
    follower = Follower(plan, play_order, templar_at, include_item_order)
    built: list[Any] = []
    original = walk_steps._Earlier.__init__  # noqa: SLF001

    def init(self: Any, follower: Any, plays: Any, base: Any = None) -> None:
        built.append((len(plays), base))
        original(self, follower, plays, base)

    monkeypatch.setattr(walk_steps._Earlier, "__init__", init)  # noqa: SLF001
    names = [None, frozenset(), frozenset({"fact_0"}), frozenset({"shared", "from_file"}),
             frozenset({"kept_1", "blocked"}), frozenset({"nothing set"})]
    for at, play_plan in enumerate(plan.plays):
        for name in names:
            walk_steps._earlier_steps(follower, play_plan, name)  # noqa: SLF001 - builds and keeps the index
        kept = followed_memo(play_plan)[("walk class earlier setters", id(plan))][1]
        fresh = walk_steps._Earlier.__new__(walk_steps._Earlier)  # noqa: SLF001
        original(fresh, follower, plan.plays[:at])
        assert _index(kept) == _index(fresh)
        assert [kept.steps(name) for name in names] == [fresh.steps(name) for name in names]
    assert kept.always and len(kept.by_name["shared"]) > 2  # (an include_vars sets any name; a name set in each play)
    assert [base is not None for _, base in built] == [False] + [True] * (len(plan.plays) - 1)
    # extending left the play before's index as it was
    for at, play_plan in enumerate(plan.plays[:-1]):
        kept = followed_memo(play_plan)[("walk class earlier setters", id(plan))][1]
        fresh = walk_steps._Earlier.__new__(walk_steps._Earlier)  # noqa: SLF001
        original(fresh, follower, plan.plays[:at])
        assert _index(kept) == _index(fresh)


def test_the_gathering_after_each_play_is_a_tail_of_the_gathering_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.variables.host_facts import _gathering, gathering_after, plays_before

    plan = _plan(tmp_path, monkeypatch)
    for play_plan in plan.plays:
        found = _gathering(plan, play_plan)
        plays = plays_before(plan, play_plan, including=True)
        rank = {id(earlier): at for at, earlier in enumerate(plays)}
        after = gathering_after(plan, play_plan)
        assert after == {id(earlier): [(reason, later) for reason, later in found if rank[id(later)] > at]
                         for at, earlier in enumerate(plays)}
    assert any(after.values())  # (a play gathers after an earlier one)


def test_a_class_is_kept_by_the_key_its_first_host_was_looked_up_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.flow.host_plan import plan_hosts
    from engine.variables.change_classes import HostClasses
    from engine.variables.host_runtime import followed_memo

    plan = _plan(tmp_path, monkeypatch)
    plan_hosts(plan)
    checked = 0
    for play_plan in plan.plays:
        for key, kept in list(followed_memo(play_plan).items()):
            if isinstance(key, tuple) and key[:1] == ("setter classes",) and isinstance(kept[1], HostClasses):
                classes = kept[1]
                if classes.usable and classes.firsts:
                    assert set(classes.by_key) == {classes.key(first) for first, _ in classes.firsts}
                    checked += 1
    assert checked


def test_the_count_of_tasks_before_a_run_is_the_length_of_their_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.variables.play_order import play_order

    plan = _plan(tmp_path, monkeypatch)
    counted = 0
    for play_plan in plan.plays:
        order = play_order(play_plan.play)
        for task in [None, *order.tasks]:
            for occurrence in range(3):
                assert order.count_before(task, occurrence) == len(order._before(task, occurrence))  # noqa: SLF001
                counted += 1
    assert counted > 3 * len(plan.plays)

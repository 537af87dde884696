"""A fleet's hosts share outcome objects: what the plan does to a task's outcomes host by host (through
the includes on the way, grouped for the JSON output) is decided once per object or combination of
objects, and says for each host what deciding it on its own says."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from engine.flow import host_plan
from engine.flow.host_outcome import DEPENDS, RUNS, SKIPPED, HostOutcome


def _alone(outcome: HostOutcome, states: list[HostOutcome]) -> HostOutcome:
    """One host through its includes, as the plan decides it (kept apart from the shared path)."""
    return host_plan._through(outcome, states) or outcome  # noqa: SLF001


def test_outcomes_through_includes_once_per_combination(monkeypatch: pytest.MonkeyPatch) -> None:
    runs, skipped, unreported = HostOutcome(RUNS), HostOutcome(SKIPPED, "no"), HostOutcome(SKIPPED, "tags", True)
    include_runs, include_skips = HostOutcome(RUNS), HostOutcome(SKIPPED, "its when")
    include_maybe = HostOutcome(DEPENDS, "a fact")
    hosts = [f"h{n:03d}" for n in range(300)]
    outcomes = {host: (runs, skipped, unreported)[n % 3] for n, host in enumerate(hosts)}
    includers = [{host: (include_runs, include_skips, include_maybe)[n % 5 % 3] for n, host in enumerate(hosts)},
                 {host: include_runs for host in hosts[::2]}]
    asked = []
    original = host_plan._through  # noqa: SLF001
    monkeypatch.setattr(host_plan, "_through", lambda *args: asked.append(args) or original(*args))
    found = host_plan._through_includes(outcomes, includers)  # noqa: SLF001
    monkeypatch.undo()
    assert 0 < len(asked) <= 2 * 3 * 2  # outcome reported x first include's x whether the second holds the host
    assert list(found) == hosts
    for host in hosts:
        states = [included[host] for included in includers if host in included]
        assert found[host] == (outcomes[host] if outcomes[host].unreported else _alone(outcomes[host], states))
    assert {found[host].outcome for host in hosts} == {RUNS, SKIPPED, DEPENDS}


@pytest.mark.parametrize("include", [HostOutcome(RUNS), HostOutcome(SKIPPED, "its when"),
                                     HostOutcome(DEPENDS, "a fact")])
@pytest.mark.parametrize("task", [HostOutcome(RUNS), HostOutcome(SKIPPED, "no"), HostOutcome(SKIPPED, "tags", True)])
def test_outcomes_through_includes_alike_on_every_host(task: HostOutcome, include: HostOutcome) -> None:
    """One object for every host and one for each include's hosts (or an include holding none of
    them): decided once, every host given what deciding it alone gives."""
    hosts = [f"h{n:03d}" for n in range(40)]
    outcomes = dict.fromkeys(hosts, task)
    for includers in ([dict.fromkeys(hosts, include)], [dict.fromkeys(hosts, include), {"other": include}], []):
        found = host_plan._through_includes(outcomes, includers)  # noqa: SLF001
        assert list(found) == hosts
        for host in hosts:
            states = [included[host] for included in includers if host in included]
            assert found[host] == (task if task.unreported else _alone(task, states))
        assert len({id(outcome) for outcome in found.values()}) == 1


def test_outcomes_through_includes_that_run_are_left() -> None:
    """Includes that run wherever they are on the way (several objects, some hosts in none) leave
    every outcome as deciding each host alone does."""
    hosts = [f"h{n:03d}" for n in range(40)]
    kinds = (HostOutcome(RUNS), HostOutcome(SKIPPED, "no"), HostOutcome(DEPENDS, "a fact"))
    outcomes = {host: kinds[n % 3] for n, host in enumerate(hosts)}
    includers = [{host: HostOutcome(RUNS) for host in hosts[::2]}, dict.fromkeys(hosts[5:], HostOutcome(RUNS))]
    found = host_plan._through_includes(outcomes, includers)  # noqa: SLF001
    assert list(found) == hosts
    for host in hosts:
        assert found[host] == _alone(outcomes[host], [included[host] for included in includers if host in included])


def test_grouped_outcomes_are_those_of_each_host() -> None:
    """One object for every host, or several of which some say the same: the groups are the same as
    grouping host by host, in the order of each group's first host."""
    from playbook_ls.cli.plan import as_json, json_text, outcome_groups

    hosts = [f"h{n:03d}" for n in range(50)]
    shared = HostOutcome(RUNS)
    one = SimpleNamespace(hosts=dict.fromkeys(hosts, shared))
    assert outcome_groups(one) == [(RUNS, "", hosts)]
    mixed = SimpleNamespace(hosts={host: HostOutcome(SKIPPED, "no") if n % 7 == 3 else
                                   (shared if n % 2 else HostOutcome(RUNS)) for n, host in enumerate(hosts)})
    expected: dict[tuple[str, str], list[str]] = {}
    for host, outcome in mixed.hosts.items():
        expected.setdefault((outcome.outcome, outcome.reason), []).append(host)
    assert outcome_groups(mixed) == [(kind, reason, names) for (kind, reason), names in expected.items()]
    assert outcome_groups(SimpleNamespace(hosts={})) == []
    task = SimpleNamespace(name="t", path=None, line=1, handler=False)
    plays = [SimpleNamespace(name="p", hosts=hosts, tasks=[SimpleNamespace(**vars(task), hosts=one.hosts),
                                                          SimpleNamespace(**vars(task), hosts=mixed.hosts),
                                                          SimpleNamespace(**vars(task), hosts=one.hosts),
                                                          SimpleNamespace(**vars(task), hosts=dict.fromkeys(hosts[:9],
                                                                                                            shared)),
                                                          SimpleNamespace(**vars(task), hosts=one.hosts)])]
    assert json.loads(json_text(plays)) == as_json(plays)


def test_play_lists_less_removed_once_per_batch_and_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every host of a batch reads the same list, and each task's values make it anew: the hosts
    removed are taken out once per batch and items, not once per host and task, and each host gets
    what taking them out for it alone gives (the list it asked with where none is removed)."""
    from engine.flow.removed_hosts import RemovedHosts
    from engine.values import RunOrdered

    hosts = [f"h{n:03d}" for n in range(300)]
    batches = (tuple(hosts[:150]), tuple(hosts[150:]))
    removed = RemovedHosts(frozenset({"h001", "h200"}), frozenset(), batches)
    asked = []
    original = RemovedHosts._value  # noqa: SLF001
    monkeypatch.setattr(RemovedHosts, "_value", lambda *args: asked.append(args[1:3]) or original(*args))
    for _task in range(4):
        lists = {"ansible_play_batch": [list(batch) for batch in batches], "ansible_play_hosts": [hosts, hosts],
                 "play_hosts": [RunOrdered(batch) for batch in batches]}
        for name, values in lists.items():
            for host in hosts:
                value = values[host >= "h150"]
                found = removed.value(name, value, host)
                assert found == original(RemovedHosts(removed.certain, removed.maybe, batches), name, value, host)
                if name != "ansible_play_hosts":  # (that one: the other batch's removals are the run's)
                    assert found[0] == [item for item in value if item not in removed.certain]
    assert len(asked) == 3 * 2  # once per list and batch
    untouched = RemovedHosts(frozenset(), frozenset(), batches)
    value = list(batches[0])
    assert untouched.value("ansible_play_batch", value, "h003")[0] is value
    settled = RemovedHosts(frozenset(), frozenset(), batches, (frozenset(), frozenset(), frozenset({"h002"}),
                                                               frozenset()))
    assert settled.value("ansible_play_hosts", hosts, "h160")[0] == [host for host in hosts if host != "h002"]
    assert settled.value("ansible_play_hosts", list(hosts), "h003")[0] == hosts


def test_maybe_removed_hosts_told_once_per_hosts_and_list() -> None:
    """Why a list is the run's to know names the hosts of it that maybe failed, sorted: made once
    while the maybe-removed hosts and the list's hosts stay the same (a play's lists at each task)."""
    from engine.flow import removed_hosts
    from engine.flow.removed_hosts import RemovedHosts

    hosts = [f"h{n:03d}" for n in range(300)]
    removed_hosts._uncertain.cache_clear()  # noqa: SLF001
    for _task in range(3):  # each task's removed hosts: an object of their own, equal ones
        removed = RemovedHosts(frozenset(), frozenset({"h299", "h002", "x"}), (tuple(hosts),))
        for name in ("ansible_play_hosts", "ansible_play_batch", "play_hosts"):
            assert removed.value(name, list(hosts), "h001") == (
                None, "whether h002, h299 failed or ended earlier in the play (the run's to know)")
        assert removed.value("ansible_play_batch", hosts[3:200], "h003") == (
            None, "whether h002, h299 failed or ended earlier in the play (the run's to know)")  # its batch's
        assert removed.value("ansible_play_hosts", hosts[3:200], "h003") == (hosts[3:200], None)
    assert removed_hosts._uncertain.cache_info().misses == 2  # noqa: SLF001


def test_stopped_hosts_outcomes_made_once_each_a_copy() -> None:
    """The outcomes of the hosts a failure stopped are made once while the stopped hosts stay the
    same; each task gets a dict of its own (the plan writes the other hosts' into it)."""
    from engine.flow.stopped_hosts import StoppedHosts

    hosts = [f"h{n}" for n in range(6)]
    failed = {"h1": ("a failing", True), "h4": ("b failing", False), "h5": ("a failing", True)}
    stopped, made = StoppedHosts(), []
    for _task in range(3):
        groups, others = stopped.groups(hosts, failed, frozenset(), {"h5"})
        found = stopped.outcomes(hosts, groups, lambda why, earlier: made.append(why) or (why, earlier), "key")
        assert found == {"h0": None, "h1": (failed["h1"], False), "h2": None, "h3": None,
                         "h4": (failed["h4"], False), "h5": (failed["h5"], True)}
        assert others == ["h0", "h2", "h3"]
        found["h0"] = "written"
    assert len(made) == 3  # one per group, once
    failed["h2"] = ("c failing", True)
    groups, _others = stopped.groups(hosts, failed, frozenset(), {"h5"})
    assert stopped.outcomes(hosts, groups, lambda why, earlier: why, "key")["h2"] == failed["h2"]


def test_stopped_hosts_worked_out_again_when_the_failed_hosts_change() -> None:
    """The failed hosts counted by their changes: the stopped hosts' views and groups are kept while
    no change was made, worked out again after any (each way a mapping is changed), and for a plain
    mapping kept while its hosts compare equal."""
    from engine.flow.stopped_hosts import Failed, StoppedHosts

    hosts = [SimpleNamespace(name=f"h{n}") for n in range(4)]
    names = [host.name for host in hosts]
    batches = [names]
    changes = [lambda f: f.__setitem__("h1", ("a", True)), lambda f: f.setdefault("h2", ("b", False)),
               lambda f: f.update({"h3": ("c", True)}), lambda f: f.__ior__({"h0": ("d", True)}),
               lambda f: f.pop("h0"), lambda f: f.__delitem__("h3"), lambda f: f.popitem(), lambda f: f.clear()]
    for failed in (Failed(), {}):
        stopped = StoppedHosts()
        for change in changes:
            before = stopped.views(hosts, failed, frozenset(), {}, {}, batches)
            groups = stopped.groups(names, failed, frozenset(), set())
            assert stopped.views(hosts, failed, frozenset(), {}, {}, batches) is before
            assert stopped.groups(names, failed, frozenset(), set())[0] is groups[0]
            change(failed)
            running, out, _removed = stopped.views(hosts, failed, frozenset(), {}, {}, batches)
            assert [host.name for host in running] == [name for name in names if name not in failed]
            assert out == {host: why[1] or why[0] for host, why in failed.items()}
            assert stopped.groups(names, failed, frozenset(), set())[1] == [n for n in names if n not in failed]
    failed = Failed({"h1": ("a", True)})
    changes_before = failed.changes
    failed.setdefault("h1", ("b", False))  # no change: h1 holds its failure
    assert failed.changes == changes_before and failed["h1"] == ("a", True)


def test_stopped_hosts_objects_are_those_of_each_host() -> None:
    """A task's outcome objects where only the hosts no failure stopped were written are the stopped
    groups' and theirs, in the order of their first host, as a pass over every host finds them."""
    from engine.flow.outcomes import KnownOutcomes, distinct
    from engine.flow.stopped_hosts import StoppedHosts

    names = [f"h{n:02d}" for n in range(40)]
    failed = {name: (("a", True), ("b", False))[n % 3 == 1] for n, name in enumerate(names) if n % 5 and n != 1}
    failed["h09"] = failed["h33"] = ("c", True)
    runs, skipped = HostOutcome(RUNS), HostOutcome(SKIPPED, "its when")
    stopped = StoppedHosts()
    groups, others = stopped.groups(names, failed, frozenset(), {"h03"})
    by_failure = {why: HostOutcome(SKIPPED, why[0], True) for why in failed.values()}
    found = stopped.outcomes(names, groups, lambda why, earlier: by_failure[why], "key", others)
    assert isinstance(found, KnownOutcomes) and found.objects is None  # few others: objects found after
    for n, host in enumerate(others):
        found[host] = (runs, skipped, runs)[n % 3]
    objects = stopped.objects("key", groups, found, others)
    assert objects == list(distinct(found))
    assert found.found(objects) is found and distinct(found) == tuple(objects)
    assert type(stopped.outcomes(names, groups, lambda why, earlier: by_failure[why], "key", names)) is dict
    assert stopped.objects("key", {}, found, others) is None  # other groups: not these
    assert stopped.objects("key", groups, found, names) is None  # most hosts written: a pass
    alone = StoppedHosts()  # failed hosts not of the play's (x, y) have no outcome in it
    failed = {"h01": ("a", True), "x": ("b", True), "y": ("c", False), **dict.fromkeys(names[2:10], ("c", False))}
    groups, others = alone.groups(names[:11], failed, frozenset(), set())
    found = alone.outcomes(names[:11], groups, lambda why, earlier: by_failure.setdefault(why, HostOutcome(*why)),
                           "key")
    assert list(found) == names[:11] and others == ["h00", "h10"]
    found.update(dict.fromkeys(others, runs))
    assert alone.objects("key", groups, found, others) == list(distinct(found))


def test_stopped_hosts_members_are_those_of_each_host() -> None:
    """The hosts of each object where only the hosts no failure stopped were written: each group's
    and the others' by their object, in the order of the task's hosts, as the JSON's groups of a
    pass over every host; none where an object is a group's and another host's too."""
    from engine.flow.outcomes import KnownOutcomes, distinct
    from engine.flow.stopped_hosts import StoppedHosts
    from playbook_ls.cli.plan import outcome_groups

    names = [f"h{n:02d}" for n in range(40)]
    failed = {name: (("a", True), ("b", False))[n % 3 == 1] for n, name in reversed(list(enumerate(names)))
              if n % 5 and n != 1}  # (failed in another order than the play's)
    failed["x"] = ("c", True)  # one not of the play's: no outcome in it
    runs, skipped = HostOutcome(RUNS), HostOutcome(SKIPPED, "its when")
    stopped = StoppedHosts()
    groups, others = stopped.groups(names, failed, frozenset(), {"h03"})
    by_failure: dict[Any, HostOutcome] = {}
    def alike(*group: Any) -> HostOutcome:
        return by_failure.setdefault(group, HostOutcome(SKIPPED, str(group)))

    found = stopped.outcomes(names, groups, alike, "key", others)
    for n, host in enumerate(others):
        found[host] = (runs, skipped, runs)[n % 3]
    objects = stopped.objects("key", groups, found, others)
    members = stopped.members("key", groups, objects, found, others)
    assert members == [[host for host, outcome in found.items() if outcome is each] for each in objects]
    alone = KnownOutcomes(found, tuple(distinct(found)))
    assert outcome_groups(SimpleNamespace(hosts=found.found(objects, members))) == \
        outcome_groups(SimpleNamespace(hosts=alone))
    found[others[0]] = runs  # a change to the hosts drops them
    assert found.members is None and found.objects is None
    found[others[0]] = by_failure[(("a", True), False)]  # a group's object on another host too: merged, not told
    assert stopped.members("key", groups, objects, found, others) is None
    assert stopped.members("key", {}, objects, found, others) is None
    shared = StoppedHosts()  # one object for two groups: merged, not told
    found = shared.outcomes(names, groups, lambda why, earlier: by_failure[(why, False)], "key", others)
    found.update(dict.fromkeys(others, runs))
    assert shared.members("key", groups, shared.objects("key", groups, found, others), found, others) is None


@pytest.mark.parametrize("handler", [False, True])
@pytest.mark.parametrize("once", [None, True])
def test_ended_hosts_outcomes_are_those_of_each_host(handler: bool, once: bool | None) -> None:
    """After an ``end_host``, a task's outcomes are the hosts' own, what may have ended a host over
    them, and what did over that, in the play's order, as asking each host gives them."""
    from engine.flow.host_meta import ENDED_HANDLER, Ended

    hosts = [f"h{n:02d}" for n in range(30)]
    task = SimpleNamespace(handler=handler, effective=lambda name: SimpleNamespace(value=once))
    runs, skipped = HostOutcome(RUNS), HostOutcome(SKIPPED, "no")
    outcomes = {host: (runs, skipped)[n % 4 == 1] for n, host in enumerate(reversed(hosts)) if n % 7 != 3}
    ended = Ended()
    ended.certain = {host: HostOutcome(SKIPPED, f"ended {host}", True) for host in hosts[2:9:3] + ["elsewhere"]}
    ended.maybe = {host: HostOutcome(DEPENDS, f"maybe {host}") for host in hosts[5:20:4]}
    expected = {}
    for host in hosts:  # host by host, as the plan asked before
        if host not in outcomes and host not in ended.certain:
            continue
        if host in ended.certain:
            expected[host] = ENDED_HANDLER if handler else ended.certain[host]
        elif host in ended.maybe or (once and ended.maybe):
            expected[host] = ended.maybe.get(host) or next(iter(ended.maybe.values()))
        else:
            expected[host] = outcomes[host]
    found = ended.outcomes(task, outcomes, hosts)  # type: ignore[arg-type]
    assert list(found.items()) == list(expected.items())
    assert all(found[host] is expected[host] for host in found)


def test_outcomes_keep_their_objects_until_changed() -> None:
    """A planned task's outcomes carry their objects as found when made, and any change to the
    hosts drops them: what each reader then finds is what a pass over the hosts finds, and the
    groups are those of each host, alike for every way the hosts change."""
    from engine.flow.outcomes import distinct, known
    from playbook_ls.cli.plan import outcome_groups

    hosts = [f"h{n:03d}" for n in range(30)]
    runs, skipped, other = HostOutcome(RUNS), HostOutcome(SKIPPED, "no"), HostOutcome(DEPENDS, "a fact")
    plain = {host: skipped if n % 4 == 1 else runs for n, host in enumerate(hosts)}
    changes = [lambda o: o.__setitem__(hosts[0], other), lambda o: o.update({hosts[2]: other}),
               lambda o: o.pop(hosts[1]), lambda o: o.__delitem__(hosts[1]), lambda o: o.popitem(),
               lambda o: o.setdefault("new", other), lambda o: o.__ior__({"new": other}), lambda o: o.clear()]
    for change in [*changes, None]:
        expected = dict(plain)
        outcomes = known(plain, distinct(plain))
        assert outcomes.objects == (runs, skipped) and outcomes == plain
        if change is not None:
            change(expected)
            change(outcomes)
            assert outcomes.objects is None
        assert list(distinct(outcomes)) == list(distinct(expected))
        grouped: dict[tuple[str, str], list[str]] = {}
        for host, outcome in expected.items():
            grouped.setdefault((outcome.outcome, outcome.reason), []).append(host)
        assert outcome_groups(SimpleNamespace(hosts=outcomes)) == [(kind, why, names) for (kind, why), names in
                                                                    grouped.items()]
    assert list(distinct(known({}, ()))) == [] and outcome_groups(SimpleNamespace(hosts=known({}, ()))) == []
    one = known(dict.fromkeys(hosts, runs), (runs,))
    assert outcome_groups(SimpleNamespace(hosts=one)) == [(RUNS, "", hosts)]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 6, 7, 20])
def test_distinct_objects_and_groups_are_those_of_each_host(count: int) -> None:
    """However many objects the hosts share (found a pass per object for a few, else by one pass),
    each is found once, in the order of its first host, and the groups are those host by host: a
    group of one object or of several that say the same, up to and beyond a pass per group."""
    from engine.flow.outcomes import distinct
    from playbook_ls.cli.plan import outcome_groups

    made = [HostOutcome(SKIPPED, f"reason {n // 2}") if n % 3 else HostOutcome(RUNS) for n in range(count)]
    hosts = {f"h{n:03d}": made[(n * 7 + n // 5) % count] for n in range(90)}
    expected: dict[int, HostOutcome] = {}
    for outcome in hosts.values():
        expected.setdefault(id(outcome), outcome)
    found = list(distinct(hosts))
    assert len(found) == len(expected) and all(map(lambda a, b: a is b, found, expected.values()))
    grouped: dict[tuple[str, str], list[str]] = {}
    for host, outcome in hosts.items():
        grouped.setdefault((outcome.outcome, outcome.reason), []).append(host)
    assert outcome_groups(SimpleNamespace(hosts=hosts)) == [(kind, why, names) for (kind, why), names in
                                                             grouped.items()]


def test_combinations_are_those_of_each_host() -> None:
    """Hosts grouped by the objects of several columns (a column holding no such host: None) are
    the groups of a key per host, each in the hosts' order; none past a few groups."""
    from engine.flow.outcomes import combinations

    hosts = [f"h{n:03d}" for n in range(120)]
    a, b, c = HostOutcome(RUNS), HostOutcome(RUNS), HostOutcome(SKIPPED, "no")
    columns = [{host: (a, b, c)[n % 7 % 3] for n, host in enumerate(hosts)}, {host: a for host in hosts[::4]},
               {host: True for n, host in enumerate(hosts) if n > 60 and n % 7 % 3 == 0}]
    getters = [column.get for column in columns]
    expected: dict[tuple[int, ...], list[str]] = {}
    for host in hosts:
        expected.setdefault(tuple(id(column.get(host)) for column in columns), []).append(host)
    assert len(expected) == 8
    for first in (None, list(columns[0].values())):
        found = combinations(hosts, getters, first)
        assert found is not None and sorted(found) == sorted(expected.values())
    assert combinations(hosts, [getters[0]]) == [[h for h in hosts if columns[0][h] is o] for o in (a, b, c)]
    assert combinations(hosts, [dict(zip(hosts, map(HostOutcome, hosts), strict=True)).get]) is None  # many
    assert combinations([], getters) == []

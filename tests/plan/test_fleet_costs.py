"""Costs that grew faster than the fleet, each made to grow with the distinct work, and the answers
unchanged: the inventory a group_by leaves is a copy of its graph (not a deep copy of every value,
which also outran Python's stack on a large fleet), a template that does not compile fails each
time it is asked for without being compiled again, and the run-ordered ``groups`` after a group_by
are made once for every host reading that inventory."""

from __future__ import annotations

import copy
import sys

from engine.inventory.data import InventoryData
from engine.inventory.graph_copy import copy_graph
from engine.templating import templar as templar_module
from engine.templating.templar import Templar, TemplateFailure
from engine.variables import run_ordered_lists


def _fleet(groups: int = 60) -> InventoryData:
    data = InventoryData()
    data.add_group("racks")
    for index in range(groups):
        name = data.add_group(f"rack{index}")
        data.add_child("racks", name)
        data.add_host(f"h{index}", name)
        data.set_variable(f"h{index}", "nested", {"rack": index, "ports": [index, index + 1]})
        if index:
            data.add_child(name, f"h{index - 1}")  # each host also in the next rack: one long chain of links
    data.set_variable("rack0", "dc", "east")
    data.reconcile_inventory()
    return data


def _shape(data: InventoryData) -> tuple[object, ...]:
    return (sorted((name, [h.name for h in g.get_hosts()], [c.name for c in g.child_groups],
                    [p.name for p in g.parent_groups], [a.name for a in g.get_ancestors()], g.vars, g.depth)
                   for name, g in data.groups.items()),
            sorted((name, [g.name for g in h.get_groups()], h.vars) for name, h in data.hosts.items()),
            data.get_groups_dict())


def test_graph_copy_is_the_deep_copy() -> None:
    data = _fleet()
    assert _shape(copy_graph(data)) == _shape(copy.deepcopy(data))


def test_graph_copy_changes_leave_the_original() -> None:
    data = _fleet()
    before = _shape(data)
    copied = copy_graph(data)
    copied.add_group("joined")
    copied.add_child("joined", "h3")
    copied.add_host("new", "rack2")
    copied.hosts["h4"].set_variable("nested", "replaced")
    assert _shape(data) == before
    assert "joined" in [g.name for g in copied.hosts["h3"].get_groups()]
    assert copied.hosts["h5"].vars["nested"] is data.hosts["h5"].vars["nested"]  # the values are shared


def test_graph_copy_of_a_long_chain_of_links() -> None:
    data = _fleet(groups=sys.getrecursionlimit())  # a deep copy follows the links into the stack's limit
    assert len(copy_graph(data).get_groups_dict()["racks"]) == len(data.hosts)


def test_a_template_that_does_not_compile_fails_alike_compiled_once() -> None:
    text = "{{ services | a_filter_nobody_defines }}"
    before = templar_module._compile.cache_info().misses
    failures = []
    for _ in range(3):
        try:
            Templar({"services": [1]}).template(text)
        except TemplateFailure as exc:
            failures.append(str(exc))
    assert len(failures) == 3 and len(set(failures)) == 1 and "a_filter_nobody_defines" in failures[0]
    assert templar_module._compile.cache_info().misses - before == 1


def test_a_kept_compile_failure_is_raised_anew_each_time() -> None:
    """What a caller adds to the failure it meets (where the template was written) is not the next
    caller's: a scenario run in another directory showed the first directory's file."""
    from jinja2 import TemplateSyntaxError

    met = []
    for _ in range(2):
        try:
            templar_module._compiled(templar_module.environment(), "{{ x | a_filter_nobody_defines }}")
        except TemplateSyntaxError as exc:
            if not met:
                exc.filename = "/first/site.yml"  # as an error block names where it was written
            met.append(exc)
    assert len(met) == 2 and met[0] is not met[1] and met[1].filename != "/first/site.yml"
    assert met[0].message == met[1].message


class _PlayPlan:
    racy_tasks = {"front": "by tier"}


def test_run_ordered_groups_made_once_per_inventory() -> None:
    play_plan = _PlayPlan()
    groups = {"front": ["a", "b"], "all": ["a", "b", "c"]}
    first = run_ordered_lists.racy_groups(play_plan, groups, frozenset({"front"}))
    assert run_ordered_lists.racy_groups(play_plan, groups, frozenset({"front"})) is first
    assert first == {"front": run_ordered_lists.ordered_by_task(groups["front"], "front", "by tier"),
                     "all": groups["all"]}
    assert first["front"].why == run_ordered_lists.ordered_by_task(["a"], "front", "by tier").why
    other = {"front": ["b", "a"], "all": ["a", "b", "c"]}  # another inventory: made again
    assert run_ordered_lists.racy_groups(play_plan, other, frozenset({"front"}))["front"] == ["b", "a"]


def test_serial_batches_found_once_per_list_of_hosts(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Where a host's ``serial`` batch comes against a reader's, and the batch a ``run_once`` task
    runs in, are looked up in the play's batches made once: each made them again (hosts x hosts)."""
    from types import SimpleNamespace

    from engine.flow import batches

    play = SimpleNamespace(data={"serial": [3, "40%"]}, vars={})
    hosts = [SimpleNamespace(name=f"h{n}") for n in range(10)]
    play_plan = SimpleNamespace(play=play, hosts=hosts)
    made = []
    original = batches.play_batches
    monkeypatch.setattr(batches, "play_batches", lambda *args: made.append(1) or original(*args))
    expected = original(play, [h.name for h in hosts])
    assert expected == [["h0", "h1", "h2"], ["h3", "h4", "h5", "h6"], ["h7", "h8", "h9"]]
    where = {name: at for at, batch in enumerate(expected) for name in batch}
    for host in hosts:
        assert [h.name for h in batches.host_batch(play_plan, host.name)] == expected[where[host.name]]
        for reader in hosts:
            assert batches.batch_place(play_plan, host, reader) == \
                (where[host.name] > where[reader.name]) - (where[host.name] < where[reader.name])
        assert [[h.name for h in b] for b in batches.batches_run(play_plan, host, True)] == expected[:where[host.name]]
    assert batches.host_batch(play_plan, "elsewhere") is hosts
    assert len(made) == 1
    play_plan.hosts = hosts[:4]  # another list of hosts: made again
    assert [h.name for h in batches.host_batch(play_plan, "h3")] == ["h3"]
    assert len(made) == 2

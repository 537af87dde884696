"""The part of a host's key of the walk before a task (engine.variables.walk_classes) its inventory
and the plays so far give, as numbers: the values the inventory gives the names read (numbered among
the plan's, found once per inventory twin), and which plays so far the host is in (numbered play by
play). Equal numbers exactly where the parts are equal, asked of many hosts at once."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from engine.variables import host_answers as answers
from engine.variables.host_facts import plays_before

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


class _Numbers(dict[Any, int]):
    """Keys numbered as they come: a key not numbered yet is given the next number when looked up (so
    a list of keys is numbered in one pass, each hashed once)."""

    def __missing__(self, key: Any) -> int:
        number = self[key] = len(self)
        return number


def _host_keys_now(plan: Plan, play_plan: PlayPlan, hosts: list[Host], task: Task,
                   read: frozenset[str]) -> list[tuple[int, Any]]:
    """Each host's part of its key the inventory gives for ``read`` and the plays so far it is in, as
    a pair of numbers: its :func:`_inventory_part` numbered among the plan's (equal parts, one number),
    and its plays (:func:`_plays_numbers`). Hosts the inventory answers alike (inventory twins) are
    given the number of the first one's part, found once per twin token, names and cached facts."""
    from engine.variables.host_runtime import followed_memo
    from engine.variables.inventory_twins import twin_key

    numbers: _Numbers = plan.__dict__.setdefault("walk key parts", _Numbers())
    memo = followed_memo(play_plan)
    found = []
    for host in hosts:
        # a host the inventory answers as another for every name read (the same groups and facts, none
        # of its own variables read, nor its name or groups): that one's part
        twin = twin_key(plan, play_plan, host, task, read)
        if twin is None:
            found.append(numbers[_inventory_part(plan, play_plan, host, task, read)])
            continue
        key = ("walk twin key", *twin)
        kept = memo.get(key)
        if kept is None or kept[0] is not plan:
            kept = memo[key] = (plan, numbers[_inventory_part(plan, play_plan, host, task, read)])
        found.append(kept[1])
    return list(zip(found, _plays_numbers(plan, play_plan, hosts), strict=True))


def _inventory_part(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, read: frozenset[str]) -> tuple[Any, ...]:
    """What the inventory and cached facts give ``host`` for ``read`` (:func:`_host_keys_now`)."""
    from engine.variables.host_facts import cached_facts, facts_unknown
    from engine.variables.report import host_at, inventory_keys

    signature, values, _ = inventory_keys(plan, play_plan, host, task, sorted(answers.variable_names(read)))
    cached = cached_facts(plan).get(host.name)
    return (("levels", signature) if values is None else ("values", values),
            host.name if read & answers.NAME else None,
            answers.groups_part(read, lambda: host_at(plan, play_plan, host, task).get_magic_vars()["group_names"]),
            facts_unknown(plan, play_plan, host), cached.digest if cached else None)


def _plays_numbers(plan: Plan, play_plan: PlayPlan, hosts: list[Host]) -> list[Any]:
    """Which plays so far each of ``hosts`` is in, as a number equal for hosts in the same plays: the
    hosts' numbers at the plays up to each play of the plan found once, each from the number at the
    play before and whether the host is in the play (the same for every name read, at every play).
    (The editor's plan of one play: the list of whether the host is in each.)"""
    from engine.variables.setters import host_names

    every = getattr(plan, "plays", None)
    if isinstance(every, list):
        kept = plan.__dict__.get("plays in")
        if kept is None or kept[0] is not every or kept[1] != len(every):
            kept = plan.__dict__["plays in"] = (every, len(every), {}, [{}], _Numbers())
        count = kept[2].get(id(play_plan))  # how many of the plan's plays are so far at this play, once per play
        if count is None:
            plays = plays_before(plan, play_plan, True)
            count = kept[2][id(play_plan)] = len(plays) if plays and len(plays) <= len(every) and \
                every[len(plays) - 1] is plays[-1] else -1
        if count >= 0:
            return _numbers_at(every, kept[3], kept[4], count, [host.name for host in hosts])
    return [tuple(host.name in host_names(earlier) for earlier in plays_before(plan, play_plan, True))
            for host in hosts]


def _numbers_at(every: list[PlayPlan], tables: list[dict[str, int]], pairs: _Numbers,
                count: int, names: list[str]) -> list[int]:
    """The numbers of ``names`` at the first ``count`` plays of ``every`` (:func:`_plays_numbers`): equal
    exactly when the hosts are in the same of those plays (at none: -1 for every host; at ``count``:
    the number of the host's number at ``count - 1`` and whether it is in the play, one ``pairs`` of
    them for every count). ``tables``: the hosts' numbers found so far, at each count."""
    from engine.variables.setters import host_names

    if count == 0:
        return [-1] * len(names)
    if len(names) == 1:
        return [_number_at(every, tables, pairs, count, names[0])]
    while len(tables) <= count:
        tables.append({})
    table = tables[count]
    found = list(map(table.get, names))
    if None in found:
        missing = [name for name, number in zip(names, found, strict=True) if number is None]
        before = _numbers_at(every, tables, pairs, count - 1, missing)
        steps = zip(itertools.repeat(count), before, map(host_names(every[count - 1]).__contains__, missing))
        table.update(zip(missing, map(pairs.__getitem__, steps), strict=True))  # (a new step numbered as it comes)
        found = list(map(table.__getitem__, names))
    return found  # type: ignore[return-value]


def _number_at(every: list[PlayPlan], tables: list[dict[str, int]], pairs: _Numbers, count: int, name: str) -> int:
    """:func:`_numbers_at` of one host, by a loop down to the last count it is numbered at and back up
    (a host asked alone: a call per play there, each listing one name), numbering the counts on the
    way up in the same order."""
    from engine.variables.setters import host_names

    while len(tables) <= count:
        tables.append({})
    at, number = count, None
    while at > 0 and (number := tables[at].get(name)) is None:
        at -= 1
    if at == 0:
        number = -1
    while at < count:
        at += 1
        number = tables[at][name] = pairs[(at, number, name in host_names(every[at - 1]))]
    return number  # type: ignore[return-value]

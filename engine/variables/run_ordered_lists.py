"""The magic lists whose order only the run knows, as a host's templates read them: ``groups``
with the lists of groups group_by filled (in the order their results came in) or whose nested
child groups ansible walks in a set's order, the play's host lists in such an order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.values import RunOrdered


def one_batch(batches: list[list[str]] | None) -> bool:
    return batches is not None and all(batch == batches[0] for batch in batches[1:])


def ordered(value: list[Any], why: str) -> RunOrdered:
    found = RunOrdered(value)
    found.why = f"not known before the run: {why}"
    return found


def racy_groups(play_plan: Any, groups: Mapping[str, Any], racy: frozenset[str],
                 nested: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``groups`` with the lists of the ``racy`` groups (and of ``nested``: group -> why) in the
    run's order: the same for every host that reads that inventory at that point of the play, so
    made once for them all (each list a copy of its group's hosts: made per host, thousands of hosts
    made thousands of copies each), and one object, so that what is shown of it is worked out once
    too (engine.variables.report's ``_magic_shown``)."""
    made = play_plan.__dict__.setdefault("_racy_groups_made", {})
    nested = nested or {}
    key = (id(groups), racy, id(nested))
    found = made.get(key)
    if found is None or found[0] is not groups:
        named = getattr(play_plan, "racy_tasks", {})
        found = made[key] = (groups, {name: ordered_by_task(hosts, name, named.get(name))
                                      if name in racy and isinstance(hosts, list) else
                                      ordered(hosts, nested[name].removeprefix("not known before the run: "))
                                      if name in nested and isinstance(hosts, list) else hosts
                                      for name, hosts in groups.items()})
    return found[1]


def ordered_by_task(hosts: list[str], group: str, task: str | None) -> RunOrdered:
    """The hosts of ``group``, in the order ``task`` (a group_by) put them there: the run's."""
    found = RunOrdered(hosts)
    if task is not None:
        found.why = f"not known before the run: the hosts of group {group!r} in the order the results of " \
                    f"task {task!r} (group_by) came in"
    return found


def racy_reason(groups: list[str]) -> str:
    return f"the order of the hosts group_by put in {', '.join(repr(g) for g in groups)} (as their results " \
           "came in), which only the run knows"

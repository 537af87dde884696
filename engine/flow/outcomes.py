"""What the plan says of a task on a host (engine.flow.host_outcome computes it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_

RUNS, SKIPPED, DEPENDS, FAILS = "runs", "skipped", "depends", "fails"


@dataclass
class HostOutcome:
    outcome: str
    """``runs``, ``skipped``, ``depends`` (on a run-time value) or ``fails`` (ansible stops the
    host there whatever happens before)."""
    reason: str = ""
    unreported: bool = False
    """Skipped without a word from ansible (no ``skipping:`` line): not selected by the tags, not
    notified, ``run_once`` on another host, a role that already ran, a host that failed."""
    items: tuple[HostOutcome, ...] | None = None
    """For a task a looping include loads, its outcome at each item of the include, in run order,
    when the items give it different outcomes and each is known (an unreported skip: the include
    itself skips that item, so loads nothing)."""


def distinct(outcomes: Mapping[str, HostOutcome]) -> Iterable[HostOutcome]:
    """The outcome objects of ``outcomes`` (by host), each once, in the order of their first host: a
    fleet's hosts mostly share a few, and asking each object once is not asking each host."""
    values = outcomes.values()
    first = next(iter(values), None)
    if first is None or all(map(is_, values, repeat(first))):  # most tasks: one object for every host
        return () if first is None else (first,)
    return dict(zip(map(id, values), values, strict=True)).values()


def hosts_of(outcomes: Mapping[str, HostOutcome], chosen: Iterable[HostOutcome]) -> list[str]:
    """The hosts of ``outcomes`` (in their order) whose outcome is one of the objects ``chosen``: one
    pass that asks no Python code per host (a task of a fleet asks it for each of a few objects)."""
    idents = {id(outcome) for outcome in chosen}
    return list(compress(outcomes, map(idents.__contains__, map(id, outcomes.values()))))


def hosts_among(outcomes: Mapping[str, HostOutcome], objects: list[HostOutcome],
                chosen: list[HostOutcome]) -> Iterable[str]:
    """:func:`hosts_of` where ``objects`` are those of ``outcomes`` (:func:`distinct`) and ``chosen``
    some of them: every host, without a pass over them, when ``chosen`` are all; none when none."""
    if len(chosen) == len(objects):
        return outcomes.keys()
    return hosts_of(outcomes, chosen) if chosen else ()

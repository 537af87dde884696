"""What the plan says of a task on a host (engine.flow.host_outcome computes it)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import compress, repeat
from operator import is_, is_not
from typing import Any

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


@lru_cache(maxsize=4096)
def alike(outcome: str, reason: str = "", unreported: bool = False) -> HostOutcome:
    """One :class:`HostOutcome` object for an outcome made alike for many hosts (a meta that ended them,
    ``run_once`` on another host, an include that loads nothing there): what reads many hosts'
    outcomes (the handlers' answers, a role's note) groups them by identity, so an outcome made host
    by host made each host a group of its own. Equal outcomes, so the plan says the same (no outcome
    is changed once made)."""
    return HostOutcome(outcome, reason, unreported)


class KnownOutcomes(dict[str, HostOutcome]):
    """Outcomes by host that carry their outcome objects (:func:`distinct`) as found when they were
    made, for the later readers of a planned task's hosts (the plan's end of play, the tasks an
    include loads, the JSON): each asks its few objects without a pass over a fleet's hosts. Any
    change to the hosts drops them (then found again by a pass)."""

    __slots__ = ("objects", "members")

    def __init__(self, outcomes: Mapping[str, HostOutcome], objects: tuple[HostOutcome, ...]) -> None:
        super().__init__(outcomes)
        self.objects: tuple[HostOutcome, ...] | None = objects
        # where known as the hosts were written: the hosts of each object, in their order here
        self.members: list[list[str]] | None = None

    @classmethod
    def unfound(cls, outcomes: Mapping[str, HostOutcome]) -> KnownOutcomes:
        """A copy of ``outcomes`` whose objects are not found yet (:meth:`found` gives them)."""
        made = cls(outcomes, ())
        made.objects = None
        return made

    def found(self, objects: Iterable[HostOutcome], members: list[list[str]] | None = None) -> KnownOutcomes:
        """These outcomes with ``objects``, those of them (:func:`distinct`), kept with them: no copy;
        and ``members``, the hosts of each object where known."""
        self.objects = tuple(objects)
        self.members = members
        return self

    def __setitem__(self, key: str, value: HostOutcome) -> None:
        self.objects = self.members = None
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.objects = self.members = None
        super().__delitem__(key)

    def __ior__(self, other: Any) -> KnownOutcomes:  # type: ignore[override,misc]
        self.objects = self.members = None
        return super().__ior__(other)  # type: ignore[return-value]

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.objects = self.members = None
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.objects = self.members = None
        return super().setdefault(key, default)

    def pop(self, *args: Any) -> Any:
        self.objects = self.members = None
        return super().pop(*args)

    def popitem(self) -> tuple[str, HostOutcome]:
        self.objects = self.members = None
        return super().popitem()

    def clear(self) -> None:
        self.objects = self.members = None
        super().clear()


def known(outcomes: Mapping[str, HostOutcome], objects: Iterable[HostOutcome]) -> KnownOutcomes:
    """``outcomes`` with ``objects``, those of them (:func:`distinct`), kept with them."""
    return KnownOutcomes(outcomes, tuple(objects))


def distinct(outcomes: Mapping[str, HostOutcome]) -> Iterable[HostOutcome]:
    """The outcome objects of ``outcomes`` (by host), each once, in the order of their first host: a
    fleet's hosts mostly share a few, and asking each object once is not asking each host."""
    if type(outcomes) is KnownOutcomes and outcomes.objects is not None:
        return outcomes.objects
    values = outcomes.values()
    objects = _peeled_objects(values)
    return objects if objects is not None else dict(zip(map(id, values), values, strict=True)).values()


def _peeled_objects(values: Collection[Any]) -> Sequence[Any] | None:
    """The objects of ``values``, each once (by identity: None is one too), in the order of their
    first: a pass in C per object, each taken out of those left (the first left is the next
    object). None past :data:`_PEELED` objects."""
    if not values:
        return ()
    first = next(iter(values))
    if all(map(is_, values, repeat(first))):  # most tasks: one object for every host
        return (first,)
    objects, rest = [first], values
    for _ in range(_PEELED):
        rest = list(filter(partial(is_not, objects[-1]), rest))
        if not rest:
            return objects
        objects.append(rest[0])
    return None


def peeled(members: list[str], values: list[Any]) -> list[list[str]] | None:
    """``members`` grouped by the object each has in ``values`` (by identity: None is one too), each
    group in their order, the groups in the order of their first member: a pass in C per object.
    None past :data:`_PEELED` objects."""
    objects = _peeled_objects(values)
    if objects is None or len(objects) <= 1:
        return None if objects is None else [members] if objects else []
    return [list(compress(members, map(is_, values, repeat(each)))) for each in objects]


_PEELED = 4
"""Up to how many objects :func:`distinct` and :func:`peeled` take out of the hosts, a pass each (then
one pass by their ``id``)."""


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


def combinations(hosts: list[str], columns: list[Callable[[str], Any]], first: list[Any] | None = None,
                 start: list[list[str]] | None = None) -> list[list[str]] | None:
    """``hosts`` grouped by the objects each of ``columns`` gives them (by identity), each group in
    their order: the hosts of each object of a column taken out of each group of the columns before
    by :func:`peeled`, without a key made per host (``first``: the first column's objects of
    ``hosts``, where at hand; ``start``: groups of ``hosts`` found before, each split further). None
    past :data:`_COMBINATIONS` groups."""
    groups = start if start is not None else [hosts]
    for at, column in enumerate(columns):
        split: list[list[str]] = []
        for members in groups:
            parts = peeled(members, first if at == 0 and first is not None else list(map(column, members)))
            if parts is None or len(split) + len(parts) > _COMBINATIONS:
                return None
            split += parts
        groups = split
    return groups


_COMBINATIONS = 8
"""Up to how many groups :func:`combinations` finds (a few passes per group)."""

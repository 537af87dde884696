"""The hosts a failure or an ``end_host``/``end_play`` stopped before a task, as the plan asks at
every task of a play (engine.flow.host_plan): the hosts still running it, those out of the play's
lists and why. A fleet's hosts failing at one task stay failed for the hundreds of tasks after:
these are worked out again only when the stopped hosts changed, not per task and host."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from engine.flow.outcomes import KnownOutcomes
from engine.flow.removed_hosts import RemovedHosts

if TYPE_CHECKING:
    from engine.inventory.data import Host


class Failed(dict[str, tuple[str, bool]]):
    """The hosts failed so far and why (failure, certain), counting its changes: a reader that keeps
    what it made of them knows they are the same without comparing thousands of hosts at each task."""

    __slots__ = ("changes",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changes = 0

    def __setitem__(self, key: str, value: tuple[str, bool]) -> None:
        self.changes += 1
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.changes += 1
        super().__delitem__(key)

    def __ior__(self, other: Any) -> Failed:  # type: ignore[override,misc]
        self.changes += 1
        return super().__ior__(other)  # type: ignore[return-value]

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.changes += 1
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.changes += key not in self
        return super().setdefault(key, default)

    def pop(self, *args: Any) -> Any:
        self.changes += 1
        return super().pop(*args)

    def popitem(self) -> tuple[str, tuple[str, bool]]:
        self.changes += 1
        return super().popitem()

    def clear(self) -> None:
        self.changes += 1
        super().clear()


def _same(kept: tuple[Any, ...], failed: Mapping[str, tuple[str, bool]]) -> bool:
    """Whether ``failed`` is as ``kept`` (:func:`_kept`) holds it: by its count of changes for a
    :class:`Failed`, by its hosts for another mapping."""
    if type(failed) is Failed:
        return kept[0] is failed and kept[1] == failed.changes
    return kept[0] is None and kept[1] == failed


def _kept(failed: Mapping[str, tuple[str, bool]]) -> tuple[Any, ...]:
    return (failed, failed.changes) if type(failed) is Failed else (None, dict(failed))


class StoppedHosts:
    """The views of one play's stopped hosts, kept while they stay the same."""

    def __init__(self) -> None:
        self._state: tuple[Any, ...] | None = None
        self._views: tuple[list[Host], dict[str, bool | str], RemovedHosts] | None = None
        self._groups: tuple[Any, ...] | None = None
        self._outcomes: dict[Any, tuple[Any, dict[str, Any], list[tuple[int, Any]], dict[str, int], Any]] = {}

    def views(self, hosts: list[Host], failed: Mapping[str, tuple[str, bool]], resuming: frozenset[str],
              certain: Mapping[str, Any], maybe: Mapping[str, Any],
              batches: list[list[str]]) -> tuple[list[Host], dict[str, bool | str], RemovedHosts]:
        """(the hosts that run the task, the failed ones out of the play's lists at it (certainly:
        True, else why they may be), the hosts removed from the lists): ``failed`` less the
        ``resuming`` ones (an always or rescue section), ``certain``/``maybe``: the ended ones."""
        rest = (resuming, frozenset(certain), frozenset(maybe), id(batches))
        if self._views is not None and self._state is not None and self._state[1:] == rest and \
                _same(self._state[0], failed):  # compared where they are, copied only when they changed
            return self._views
        state = (_kept(failed), *rest)
        running = [host for host in hosts if (host.name not in failed or host.name in resuming)
                   and host.name not in certain] if failed or certain else hosts
        out = {h: why[1] or why[0] for h, why in failed.items() if h not in resuming}
        removed = RemovedHosts(frozenset(h for h, why in failed.items() if why[1]) | frozenset(certain),
                               frozenset(h for h, why in failed.items() if not why[1]) | frozenset(maybe),
                               tuple(map(tuple, batches)))
        self._state, self._views = state, (running, out, removed)
        return self._views

    def groups(self, names: list[str], failed: Mapping[str, tuple[str, bool]], resuming: frozenset[str],
               before: set[str]) -> tuple[dict[tuple[tuple[str, bool], bool], list[str]], list[str]]:
        """The failed hosts of ``names`` not ``resuming`` grouped by their failure and whether they
        failed before the play (``before``): each group's hosts are stopped alike at every task; and
        the others of ``names``, in their order. (A host that failed in an earlier play and is not
        among the play's hosts has no outcome in it: ansible never lists it there.)"""
        if self._groups is not None and self._groups[0][1] == resuming and self._groups[0][2] is names and \
                _same(self._groups[0][0], failed):
            return self._groups[1]  # type: ignore[no-any-return]
        state = (_kept(failed), resuming, names)
        found: dict[tuple[tuple[str, bool], bool], list[str]] = {}
        members = set(names)
        for host, why in failed.items():
            if host not in resuming and host in members:
                found.setdefault((why, host in before), []).append(host)
        others = [host for host in names if host not in failed or host in resuming]
        self._groups = (state, (found, others))
        return found, others

    def outcomes(self, names: list[str], groups: dict[tuple[tuple[str, bool], bool], list[str]],
                 stopped: Callable[[tuple[str, bool], bool], Any], key: Any,
                 others: list[str] | None = None) -> dict[str, Any]:
        """A task's outcomes by host, in the order of ``names``: each host of ``groups`` (:meth:`groups`)
        as ``stopped`` gives its group (a failure and whether before the play), the others None. A
        copy of one made once while the groups and ``key`` (what ``stopped`` reads) stay the same:
        where only the few hosts of ``others`` are written into it after (:meth:`objects`), one
        that takes its objects once found without a copy (KnownOutcomes)."""
        kept = self._outcomes.get(key)
        if kept is None or kept[0] is not groups:
            made: dict[str, Any] = dict.fromkeys(names)
            objects = []
            for (why, earlier), members in groups.items():
                made.update(dict.fromkeys(members, outcome := stopped(why, earlier)))
                objects.append(outcome)
            # each group's object with the place of its first host
            index = dict(zip(made, range(len(made)), strict=True))
            firsts = [(min(map(index.__getitem__, members)), outcome)
                      for members, outcome in zip(groups.values(), objects, strict=True)]
            ordered = [sorted(members, key=index.__getitem__) for members in groups.values()]  # as ``made`` holds them
            kept = self._outcomes[key] = (groups, made, firsts, index, ordered)
        return KnownOutcomes.unfound(kept[1]) if others is not None and _few(others, kept[1]) else dict(kept[1])

    def objects(self, key: Any, groups: Any, found: Mapping[str, Any], others: list[str]) -> list[Any] | None:
        """The objects of ``found``, each once in the order of its first host (engine.flow.outcomes.distinct),
        where ``found`` is a copy :meth:`outcomes` gave for ``key`` and ``groups`` in which only the hosts
        of ``others`` were written: each group's object at its first host, and the others' own, without
        a pass over the stopped hosts. None where the others are most of the hosts (a pass is as cheap)."""
        kept = self._outcomes.get(key)
        if kept is None or kept[0] is not groups or not _few(others, found):
            return None
        _groups, _made, firsts, index, _ordered = kept
        placed = sorted([*firsts, *zip(map(index.__getitem__, others), map(found.__getitem__, others), strict=True)],
                        key=itemgetter(0))
        return list({id(outcome): outcome for _at, outcome in placed}.values())


    def members(self, key: Any, groups: Any, objects: list[Any], found: Mapping[str, Any],
                others: list[str]) -> list[list[str]] | None:
        """The hosts of each of ``objects`` (:meth:`objects`) in the order ``found`` holds them, where
        ``found`` is a copy :meth:`outcomes` gave for ``key`` and ``groups`` in which only the hosts of
        ``others`` were written: each group's own, and the others' by their object. None where an
        object is that of two groups, or of a group and another host (their hosts would be merged)."""
        kept = self._outcomes.get(key)
        if kept is None or kept[0] is not groups or not _few(others, found):
            return None
        by_object = {id(outcome): hosts for (_at, outcome), hosts in zip(kept[2], kept[4], strict=True)}
        if len(by_object) != len(kept[4]):
            return None
        grouped = set(by_object)
        for host in others:  # (in the order of ``found``: that of the play's hosts)
            outcome = found[host]
            if id(outcome) in grouped:
                return None
            by_object.setdefault(id(outcome), []).append(host)
        return [by_object[id(outcome)] for outcome in objects]


def _few(others: list[str], found: Mapping[str, Any]) -> bool:
    """Whether the hosts of ``others`` are few among those of ``found``: a pass over the rest saved."""
    return len(others) * 4 <= len(found)

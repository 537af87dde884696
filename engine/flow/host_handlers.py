"""Which task notified which handler on which host, flush point by flush point, for the plan
(engine.flow.host_plan): what ansible's strategy keeps as ``handler_notifications`` and
``notified_hosts``, with the handlers an ``include_role`` adds to the play's as the run includes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.flow import notify
from engine.flow.host_outcome import DEPENDS, RUNS, SKIPPED, HostOutcome
from engine.flow.outcomes import alike, combinations
from engine.templating.load_time import is_template

if TYPE_CHECKING:
    from engine.loading.model import Play, Task


@dataclass
class PlannedTask:
    """A task of the plan (``engine.flow.host_plan``) with its outcome on each host."""

    task: Task
    name: str
    """As ansible prints it (the role's name before a role's task)."""
    path: str | None
    line: int | None
    handler: bool
    hosts: dict[str, HostOutcome] = field(default_factory=dict)
    repeats: bool = False
    """A handler listed once at a flush point that a looping include loads: the run flushes it
    once per item."""
    changes: dict[str, bool | None] = field(default_factory=dict)
    """For a task that notifies: on each host where it runs or may, whether it reports a change
    (None: the run knows; engine.flow.host_changes)."""


class Notifications:
    """Which task notified which handler on which host, flush point by flush point
    (``handler_notifications`` and ``notified_hosts`` as the strategy keeps them).

    A flush point runs, on each host where it runs, the handlers that the notifications since
    the one before reach, each handler once (every handler listening to a topic). An explicit
    ``flush_handlers`` that does not run on a host (a condition, a role that already ran) leaves
    that host's notifications for the next flush point. The handlers are the play's, and those an
    ``include_role`` adds when the run includes it (:meth:`loads`)."""

    def __init__(self, play: Play, includes: dict[int, PlannedTask],
                 render: Callable[[str, Task], tuple[str, ...] | None] | None = None) -> None:
        self.play, self.includes = play, includes
        self.render = render
        """The names a templated ``notify`` of a task gives on a host (engine.flow.templated_notify)."""
        self._rendered: dict[tuple[str, int], tuple[str, ...] | None] = {}
        self._reaches: dict[tuple[Any, ...], bool | None] = {}
        """Whether the names a templated ``notify`` gives reach a handler, per names, handler and
        number of the play's handlers so far (hosts mostly render the same names: asked per host)."""
        self.repeats = False  # the last flush point is in a looping include
        self.loop_notifies: set[str] = set()
        self.handlers: list[Task] = []
        """The play's handlers as the run knows them at this point (engine.flow.notify keeps it)."""
        self.notified: dict[str, list[PlannedTask]] = {}  # handler name or topic -> notifying tasks since
        self.flushing: dict[str, list[PlannedTask]] = {}  # what the last flush point runs handlers for
        self.flush: tuple[PlannedTask, dict[str, HostOutcome]] | None = None
        """The last flush point when it is explicit, with its hosts where it does not run."""
        self.elsewhere: list[str] = []
        """Notifications of tasks outside engine.flow.notify's walk (:meth:`note`)."""
        self.flushes_unlisted = False
        self.uncertain: dict[int, str] = {}
        """Handlers whose being the one a notification reaches only the run knows, and why."""
        self._reached: dict[tuple[Any, ...], tuple[Task, Any, list[PlannedTask], bool]] = {}
        """By handler and what the notifications are: its notifiers and whether a looping include's
        notification reaches it, the same for each host (asked per host)."""
        self._columns: tuple[Any, dict[int, tuple[PlannedTask, _RenderedOn]]] = (None, {})
        """The flush point's notifications and, per templated notifier, what it renders on each host."""
        self._alike: _AlikeHosts | None = None
        """The flush point's hosts as every handler's answer there reads them (:meth:`_alike_hosts`)."""

    def loads(self, include: Task) -> bool:
        """Whether a run may include ``include`` (planned just before) on some host, so adding
        its handlers to the play's; when only the run knows, its handlers and those they may
        stand in for are marked as depending on it."""
        planned = self.includes.get(id(include))
        kinds = {outcome.outcome for outcome in planned.hosts.values()} if planned is not None else set()
        if RUNS in kinds or DEPENDS not in kinds:
            return RUNS in kinds
        added = [h for block in include.child_handlers for h in block.tasks() if not h.implicit]
        keys = {key for handler in added for key in (*notify.handler_names(handler), *notify.handler_topics(handler))}
        why = f"whether the include_role at {where(planned)} (which adds handlers) runs is known only at run time"
        for handler in [*added, *self.handlers]:
            if keys & {*notify.handler_names(handler), *notify.handler_topics(handler)}:
                self.uncertain[id(handler)] = why
        return True

    def flushed(self, task: Task, planned: PlannedTask | None) -> None:
        """A flush point reached (``planned`` None: an implicit one, which runs everywhere)."""
        if not notify.is_flush(task):
            return
        from engine.flow.host_reading import include_loop_names
        from engine.flow.on_the_way import includers_of

        self.flushing, self.notified = self.notified, {}
        self.repeats = planned is not None and bool(include_loop_names(self.play, task)) or self.flushes_unlisted
        self.flushes_unlisted = False
        # what the looping includes around the flush point notify: an item after the first
        # flushes what the items before notified after it
        self.loop_notifies = notify.looping_notifications(includers_of(self.play, task), task) \
            if self.repeats else set()
        waiting = {host: o for host, o in planned.hosts.items() if o.outcome != RUNS} if planned is not None else {}
        self.flush = (planned, waiting) if planned is not None and waiting else None
        if waiting:  # those hosts' notifications wait for the next flush point
            for name, notifiers in self.flushing.items():
                self.notified[name] = [_on_hosts(notifier, waiting) for notifier in notifiers]

    def note(self, task: Task, planned: PlannedTask, loaded: bool = False) -> None:
        """What ``task`` notifies where it runs; a handler's reach the handlers after it now.
        A task a run-time include loads is not in engine.flow.notify's walk: its notifications are
        handed to it (:attr:`elsewhere`), and its flush point is not one the handlers are listed
        at: they may run there, and then again at the next one (listed as repeating)."""
        for name in notify.notifications(task):
            if task.handler:
                self.flushing.setdefault(name, []).append(planned)
                if self._runs_later_in_flush(task, name):
                    continue  # it runs in this flush, after the notifying handler: nothing waits for the next
            self.notified.setdefault(name, []).append(planned)
            if loaded:
                self.elsewhere.append(name)
        if loaded and notify.is_flush(task):
            self.flushes_unlisted = True
        elif not loaded:
            self.flushed(task, planned)

    def handler_outcomes(self, handler: Task) -> Callable[[str, HostOutcome], HostOutcome]:
        """For each host of ``handler`` in turn, ``outcome`` (its conditions') of the handler at
        the last flush point on that host. What notified it is found once for all its hosts, and
        hosts whose notifiers have the same outcomes and changes there share one answer."""
        notifiers, looped = self._notifiers(handler)
        templated = [notifier for name, found in self.flushing.items() if is_template(name) for notifier in found]
        answers: dict[tuple[Any, ...], tuple[HostOutcome, HostOutcome]] = {}

        def answer(host: str, outcome: HostOutcome) -> HostOutcome:
            if self.flush is not None and host in self.flush[1]:
                return self._waiting(host)
            # what the answer reads: the notifiers' outcomes and changes on the host, and the outcome
            # given, which it is when heard and not "runs" (kept with the answer: its id stays its own)
            key = (RUNS if outcome.outcome == RUNS else id(outcome),
                   *((_kind(p.hosts.get(host)), p.changes.get(host)) for p in (*notifiers, *templated)),
                   *(self._reach(handler, host, p) for p in templated if _may_notify(host, p)))
            found = answers.get(key)
            if found is None:
                found = answers[key] = (outcome, self._answer(handler, host, outcome, notifiers, looped, templated))
            return found[1]

        return answer

    def handler_answers(self, handler: Task, hosts: list[str], outcomes: Mapping[str, HostOutcome],
                        kept: HostOutcome) -> tuple[dict[str, HostOutcome], bool]:
        """:meth:`handler_outcomes` of each of ``hosts`` (in their order) with its outcome of
        ``outcomes``, a host whose outcome is ``kept`` keeping it; and whether any host was asked.
        What an answer reads of a host (its outcome, whether its notifications wait, the notifiers'
        outcomes and changes on it) is read for all the hosts without a step of Python per host,
        and each combination is asked once, of one of its hosts (a templated ``notify`` told apart by
        what it renders on each host)."""
        answer = self.handler_outcomes(handler)
        notifiers, _looped = self._notifiers(handler)
        alike = self._alike_hosts(hosts)
        groups = combinations(hosts, [outcomes.__getitem__,
                                      *(column for p in notifiers for column in (p.hosts.get, p.changes.get))],
                              start=alike.groups) if alike.groups is not None else None
        if groups:  # a few: the hosts of each found by passes in C, none hashed; the largest given its answer first
            groups.sort(key=len, reverse=True)
            firsts = [outcomes[members[0]] for members in groups]
            found = [outcome if outcome is kept else answer(members[0], outcome)
                     for members, outcome in zip(groups, firsts, strict=True)]
            made = dict.fromkeys(hosts, found[0])
            for members, outcome in zip(groups[1:], found[1:], strict=True):
                made.update(dict.fromkeys(members, outcome))
            return made, any(outcome is not kept for outcome in firsts)
        given = list(map(outcomes.__getitem__, hosts))
        columns = [map(id, given), alike.keys(),
                   *(column for p in notifiers for column in (map(id, map(p.hosts.get, hosts)),
                                                               map(p.changes.get, hosts)))]
        keys = list(zip(*columns, strict=True))  # (the objects whose ids these are are alive: kept here)
        asked = {key: given[at] if given[at] is kept else answer(hosts[at], given[at])
                 for key, at in dict(zip(keys, range(len(hosts)), strict=True)).items()}
        return dict(zip(hosts, map(asked.__getitem__, keys), strict=True)), any(key[0] != id(kept) for key in asked)

    def _alike_hosts(self, hosts: list[str]) -> _AlikeHosts:
        """What the answers of every handler at the flush point read of ``hosts`` (:class:`_AlikeHosts`):
        found once for them while the notifications are the same (each handler there asks them all)."""
        waiting = self.flush[1] if self.flush is not None else _NONE_WAITING
        # a templated notify: what each host's renders, one object per class of hosts rendering alike
        templated = [p for name, found in self.flushing.items() if is_template(name) for p in found]
        kept = self._alike
        if kept is None or kept.flushing is not self.flushing or kept.waiting is not waiting or \
                len(kept.templated) != len(templated) or kept.hosts != hosts or \
                any(a is not b for a, b in zip(kept.templated, templated, strict=True)):
            columns = [waiting.get, *(column for p in templated
                                      for column in (p.hosts.get, p.changes.get, self._rendered_column(p)))]
            kept = self._alike = _AlikeHosts(self.flushing, waiting, templated, list(hosts), columns)
        return kept

    def _rendered_column(self, planned: PlannedTask) -> Callable[[str], tuple[str, ...] | None]:
        """For a host, the names ``planned``'s templated ``notify`` gives there (the object kept for
        them: hosts of one class of its rendering are given the same), None where it does not notify
        or only the run knows them: kept for the flush point (each handler there asks every host)."""
        if self._columns[0] is not self.flushing:
            self._columns = (self.flushing, {})
        kept = self._columns[1].get(id(planned))
        if kept is None:
            kept = self._columns[1][id(planned)] = (planned, _RenderedOn(self, planned))
        return kept[1].__getitem__

    def _waiting(self, host: str) -> HostOutcome:
        assert self.flush is not None
        flush, waiting = self.flush[0], self.flush[1][host]
        if waiting.outcome == SKIPPED:
            return alike(SKIPPED, f"the flush_handlers at {where(flush)} does not run on this host "
                                  "(its notifications wait for the next flush point)", True)
        return alike(DEPENDS, f"whether the flush_handlers at {where(flush)} runs on this host "
                              "is known only at run time")

    def _reach(self, handler: Task, host: str, planned: PlannedTask) -> bool | None:
        """Whether ``planned``'s templated ``notify`` reaches ``handler`` on ``host`` (None: the run knows)."""
        from engine.flow.templated_notify import reaches

        names = self._names_on(host, planned)
        if names is None:
            return None
        reach_key = (names, id(handler), len(self.handlers))
        if reach_key not in self._reaches:
            self._reaches[reach_key] = reaches(self.handlers, list(names), handler)
        return self._reaches[reach_key]

    def _names_on(self, host: str, planned: PlannedTask) -> tuple[str, ...] | None:
        """The names ``planned``'s templated ``notify`` gives on ``host`` (None: the run knows)."""
        key = (host, id(planned.task))
        if key not in self._rendered:
            self._rendered[key] = self.render(host, planned.task) if self.render is not None else None
        return self._rendered[key]

    def _answer(self, handler: Task, host: str, outcome: HostOutcome, notifiers: list[PlannedTask], looped: bool,
                templated_notifiers: list[PlannedTask]) -> HostOutcome:
        reached = {id(p): self._reach(handler, host, p) for p in templated_notifiers if _may_notify(host, p)}
        notifiers = [*notifiers, *(p for p in templated_notifiers if reached.get(id(p)) is True)]
        templated_notifiers = [p for p in templated_notifiers if id(p) in reached and reached[id(p)] is None]
        heard = _heard_on(host, notifiers)
        if not heard and looped:
            outcome = HostOutcome(DEPENDS, "its flush point is in a looping include, which flushes once per item: "
                                           "what an earlier item notifies runs then")
        elif not heard and (templated := _heard_on(host, templated_notifiers)):
            outcome = HostOutcome(DEPENDS, f"runs if the templated notify of {templated} names it and it reports "
                                           "a change on this host")
        elif not heard:
            outcome = HostOutcome(SKIPPED, _not_notified(notifiers, host), True)
        elif outcome.outcome == RUNS and (changing := _heard_on(host, notifiers, certain=True)):
            outcome = HostOutcome(RUNS, f"notified: {changing} reports a change on this host")
        elif outcome.outcome == RUNS:
            outcome = HostOutcome(DEPENDS, f"runs if {heard} reports a change on this host")
        if id(handler) in self.uncertain and outcome.outcome != DEPENDS:
            return HostOutcome(DEPENDS, self.uncertain[id(handler)])
        return outcome


    def _notifiers(self, handler: Task) -> tuple[list[PlannedTask], bool]:
        """The tasks whose notifications of the last flush point reach ``handler``, and whether
        one of a looping include does: kept while the handlers and notifications stay the same."""
        key = (id(handler), id(self.flushing), len(self.handlers), tuple(sorted(self.loop_notifies)),
               tuple((name, len(found)) for name, found in self.flushing.items()))
        kept = self._reached.get(key)
        if kept is None or kept[0] is not handler or kept[1] is not self.flushing:
            notifiers = [notifier for name, found in self.flushing.items()
                         if handler in notify.search_handlers(self.handlers, name) for notifier in found]
            looped = any(handler in notify.search_handlers(self.handlers, name) for name in self.loop_notifies)
            kept = self._reached[key] = (handler, self.flushing, notifiers, looped)
        return kept[2], kept[3]

    def _runs_later_in_flush(self, handler: Task, name: str) -> bool:
        """Whether every handler ``name`` reaches comes after ``handler`` in the play's handlers: a
        flush runs them in that order, so one a handler notifies runs in the same flush and its
        notification is spent there (one before it, or itself, runs at the next flush point)."""
        places = {id(each): at for at, each in enumerate(self.handlers)}
        reached = notify.search_handlers(self.handlers, name)
        return id(handler) in places and bool(reached) and \
            all(places.get(id(each), -1) > places[id(handler)] for each in reached)


def _on_hosts(planned: PlannedTask, hosts: Mapping[str, Any]) -> PlannedTask:
    """``planned`` with only its outcomes on ``hosts``."""
    return replace(planned, hosts={host: outcome for host, outcome in planned.hosts.items() if host in hosts})


def where(planned: PlannedTask) -> str:
    return f"{os.path.relpath(planned.path)}:{planned.line}" if planned.path else "?"


def _kind(outcome: HostOutcome | None) -> str:
    return outcome.outcome if outcome is not None else SKIPPED  # (as _heard_on reads a host without one)


def _heard_on(host: str, notifiers: list[PlannedTask], certain: bool = False) -> str:
    """The notifying tasks that run (or may) on ``host`` and may report a change there, as words
    (``certain``: those that run and report one); empty when none does."""
    if certain:
        names = [repr(p.name) for p in notifiers
                 if p.hosts.get(host, HostOutcome(SKIPPED)).outcome == RUNS and p.changes.get(host) is True]
    else:
        names = [repr(p.name) for p in notifiers if _may_notify(host, p)]
    return " or ".join(names)


_NONE_WAITING: Mapping[str, HostOutcome] = MappingProxyType({})
"""No host's notifications wait (one object: what is found for the hosts is kept by its identity)."""


class _AlikeHosts:
    """A flush point's hosts as every handler's answer reads them whatever the handler: whether their
    notifications wait, and each templated notifier's outcome, change and rendering on them. Grouped
    by those objects (:attr:`groups`, None past a few groups), or each host's key of their ids
    (:meth:`keys`, found when first asked)."""

    __slots__ = ("_keys", "columns", "flushing", "groups", "hosts", "templated", "waiting")

    def __init__(self, flushing: dict[str, list[PlannedTask]], waiting: Mapping[str, HostOutcome],
                 templated: list[PlannedTask], hosts: list[str], columns: list[Callable[[str], Any]]) -> None:
        self.flushing, self.waiting, self.templated, self.hosts, self.columns = (flushing, waiting, templated,
                                                                                  hosts, columns)
        self.groups = combinations(hosts, columns)
        self._keys: list[tuple[int, ...]] | None = None

    def keys(self) -> Iterable[tuple[int, ...]]:
        """Each host's key: the ids of its objects (alive: the columns keep them)."""
        if self._keys is None:
            self._keys = list(zip(*(map(id, map(column, self.hosts)) for column in self.columns), strict=True))
        return self._keys


class _RenderedOn(dict[str, tuple[str, ...] | None]):
    """Per host, what a templated notifier's ``notify`` gives there (:meth:`Notifications._rendered_column`),
    found when first asked."""

    __slots__ = ("notifications", "planned")

    def __init__(self, notifications: Notifications, planned: PlannedTask) -> None:
        super().__init__()
        self.notifications, self.planned = notifications, planned

    def __missing__(self, host: str) -> tuple[str, ...] | None:
        found = self[host] = self.notifications._names_on(host, self.planned) \
            if _may_notify(host, self.planned) else None  # noqa: SLF001
        return found


def _may_notify(host: str, notifier: PlannedTask) -> bool:
    """Whether ``notifier`` runs (or may) on ``host`` and may report a change there."""
    outcome = notifier.hosts.get(host)
    return outcome is not None and outcome.outcome in (RUNS, DEPENDS) and notifier.changes.get(host) is not False


def _not_notified(notifiers: list[PlannedTask], host: str) -> str:
    if not notifiers:
        return "no task notifies it"
    running = [p for p in notifiers if p.hosts.get(host, HostOutcome(SKIPPED)).outcome in (RUNS, DEPENDS)]
    if running:
        return "no task that notifies it reports a change on this host: " + ", ".join(repr(p.name) for p in running)
    return "no task that notifies it runs on this host: " + ", ".join(repr(p.name) for p in notifiers)

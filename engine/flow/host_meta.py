"""Meta actions in the plan (engine.flow.host_plan): which hosts ``end_host``,
``end_batch``, ``end_play`` and ``end_role`` end (certainly or maybe), those decided once per
batch on its first host still running, ``end_host`` evaluated host after host,
``clear_host_errors``; and the conditions a task checks itself (a meta action that supports
none ignores them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.host_handlers import PlannedTask, where
from engine.flow.host_outcome import DEPENDS, RUNS, SKIPPED, HostOutcome
from engine.flow.removed_hosts import PLAY_LISTS
from engine.flow.run_settings import play_strategy
from engine.loading.keywords import META

if TYPE_CHECKING:
    from engine.loading.model import Play, Task


def task_conditions(task: Task) -> list[tuple[Any, str]]:
    """The conditions ``task`` itself checks, its own and those it inherits; a meta action that
    supports none (``_cond_not_supported_warn``) runs whatever they say. An include's own
    condition was checked once, when the include ran (with what was set then): its outcome
    decides whether the task is loaded at all (:func:`_through_includes`)."""
    from engine.flow.on_the_way import conditions_on_the_way

    if task.action in META and isinstance(task.args, Mapping) and task.args.get("_raw_params") in _NO_CONDITION:
        return []
    return conditions_on_the_way(task, [])


_NO_CONDITION = frozenset({"noop", "refresh_inventory", "reset_connection"})


def clear_host_errors(task: Task, planned: PlannedTask, failed: dict[str, tuple[str, bool]],
                       cleared: set[str]) -> None:
    """``meta: clear_host_errors`` (decided on the first host still running) clears the failures
    so far: the failed hosts stay out of this play (their iteration is over) but are back in the
    later plays (``cleared``, for the end of the play). Where it may or may not run, their
    later outcomes depend."""
    action = task.args.get("_raw_params") if task.action in META and isinstance(task.args, Mapping) else None
    if action != "clear_host_errors":
        return
    first = next((o for host, o in planned.hosts.items() if host not in failed), None)
    if first is not None and first.outcome == RUNS:
        cleared.update(failed)
    elif any(o.outcome in (RUNS, DEPENDS) for o in planned.hosts.values()):
        for host, (name, _certain) in list(failed.items()):
            failed[host] = (f"{name}, then meta clear_host_errors at {where(planned)}", False)


class Ended:
    """The hosts a ``meta`` action has ended the play for (``end_host``, ``end_play``; also
    ``end_batch`` and ``end_role``, which end less, so their hosts' later outcomes depend): the
    play's later tasks are left out there; where whether it ran only the run knows, they depend."""

    def __init__(self) -> None:
        self.certain: dict[str, HostOutcome] = {}
        self.maybe: dict[str, HostOutcome] = {}
        self.stopped: tuple[int, bool, str] | None = None
        """Where an ``end_play`` (certainly or maybe) ended the play: (its batch, certain, the meta)."""

    def later_batches(self, tasks: list[PlannedTask], batches: list[list[str]]) -> None:
        """An ``end_play`` ends the play, not only its batch: the later batches do not run at all
        (the tasks before it included); where it may, their outcomes depend on it."""
        if self.stopped is None:
            return
        index, certain, meta = self.stopped
        later = {host for batch in batches[index + 1:] for host in batch}
        gone = HostOutcome(SKIPPED, f"not run: {meta} ended the play in an earlier batch", True) if certain else \
            HostOutcome(DEPENDS, f"runs only if {meta} did not end the play in an earlier batch")
        for task in tasks:
            for host in later & set(task.hosts):
                if certain or task.hosts[host].outcome != SKIPPED:
                    task.hosts[host] = gone

    def reached(self, task: Task, planned: PlannedTask, batches: list[list[str]]) -> None:
        action = task.args.get("_raw_params") if task.action in META and isinstance(task.args, Mapping) else None
        if action not in _ENDING:
            return
        meta = f"the meta {action} at {where(planned)}"
        ending: dict[str, bool] = {}  # host -> ended certainly (else maybe)
        if action in _ONCE_PER_BATCH:  # decided once per batch (_once_per_batch): for the whole batch
            later: bool | None = False  # end_play also ends the batches after the one it ended
            for batch in batches:
                kinds = {planned.hosts[host].outcome for host in batch if host in planned.hosts}
                certain = kinds == {RUNS}
                if later is not False or kinds & {RUNS, DEPENDS}:
                    ending.update(dict.fromkeys(batch, later is True or certain))
                if action == "end_play" and later is not True:
                    later = True if certain else None if kinds & {RUNS, DEPENDS} else later
                    if later is not False and self.stopped is None:
                        self.stopped = (batches.index(batch), later is True, meta)
        else:
            ending = {host: outcome.outcome == RUNS for host, outcome in planned.hosts.items()
                      if outcome.outcome in (RUNS, DEPENDS)}
        # one object for every host it ended (or may have): the handlers' answers group hosts by identity
        ended = HostOutcome(SKIPPED, f"{meta} ended the play for this host", True)
        maybe = HostOutcome(DEPENDS, f"runs only if {meta} did not end it on this host")
        for host, certain in ending.items():
            if host in self.certain:
                continue
            if certain and action != "end_role":
                self.certain[host] = ended
                self.maybe.pop(host, None)
            else:
                self.maybe.setdefault(host, maybe)

    def outcomes(self, task: Task, outcomes: dict[str, HostOutcome], hosts: list[str]) -> dict[str, HostOutcome]:
        """``outcomes`` on the hosts still in the play; a ``run_once`` task whose first host may
        have ended depends everywhere (which host it runs on is the run's to know). A handler
        does not run on a host that ended."""
        if not self.certain and not self.maybe:
            return outcomes
        once = getattr(task.effective("run_once"), "value", None) not in (None, False)
        # in the order of ``hosts``: the task's outcome, over it what may have ended the host, over
        # that what did; a step of Python per ended host, not per host of the play
        order = list(filter((outcomes.keys() | self.certain.keys()).__contains__, hosts))
        found = dict(zip(order, map(outcomes.get, order), strict=True))
        if once and self.maybe:
            found.update(dict.fromkeys(order, next(iter(self.maybe.values()))))
        found.update((host, outcome) for host, outcome in self.maybe.items() if host in found)
        found.update((host, ENDED_HANDLER if task.handler else outcome) for host, outcome in self.certain.items()
                     if host in found)
        return found


def ends_in_turn(task: Task, outcomes: dict[str, HostOutcome], batches: list[list[str]],
                 again: Callable[[str, frozenset[str]], HostOutcome]) -> dict[str, HostOutcome]:
    """``end_host`` is evaluated host after host (the batch's order), each seeing the play's host
    lists without the hosts it ended before: a condition on those lists is evaluated again on
    each host (``again``: its outcome there with those hosts removed too); after a host where it
    may or may not end, on the others it depends."""
    action = task.args.get("_raw_params") if task.action in META and isinstance(task.args, Mapping) else None
    if action != "end_host" or not any(name in str(condition) for condition, _ in task_conditions(task)
                                       for name in PLAY_LISTS):
        return outcomes
    turn = HostOutcome(DEPENDS, "end_host is evaluated host after host, on the play's host lists less the "
                                "hosts it ended before, and it may have ended one before this one")
    found = dict(outcomes)
    for batch in batches:
        ended: set[str] = set()
        unsure = False
        for host in batch:
            outcome = outcomes.get(host)
            if outcome is None or outcome.unreported or outcome.outcome not in (RUNS, SKIPPED, DEPENDS):
                continue
            found[host] = outcome = turn if unsure else again(host, frozenset(ended))
            ended.update([host] if outcome.outcome == RUNS else [])
            unsure = unsure or outcome.outcome == DEPENDS
    return found


def once_per_batch(play: Play, task: Task, outcomes: dict[str, HostOutcome],
                    batches: list[list[str]]) -> dict[str, HostOutcome]:
    """A meta action the linear strategy runs once for its batch (``end_batch``, ``end_play``,
    ``clear_facts``, ``clear_host_errors``): its condition is evaluated on the batch's first host
    still running, and what that decides holds for every host of the batch."""
    action = task.args.get("_raw_params") if task.action in META and isinstance(task.args, Mapping) else None
    if action not in _ONCE_PER_BATCH or play_strategy(play) != "linear":
        return outcomes
    found = dict(outcomes)
    for batch in batches:
        running = [host for host in batch if host in outcomes
                   and not (outcomes[host].outcome == SKIPPED and outcomes[host].unreported)]
        if not running:
            continue
        decided = outcomes[running[0]]
        given = HostOutcome(decided.outcome, f"decided on {running[0]}, the first host of its batch: "
                            f"{decided.reason}", decided.outcome == SKIPPED)
        found.update(dict.fromkeys(running[1:], given))
    return found


_ONCE_PER_BATCH = frozenset({"end_batch", "end_play", "clear_facts", "clear_host_errors"})
# an ended host's iteration is complete: no flush point reaches it, force_handlers or not
ENDED_HANDLER = HostOutcome(SKIPPED, "a meta action ended the play for this host: its handlers do not run", True)
_ENDING = frozenset({"end_host", "end_play", "end_batch", "end_role"})

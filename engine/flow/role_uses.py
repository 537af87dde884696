"""Whether an equal use of a role already ran on a host, as the plan follows it play by play.

ansible leaves out a role's second use in a play where an equal one has run on the host
(``Role.has_run``, unless ``allow_duplicates``); the plan says so, and says "depends" where
whether the first use ran any task is the run's to know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.outcomes import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome, distinct, hosts_among
from engine.loading.keywords import META

if TYPE_CHECKING:
    from engine.loading.model import Task


class RoleUses:
    """``Role.has_run`` in three values (engine.flow.role_runs): an equal use of a role that has run on
    a host is left out there; when whether it ran depends on the run, so does the later use."""

    def __init__(self) -> None:
        from engine.flow.role_runs import RoleRuns

        self.runs = RoleRuns()
        self.maybe_had: dict[tuple[Any, ...], set[str]] = {}
        self.maybe_completed: dict[tuple[Any, ...], set[str]] = {}

    def outcomes(self, task: Task, outcomes: dict[str, HostOutcome]) -> dict[str, HostOutcome]:
        """``outcomes`` with the role's verdict where it has one."""
        role = task.role
        assert role is not None
        found = dict(outcomes)
        if task.handler or role.allow_duplicates:  # never left out (RoleRuns.skips)
            return found
        key = self.runs.key(role)
        ran, maybe = self.runs.completed.get(key, set()), self.maybe_completed.get(key, set())
        for host in ran.intersection(found) if ran else ():  # (the hosts' places kept: values replaced)
            found[host] = ROLE_RAN
        for host in maybe.difference(ran).intersection(found) if maybe else ():
            found[host] = ROLE_MAYBE_RAN
        return found

    def note(self, task: Task, outcomes: Mapping[str, HostOutcome], objects: list[HostOutcome] | None = None) -> None:
        """The task's outcomes, once the includes around it and the ended hosts decided them, as
        the role's runs (a task its skipped include never loads runs nothing of the role).
        ``objects``: those of ``outcomes`` (:func:`distinct`) where the caller has them."""
        if task.role is None or task.action in META:  # the strategy runs a meta task itself: no result
            return
        key = self.runs.key(task.role)
        if objects is None:  # each object the hosts share asked once
            objects = list(distinct(outcomes))
        ran = [outcome for outcome in objects if outcome.outcome in (RUNS, FAILS)]
        if ran:  # (RoleRuns.task_done, host by host)
            self.runs.had_task_run.setdefault(key, set()).update(hosts_among(outcomes, objects, ran))
        maybe = [outcome for outcome in objects if outcome.outcome == DEPENDS]
        if maybe:
            self.maybe_had.setdefault(key, set()).update(hosts_among(outcomes, objects, maybe))

    def passed(self, task: Task, hosts: list[str]) -> None:
        """An implicit task reached: a role's ``role_complete`` marks it run where a task of it ran."""
        if task.role is None or task.action not in META or not isinstance(task.args, dict) or \
                task.args.get("_raw_params") != "role_complete":
            return
        key = self.runs.key(task.role)
        for host in hosts:
            self.runs.role_complete(task, host)
            if host in self.maybe_had.get(key, ()) and host not in self.runs.completed.get(key, ()):
                self.maybe_completed.setdefault(key, set()).add(host)


ROLE_RAN = HostOutcome(SKIPPED, "its role already ran on this host (an equal use earlier in the play; "
                                 "allow_duplicates is false)", True)


ROLE_MAYBE_RAN = HostOutcome(DEPENDS, "runs only if the equal use of its role earlier in the play ran no task "
                                       "on this host")


ROLE_REASONS = frozenset({ROLE_RAN.reason, ROLE_MAYBE_RAN.reason})

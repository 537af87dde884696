"""A task's failure on a host inside blocks, for the plan (engine.flow.host_plan): a
certain failure in a block with a ``rescue`` runs the rescue and the host goes on; without one,
the ``always`` sections around it run and the host is failed (engine.flow.block_failures). A
rescue section runs on a host only where a task of its block fails: not at all where none can,
``depends`` where one may: a task whose failure is not certain either way, and a module that
runs there, which may fail for a reason of its own (engine.variables.task_kinds.fails_on_its_own)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.block_failures import NORMAL, NOT_REACHED, BlockFailures, failure_spread, section_tasks
from engine.flow.host_outcome import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome
from engine.flow.outcomes import distinct, hosts_among, hosts_of
from engine.flow.run_settings import ignores_errors

if TYPE_CHECKING:
    from engine.loading.model import Play, Task

# a rescue section runs only when a task of its block fails, which the plan cannot tell
MODULE_RESCUE = "in a rescue section: runs only if a task of its block fails"
_RESCUE = HostOutcome(DEPENDS, MODULE_RESCUE)
_NO_RESCUE = HostOutcome(SKIPPED, "in a rescue section: no task of its block fails on this host", True)
_NOT_REACHED = HostOutcome(SKIPPED, "not reached: a task before it in its block failed on this host", True)


class PlayBlocks:
    """The play's blocks as the failures certain before the run move its hosts through them."""

    def __init__(self, play: Play) -> None:
        self.play = play
        self.failures = BlockFailures(play.compile())
        self.placement: dict[str, str | None] = {}
        self.followed: set[str] = set()
        """The hosts whose failure at the task reached the blocks follow."""
        self.resuming: frozenset[str] = frozenset()
        """The failed hosts that run the task reached (:meth:`resumes`)."""
        self.going_on: set[str] = set()
        """The failed hosts a rescue took over whose failure is an include's file not loading: they
        run the rest of the play, out of its host lists and failed for the later plays."""

    def reach(self, task: Task) -> None:
        """``task`` is next: where each host with a failure followed is for it."""
        placement: dict[str, str | None] = {}
        resuming: set[str] = set()
        for found, hosts in list(self.failures.alike.values()):  # the hosts that failed alike: one answer
            placed, past = self.failures.placement(found, task)
            if past:
                for host in list(hosts):
                    self.failures.forget(host)  # past the block that rescued it: the host goes on
                continue
            placement.update(dict.fromkeys(hosts, placed))
            if placed == NORMAL:
                resuming |= hosts
        self.placement, self.resuming = placement, frozenset(resuming | self.going_on)
        self.followed = set()

    def resumes(self, host: str) -> bool:
        """Whether a failed host runs the task reached (an ``always`` section after its failure)."""
        return host in self.resuming

    def outcomes(self, task: Task, outcomes: dict[str, HostOutcome]) -> dict[str, HostOutcome]:
        """``outcomes`` where the blocks around ``task`` let it run."""
        rescuing = id(task) in section_tasks(self.play)[0]
        if not rescuing and not self.placement:
            return outcomes
        found = {}
        for host, outcome in outcomes.items():
            if self.placement.get(host) == NOT_REACHED:
                outcome = _NOT_REACHED
            elif rescuing and outcome.outcome != SKIPPED:
                runs = self.failures.rescue_runs(host, task) if self.failures.placed(task) else None
                outcome = outcome if runs else _RESCUE if runs is None else _NO_RESCUE
            found[host] = outcome
        return found

    def failure(self, play: Play, task: Task, host: str, name: str, load_failure: bool,
                template: Callable[[Any], Any] | None = None) -> tuple[str, bool] | None:
        """What a failure of ``task`` on ``host`` means for the host's later tasks: None when it
        goes on (errors ignored, a rescue taking over), else (the failed task, certain that it is
        out of the run). ``template``: a templated ``ignore_errors`` as the host's values give it."""
        if load_failure:  # ignore_errors does not hold; the strategy marks the host failed (its
            # rescue runs, and the host stays failed: out of the play's lists, not in the later plays)
            rescued = self.failures.fail(host, task)
            if rescued is None:
                return name, id(task) not in section_tasks(play)[1]
            self.followed.add(host)
            if rescued:
                self.going_on.add(host)
            return name, True
        ignored = ignores_errors(task, template)
        if ignored is True:
            return None  # reported failed, and the host goes on
        # a rescued failure is not counted by max_fail_percentage (the strategy counts the hosts
        # whose failure left them nothing to run): the rescue is followed with it as without it;
        # any_errors_fatal fails the other hosts of the batch, the failing one goes to its rescue
        if ignored is False and failure_spread(play, task) is not None:
            rescued = self.failures.fail(host, task)
            if rescued is not None:
                self.followed.add(host)
                return None if rescued else (name, True)
        return name, not (ignored is None or id(task) in section_tasks(play)[1])

    def note(self, task: Task, outcomes: Mapping[str, HostOutcome], objects: list[HostOutcome] | None = None) -> None:
        """A task that may fail on a host (one the plan cannot tell, a failure not followed, or a
        module that runs there: its own failure is the run's) may run the rescues around it there.
        ``objects``: those of ``outcomes`` (:func:`distinct`) where the caller has them."""
        from engine.variables.task_kinds import fails_on_its_own

        if not self.failures.in_blocks(task):
            return  # in the ``block`` section of no block with a rescue: no rescue to run
        if objects is None:  # asked once per outcome object the hosts share, not per host
            objects = list(distinct(outcomes))
        # whether a run of it may fail on its own: asked once, where it runs
        own = any(outcome.outcome == RUNS for outcome in objects) and fails_on_its_own(task) and \
            ignores_errors(task) is not True
        chosen = [outcome for outcome in objects if outcome.outcome == DEPENDS or outcome.outcome == RUNS and own]
        failed = [outcome for outcome in objects if outcome.outcome == FAILS]
        failing = hosts_among(outcomes, objects, chosen) if not failed else \
            [host for host in hosts_of(outcomes, chosen + failed)
             if outcomes[host].outcome != FAILS or host not in self.followed]
        self.failures.may_fail(failing, task)  # the task's blocks looked up once, not per host

"""What will run where: for every play, task and host of a launch, whether the task runs there,
is skipped (and why), or depends on values only the run knows (and which). Computed from files;
nothing is executed, no host is contacted.

The outcome of a task on a host is decided from, in order: the host's earlier failure, the tag
selection, ``run_once`` in its batch, the notifications of a handler, the ``when`` conditions on
the way to the task (an include's own included, evaluated in three values by
:mod:`engine.flow.conditions`), and the loop's items. A value the run sets (a registered result,
``set_fact``, a gathered fact, a lookup) is never guessed: an outcome that needs one is
``depends``, naming it. Every task that runs is taken to succeed: the plan follows no module's
failure, only the failures certain before the run (a condition ansible cannot evaluate).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from engine.flow.block_failures import failure_spread, section_tasks
from engine.flow.host_blocks import PlayBlocks
from engine.flow.host_handlers import Notifications, PlannedTask, where
from engine.flow.host_includes import LOAD_FAILURE, Loaded, RuntimeIncludes
from engine.flow.host_meta import (
    ENDED_HANDLER,
    Ended,
    clear_host_errors,
    ends_in_turn,
    once_per_batch,
    task_conditions,
)
from engine.flow.host_outcome import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome, task_outcomes
from engine.flow.include_item_stops import (
    before_the_stop,
    cut_items,
    first_loaded,
    looping_includes,
    may_stop_later_items,
    unsure_stop,
)
from engine.flow.outcomes import KnownOutcomes, combinations, distinct, known
from engine.flow.play_host_order import run_order_unknown
from engine.flow.removed_hosts import RemovedHosts
from engine.flow.role_uses import ROLE_REASONS, RoleUses
from engine.flow.run_settings import force_handlers, ignores_errors, play_strategy, run_once_hosts, runs_once
from engine.flow.stopped_hosts import Failed, StoppedHosts
from engine.flow.tags import TagEvaluator, TagTemplateError, should_run
from engine.flow.templated_notify import notify_renderer
from engine.flow.unrun_hosts import maybe_in_play
from engine.loading.keywords import META
from engine.loading.roles import reported_span
from engine.variables.loop_vars import copy_items, includer_loops
from engine.variables.setters import ends_in_batch

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Play, Task


@dataclass
class PlannedPlay:
    name: str
    hosts: list[str]
    tasks: list[PlannedTask] = field(default_factory=list)
    order: str | None = None
    """Why the hosts' order is the run's own (engine.flow.play_host_order), or None."""
    more_hosts: str | None = None
    """Why the play may also run on hosts no source read names (PlayPlan.more_hosts), or None."""


def plan_hosts(plan: Plan) -> list[PlannedPlay]:
    """The outcome of every task of every play on each of the play's hosts, in run order (the
    config file found and read once for them all)."""
    from engine.config import config_read_once

    with config_read_once():
        return _plan_hosts(plan)


def _plan_hosts(plan: Plan) -> list[PlannedPlay]:
    from engine.variables.inventory_changes import Changes
    from engine.variables.setter_classes import share_setters

    share_setters(plan)  # what the tasks before set, followed class by class
    failed = Failed()  # a host that failed is out of the later plays too
    stopped: list[tuple[str, bool]] = []  # the playbook stopped (certainly or maybe), and why
    plays = []
    changes = Changes(plan)  # what add_host and group_by did to the inventory by each play, as vars reads it
    for play_plan in plan.plays:
        changes.select(play_plan)
        changes.follow(play_plan)  # its own tasks after an add_host or group_by read the changed inventory
        if stopped:  # no later play runs, on any host
            for host in play_plan.hosts:
                failed.setdefault(host.name, stopped[0])
        before = set(failed)
        planned = maybe_in_play(play_plan, _plan_play(plan, play_plan, failed), failed, before)
        stop = _batch_failed(play_plan, planned, failed, before)
        if stop is not None and (not stopped or stop[1] and not stopped[0][1]):
            stopped[:] = [stop]
        plays.append(planned)
        changes.follow(play_plan)  # with the tasks the play's includes loaded, for the plays after
    return plays


def _batch_failed(play_plan: PlayPlan, planned: PlannedPlay, failed: dict[str, tuple[str, bool]],
                  before: set[str]) -> tuple[str, bool] | None:
    """When every host of a batch failed in the play, ansible-playbook stops there: the later
    batches and plays do not run. Their outcomes in ``planned`` are rewritten (left out when the
    failures are certain, depending on them when not); returns why the playbook stops (and
    whether certainly), None when it goes on."""
    from engine.variables.report import known_batches

    batches = known_batches(play_plan.play, planned.hosts)
    for index, batch in enumerate(batches if batches is not None else [planned.hosts]):
        new = [host for host in batch if host in failed and host not in before]
        if not batch or len(new) < len(batch):
            continue
        certain = batches is not None and all(failed[host][1] for host in new)
        why = f"ansible-playbook stopping once every host of the batch ({', '.join(batch)}) failed"
        later = {host for other in (batches or [])[index + 1:] for host in other}
        outcome = HostOutcome(SKIPPED, f"not run: {why}", True) if certain else \
            HostOutcome(DEPENDS, f"not run if every host of the batch ({', '.join(batch)}) fails")
        for task in planned.tasks:
            for host in later & set(task.hosts):
                if task.hosts[host].outcome != SKIPPED or certain:
                    task.hosts[host] = outcome
        for host in later:
            failed.setdefault(host, (why, certain))
        return why, certain
    return None


def _plan_play(plan: Plan, play_plan: PlayPlan, failed: dict[str, tuple[str, bool]]) -> PlannedPlay:
    from engine.variables.report import play_batches
    from engine.variables.sources import tasks_with_includers

    play = play_plan.play
    hosts = [host.name for host in play_plan.hosts]
    batches = play_batches(play, hosts)
    before = set(failed)
    result = PlannedPlay(str(play.name or ", ".join(map(str, play.hosts))), hosts,
                         order=run_order_unknown(plan, play_plan) if len(hosts) > 1 else None,
                         more_hosts=play_plan.more_hosts)
    selected = play_plan.selected_ids()
    play_plan.planning_runs = {}  # type: ignore[attr-defined] - the handlers' runs planned so far (_note_runs)
    signatures: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    roles = RoleUses()
    stopping: dict[str, tuple[str, bool]] = {}
    includes: dict[int, PlannedTask] = {}  # each include where it was last planned
    cleared: set[str] = set()  # failed hosts a clear_host_errors puts back in the later plays
    forced: list[bool | None] | None = None  # the play's force_handlers, once asked
    heard = Notifications(play, includes, notify_renderer(plan, play_plan))
    ended = Ended()
    blocks = PlayBlocks(play)
    stopped = StoppedHosts()
    runtime = RuntimeIncludes(plan, play_plan)
    queue: deque[Loaded] = deque()  # what a run-time include just planned loads, planned next
    # the hosts out of the play's lists at each task, for the values read after the plan (while it
    # plans, its own readings take them out: engine.flow.host_outcome), and, as it goes, for what
    # the tasks it has planned set (a loop over ansible_play_hosts after an end_host)
    removed_at: dict[int, RemovedHosts] = {}
    play_plan.removed_at = removed_at  # type: ignore[attr-defined]
    # the hosts out at each task planned so far: read by the plan's own readings of hostvars as it goes
    out_at: dict[int, list[Mapping[str, bool | str]]] = {}
    play_plan.out_at = out_at  # type: ignore[attr-defined] - read by engine.variables.failed_hosts
    looped: list[tuple[PlannedTask, int]] = []  # each task a looping include loads, and that include's id
    # a host a task of a looping include failed at an item: that include's id, whether the include
    # loaded the file at each of its items before that one (None: where it stops is the run's),
    # and the failing task
    item_stops: dict[str, tuple[int, tuple[bool, ...] | None, PlannedTask]] = {}

    def in_order() -> Iterator[tuple[Task, list[Task], Loaded | None]]:
        for task, includers in tasks_with_includers(play, handlers=True, loaded=heard.loads,
                                                    play_handlers=heard.handlers, notified=heard.elsewhere):
            yield task, includers, None
            while queue:
                item = queue.popleft()
                yield item.task, item.includers, item

    for task, includers, item in in_order():
        if task.implicit:
            roles.passed(task, [host for host in hosts if host not in failed])
            if item is None:
                heard.flushed(task, None)
            continue
        span = reported_span(task, play)
        planned = PlannedTask(task, task.display_name(), span.file if span else None,
                              span.line + 1 if span else None, task.handler)
        if task.children or runtime.follows(task):
            includes[id(task)] = planned
        loop_include = next((include for include in includers if includer_loops(include)), None)
        if loop_include is not None:
            looped.append((planned, id(loop_include)))
        if not task.handler and not _selected(task, includers, selected, plan):
            tags = ", ".join(sorted(map(str, task.tag_set()))) or "none"
            why = next((play_plan.left_out[id(t)] for t in (task, *includers) if id(t) in play_plan.left_out),
                       f"not selected by the tags (its tags: {tags})")
            unselected = HostOutcome(SKIPPED, why, True)
            planned.hosts = known(dict.fromkeys(hosts, unselected), (unselected,) if hosts else ())
            result.tasks.append(planned)
            heard.flushed(task, planned)
            continue
        blocks.reach(task)
        running, out, removed = stopped.views(play_plan.hosts, failed, blocks.resuming, ended.certain, ended.maybe,
                                              batches)
        # the hosts a failure before this task stopped (certainly: True, else why it may have); one
        # at an item of the looping include around it, planned once for all its items, stops it at
        # the later items only, which the values follow themselves (host_runtime's _before_stop)
        one_for_all = loop_include is not None and copy_items(task, [loop_include])[0] is None
        if one_for_all and item_stops:
            out = {h: why for h, why in out.items() if item_stops.get(h, (None,))[0] != id(loop_include)}
        out_at.setdefault(id(task), []).append(out if failed else _NONE_OUT)
        if removed.certain or removed.maybe or len(batches) > 1:  # batches: what the later ones remove
            removed_at[id(task)] = removed
        conditions = task_conditions(task)
        once_batches = _notified_batches(task, batches, heard, running) if task.handler and not includers else batches
        outcomes = blocks.outcomes(task, task_outcomes(plan, play_plan, task, conditions, once_batches, signatures,
                                                       running, removed))
        if task.role is not None:
            outcomes = roles.outcomes(task, outcomes)
        if includers:
            outcomes = _through_includes(outcomes, [includes[id(include)].hosts for include in includers
                                                    if id(include) in includes])
        outcomes = ended.outcomes(task, outcomes, hosts)
        if item is not None:
            outcomes = item.apply(outcomes)
        outcomes = ends_in_turn(task, once_per_batch(play, task, outcomes, batches), batches,
                                _again(plan, play_plan, task, conditions, batches, signatures, removed))
        if id(task) in play_plan.left_out_hosts:  # --start-at-task: the first batch starts after it
            first, why = play_plan.left_out_hosts[id(task)]
            left_out = HostOutcome(SKIPPED, why, True)  # (one object for all: answers group hosts by identity)
            outcomes = {h: left_out if h in first else o for h, o in outcomes.items()}
        # its objects, found once for the role's note and the test below while the hosts stay the same
        objects = list(distinct(outcomes)) if task.role is not None else None
        roles.note(task, outcomes, objects)
        if loop_include is not None and _may_fail(task):
            may_stop_later_items(looped, id(loop_include), planned, outcomes)
        if runtime.follows(task):
            loaded, failing = runtime.expand(task, outcomes, includers, where(planned))
            outcomes.update(failing)
            objects = None
            queue.extendleft(reversed(loaded))
            heard.handlers += [handler for handler in runtime.handlers if handler not in heard.handlers]
        # a task that may fail (the plan cannot tell) under any_errors_fatal may stop the others too
        spreading = _may_fail(task) and failure_spread(play, task) is True and ignores_errors(task) is not True
        if not failed and not spreading and not item_stops and (not task.handler or not includers) and \
                FAILS not in map(_KIND, (objects := objects if objects is not None else list(distinct(outcomes)))):
            # (objects: blocks.note's too)
            if task.handler:  # its notifications decide, asked once per hosts alike (none is stopped)
                planned.hosts, answered = heard.handler_answers(task, hosts, outcomes, ENDED_HANDLER)
                planned.repeats = heard.repeats if answered else planned.repeats
                objects = None  # (its answers' objects: blocks.note finds them where it needs them)
            else:
                planned.hosts = known(outcomes, objects)  # the common case, without host-by-host work
            blocks.note(task, planned.hosts, objects)
            _note_changes(plan, play_plan, planned, batches, signatures)
            heard.note(task, planned, item is not None)
            ended.reached(task, planned, batches)
            clear_host_errors(task, planned, failed, cleared)
            result.tasks.append(planned)
            if planned.handler:  # what the tasks after it read of what it set: where it ran (host_runtime)
                _note_runs(play_plan.planning_runs, planned)  # type: ignore[attr-defined]
            continue
        planning, grouped = hosts, None

        def forced_handler(names: list[str], task: Task = task, conditions: Any = conditions,
                           removed: Any = removed) -> dict[str, HostOutcome]:
            """A handler on hosts a failure stopped in this play, with force_handlers: the implicit
            flush point of its section runs in an ``always`` (``Play.compile``), so what each host was
            notified of before the failure runs there, as its notifications decide. Its conditions
            are asked of the hosts together (hosts alike share one reading: engine.flow.host_classes),
            a ``run_once`` handler's of each host alone (its batch of one runs it there)."""
            chosen = [h for h in play_plan.hosts if h.name in set(names)]
            if run_once_hosts(play_plan, task, [[h.name] for h in chosen])[0] is None:
                base = task_outcomes(plan, play_plan, task, conditions, batches, signatures, chosen, removed)
            else:
                base = {h.name: task_outcomes(plan, play_plan, task, conditions, batches, signatures, [h],
                                              removed)[h.name] for h in chosen}
            answer = heard.handler_outcomes(task)
            return {name: answer(name, base[name]) for name in names}

        if failed and not spreading and not item_stops and not stopping:  # the stopped hosts alike, group by group
            if forced is None:
                forced = [force_handlers(plan, play)]
            groups, planning = stopped.groups(hosts, failed, blocks.resuming, before)
            grouped = (task.handler, forced[0])  # (the groups' objects are those of the hosts but the planned ones)
            planned.hosts = stopped.outcomes(  # in the play's order
                hosts, groups, partial(_stopped_alike, task.handler, forced[0]), grouped, planning)
            for (why, earlier), members in groups.items():
                if task.handler and forced[0] is True and why[1] and not earlier and heard.flush is None \
                        and not includers:  # force_handlers: the section's flush runs in an always
                    planned.hosts.update(forced_handler(members))
                    grouped = None
        place = where(planned)  # told in every failure's reason: worked out once, not per host
        handler_outcome = None
        for host in planning:
            if stopping and task.action in META:  # the run stopped at an earlier host's meta action
                failed.setdefault(host, next(iter(stopping.values())))
            stop = item_stops.get(host)
            if stop is not None and loop_include is not None and stop[0] == id(loop_include) and not task.handler \
                    and not blocks.resumes(host):  # an always section after the failure, at its item, runs
                found = task_outcomes(plan, play_plan, task, conditions, batches, signatures,
                                      [h for h in play_plan.hosts if h.name == host], removed)[host]
                found = planned.hosts[host] = before_the_stop(
                    _through_includes({host: found}, [includes[id(include)].hosts for include in includers
                                                      if id(include) in includes])[host], stop[1],
                    sum(map(includer_loops, includers)) > looping_includes(play, stop[2].task))
                if found.outcome == DEPENDS and stop[1] is not None and _may_fail(task):  # at an earlier item
                    unsure_stop(looped, stop[2], host, planned)
                    item_stops[host] = (stop[0], None, stop[2])
                continue
            if host in failed and host not in blocks.resuming:
                # a host failed in an earlier play is not in this one, force_handlers or not
                if forced is None:
                    forced = [force_handlers(plan, play)]  # the play's, once: it reads ansible.cfg
                planned.hosts[host] = _after_failure(task.handler, failed[host],
                                                     forced[0] if host not in before else False)
                if task.handler and forced[0] is True and failed[host][1] and host not in before \
                        and heard.flush is None and not includers:
                    planned.hosts[host] = forced_handler([host])[host]
                if spreading and not failed[host][1] and host not in before and task_outcomes(  # it may go on, and fail
                        plan, play_plan, task, conditions, batches, signatures,
                        [h for h in play_plan.hosts if h.name == host], removed)[host].outcome in (DEPENDS, FAILS):
                    stopping.setdefault(host, _may_stop(planned, host))
                continue
            outcome = outcomes[host]
            if task.handler and not includers and outcome is not ENDED_HANDLER:  # a loaded one: its include decides
                if handler_outcome is None:
                    handler_outcome = heard.handler_outcomes(task)
                outcome = handler_outcome(host, outcome)
                planned.repeats = heard.repeats
            planned.hosts[host] = outcome
            if outcome.outcome == FAILS and task.action in META:  # raised by the strategy: the run stops
                failed[host] = stopping[host] = (f"the condition of the meta action {planned.name!r} "
                                                 f"({place}) failing, which stops ansible-playbook", True)
                continue
            if outcome.outcome == FAILS:
                effect = blocks.failure(play, task, host, f"{planned.name!r} ({place})",
                                        outcome.reason.startswith(LOAD_FAILURE),
                                        partial(_templated, plan, play_plan, host, task))
                # no rescue takes over, or one around the include does: the file stops at that item
                if loop_include is not None and (effect is not None and effect[1] or
                                                 effect is None and host in blocks.followed and outcome.items):
                    ran = len(outcome.items) if outcome.items else first_loaded(looped, id(loop_include), host)
                    cut_items(looped, id(loop_include), host, ran, planned)
                    loaded = tuple(not each.unreported for each in outcome.items[:-1]) if outcome.items else \
                        (False,) * (ran - 1)
                    item_stops[host] = (id(loop_include), loaded, planned)
                if effect is not None:
                    failed[host] = (f"{effect[0]} failing", effect[1])
                if effect is not None or host in blocks.followed:  # a rescued failure fails the others too
                    spread = failure_spread(play, task) if effect is None or effect[1] else None
                    if spread is not False:  # the play's failure settings stop the others too
                        # which the rescue or always sections around the task take over
                        stopping[host] = (f"{planned.name!r} ({place}) failing on {host} "
                                          "(any_errors_fatal or max_fail_percentage)",
                                          bool(spread) and id(task) not in section_tasks(play)[1])
            elif outcome.outcome == DEPENDS and spreading:
                stopping.setdefault(host, _may_stop(planned, host))
        # any_errors_fatal fails the hosts of the failing host's batch (the earlier batches are done
        # with the play); a failing meta condition stops the run
        if stopping:
            whole = task.action in META
            for batch in [hosts] if whole else batches:
                causes = [why for host, why in stopping.items() if whole or host in batch]
                for other in batch if causes else ():
                    if other not in failed and other not in stopping:
                        failed[other] = max(causes, key=lambda why: why[1])  # a certain stop first
        stopping.clear()
        _max_fail(play, batches, failed, before, planned)
        # its objects found once here for the readers after (blocks.note's, the end of the play's, the JSON)
        objects = None if grouped is None else stopped.objects(grouped, groups, planned.hosts, planning)
        members = None if objects is None else stopped.members(grouped, groups, objects, planned.hosts, planning)
        objects = list(distinct(planned.hosts)) if objects is None else objects
        planned.hosts = planned.hosts.found(objects, members) if type(planned.hosts) is KnownOutcomes else \
            known(planned.hosts, objects)  # (one made for this task: no copy; the hosts of each object where known)
        blocks.note(task, planned.hosts, objects)
        _note_changes(plan, play_plan, planned, batches, signatures)
        heard.note(task, planned, item is not None)
        ended.reached(task, planned, batches)
        clear_host_errors(task, planned, failed, cleared)
        result.tasks.append(planned)
        if planned.handler:  # what the tasks after it read of what it set: where it ran (host_runtime)
            _note_runs(play_plan.planning_runs, planned)  # type: ignore[attr-defined]
    ended.later_batches(result.tasks, batches)
    for host in cleared:
        failed.pop(host, None)
    out_before = (frozenset(h for h in before if failed.get(h, ("", False))[1]),
                  frozenset(h for h in before if not failed.get(h, ("", True))[1]))
    # an ended host is out of its own batch only: the next batch starts with the play's hosts less the failed ones
    out_in_play = (frozenset(h for h, why in failed.items() if why[1] and h not in before),
                   frozenset(h for h, why in failed.items() if not why[1] and h not in before))
    # one settled object for the tasks that shared one (the hosts removed alike): what it made for one is theirs
    settled = {id(removed): replace(removed, settled=(*out_before, *out_in_play)) for removed in removed_at.values()}
    play_plan.removed_at = {  # type: ignore[attr-defined] - read by engine.variables.report
        key: settled[id(removed)] for key, removed in removed_at.items()}
    # where each handler (flush point by flush point), each task delegating its facts, each
    # end_batch or end_play and each task of a role an equal use of which ran before runs: True,
    # False, or why only the run knows
    planned_runs: dict[int, list[dict[str, bool | str]]] = {}
    for planned in result.tasks:
        _note_runs(planned_runs, planned)
    play_plan.planned_runs = planned_runs  # type: ignore[attr-defined] - read by engine.variables.host_runtime
    return result


def _note_runs(runs: dict[int, list[dict[str, bool | str]]], planned: PlannedTask) -> None:
    """Where ``planned`` runs, added to ``runs`` when the walk asks the plan for it (a handler, a
    task delegating its facts, an end_batch or end_play, a task of a role an equal use of which ran
    before): True, False, or why only the run knows, per host."""
    data = planned.task.data if isinstance(planned.task.data, Mapping) else {}
    if planned.handler or data.get("delegate_facts") or ends_in_batch(planned.task) or \
            not ROLE_REASONS.isdisjoint(map(_REASON, distinct(planned.hosts))):  # each object once
        # a handler its when skips was reached (its register keeps the skipped result); a meta
        # action its when skips ended nothing
        reached = not ends_in_batch(planned.task)
        answers = {id(o): _ran(o, reached) for o in distinct(planned.hosts)}  # each object's once
        runs.setdefault(id(planned.task), []).append(
            dict.fromkeys(planned.hosts, *answers.values()) if len(answers) == 1 else  # one for every host
            dict(zip(planned.hosts, map(answers.__getitem__, map(id, planned.hosts.values())), strict=True)))


def _ran(o: HostOutcome, reached: bool) -> bool | str:
    """Whether a task whose outcome on a host is ``o`` runs there (``reached``: a skipped one is
    reached, as a handler's when), or why only the run knows."""
    return o.reason if o.outcome == DEPENDS else \
        o.outcome in (RUNS, FAILS) or reached and o.outcome == SKIPPED and not o.unreported


def _again(plan: Plan, play_plan: PlayPlan, task: Task, conditions: list[tuple[Any, str]], batches: list[list[str]],
           signatures: dict[tuple[Any, ...], tuple[Any, ...]],
           removed: RemovedHosts) -> Callable[[str, frozenset[str]], HostOutcome]:
    """The task's outcome on one host with more hosts removed from the play's lists."""
    def outcome(host: str, ended: frozenset[str]) -> HostOutcome:
        chosen = [h for h in play_plan.hosts if h.name == host]
        return task_outcomes(plan, play_plan, task, conditions, batches, signatures, chosen,
                             replace(removed, certain=removed.certain | ended))[host]

    return outcome


def _note_changes(plan: Plan, play_plan: PlayPlan, planned: PlannedTask, batches: list[list[str]],
                  signatures: dict[tuple[Any, ...], tuple[Any, ...]]) -> None:
    """Where a task that notifies reports a change: what it notifies runs only there."""
    from engine.flow import notify
    from engine.flow.host_changes import change_reports

    if notify.notifications(planned.task):
        planned.changes = change_reports(plan, play_plan, planned.task, planned.hosts, task_conditions(planned.task),
                                         batches, signatures)


_NONE_OUT: Mapping[str, bool | str] = {}
_REASON, _KIND = attrgetter("reason"), attrgetter("outcome")


def _through_includes(outcomes: dict[str, HostOutcome],
                      includers: list[dict[str, HostOutcome]]) -> dict[str, HostOutcome]:
    """``outcomes`` as the includes on the way decide them: where one is skipped (``run_once``
    on another host too) the run never loads the task, so says nothing of it; where one
    depends, so does the task."""
    hosts = list(outcomes)

    def decided(host: str) -> HostOutcome:
        outcome = outcomes[host]
        changed = None if outcome.unreported else \
            _through(outcome, [included[host] for included in includers if host in included])
        return outcome if changed is None else changed

    if not hosts:
        return {}
    if all(outcome.outcome == RUNS for included in includers for outcome in distinct(included)):
        return dict(outcomes)  # the includes run wherever they are on the way: they leave every outcome
    first = hosts[0]  # most tasks: one object for every host, and one per include (or none)
    if all(map(is_, outcomes.values(), repeat(outcomes[first]))) and \
            all(all(map(is_, map(included.get, hosts), repeat(included.get(first)))) for included in includers):
        return dict.fromkeys(hosts, decided(first))
    # hosts share outcome objects: each combination of the task's and its includes' objects (None
    # where an include holds no such host) is decided once, on one of its hosts, and the hosts are
    # then given their combination's outcome without a step of Python per host
    combined = combinations(hosts, [outcomes.__getitem__, *(included.get for included in includers)],
                            list(outcomes.values()))
    if combined is not None:  # a few combinations: the hosts of each found by passes in C, none hashed
        combined.sort(key=len, reverse=True)
        made = dict.fromkeys(hosts, decided(combined[0][0]))
        for members in combined[1:]:
            made.update(dict.fromkeys(members, decided(members[0])))
        return made
    keys = list(zip(map(id, outcomes.values()), *(map(id, map(included.get, hosts)) for included in includers),
                    strict=True))
    by_key = {key: decided(host) for key, host in dict(zip(keys, hosts, strict=True)).items()}
    return dict(zip(hosts, map(by_key.__getitem__, keys), strict=True))  # (the ids of objects alive)


def _through(outcome: HostOutcome, states: list[HostOutcome]) -> HostOutcome | None:
    """:func:`_through_includes` of one host: its outcome as its includes' ``states`` decide it, None
    when they leave it."""
    skipping = next((o for o in states if o.outcome in (SKIPPED, FAILS)), None)
    maybe = next((o for o in states if o.outcome == DEPENDS), None)
    if skipping is not None:
        reason = outcome.reason if outcome.outcome == SKIPPED else f"its include is skipped: {skipping.reason}"
        return HostOutcome(SKIPPED, reason, True)
    if maybe is not None and outcome.outcome != SKIPPED:
        return HostOutcome(DEPENDS, f"runs only if its include runs on this host: {maybe.reason}")
    return None


def _selected(task: Task, includers: list[Task], selected: frozenset[int], plan: Plan) -> bool:
    """Whether the tag selection keeps ``task``; a task an include loads is selected when every
    include on the way is (an include left out loads nothing), with its own tags."""
    if not includers:
        return id(task) in selected
    if not _selected(includers[-1], includers[:-1], selected, plan):
        return False
    try:
        return should_run(TagEvaluator().evaluate(task), plan.options.selection())
    except TagTemplateError:
        return True  # ansible stops on it when the include runs; the include's outcome says so


def _max_fail(play: Play, batches: list[list[str]], failed: dict[str, tuple[str, bool]], before: set[str],
              planned: PlannedTask) -> None:
    """``max_fail_percentage``: once more than that share of a batch's hosts failed in the play,
    the strategy fails the others too (certainly when the failures counted are certain)."""
    data = play.data if isinstance(play.data, Mapping) else {}
    if data.get("max_fail_percentage") is None or play_strategy(play) == "free":
        return
    try:
        limit: float | None = float(data["max_fail_percentage"]) / 100
    except (TypeError, ValueError):
        limit = None  # templated: any failure may be one too many
    for batch in batches:
        new = [host for host in batch if host in failed and host not in before]
        if not new or len(new) == len(batch):
            continue
        certain = [host for host in new if failed[host][1]]
        why = f"{planned.name!r} ({where(planned)}) failing on {len(new)} of {len(batch)} hosts (max_fail_percentage)"
        if limit is not None and len(certain) / len(batch) > limit:
            stop = (why, True)
        elif limit is None or len(new) / len(batch) > limit:
            stop = (why, False)
        else:
            continue
        for host in batch:
            failed.setdefault(host, stop)


def _notified_batches(task: Task, batches: list[list[str]], heard: Notifications,
                      running: list[Any]) -> list[list[str]]:
    """The batches a ``run_once`` handler picks its host from: the strategy runs a handler on the
    hosts notified at that flush point, so the first of those (not of the batch) runs it."""
    if not runs_once(task):
        return batches
    answer = heard.handler_outcomes(task)
    notified = {host.name for host in running if answer(host.name, _NOTIFIED_PROBE).outcome != SKIPPED}
    return [[host for host in batch if host in notified] or batch for batch in batches]


_NOTIFIED_PROBE = HostOutcome(RUNS, "whether it is notified here")


def _may_stop(planned: PlannedTask, host: str) -> tuple[str, bool]:
    return f"{planned.name!r} ({where(planned)}) if it fails on {host} (any_errors_fatal)", False


def _may_fail(task: Task) -> bool:
    """Whether the plan reads whether ``task`` fails (fail, assert, failed_when)."""
    from engine.loading import keywords as kw

    return task.action in kw.FAIL | kw.ASSERT or isinstance(task.data, Mapping) and "failed_when" in task.data


def _stopped_alike(handler: bool, forced: bool | None, failure: tuple[str, bool], earlier: bool) -> HostOutcome:
    """:func:`_after_failure` of the hosts ``failure`` stopped (``earlier``: before the play)."""
    return _after_failure(handler, failure, False if earlier else forced)


@lru_cache(maxsize=4096)
def _after_failure(handler: bool, failure: tuple[str, bool], forced: bool | None) -> HostOutcome:
    """What a task (a handler or not) is on a host stopped by ``failure``: one object for the hosts
    a failure stopped alike (a fleet's hosts failing at one task are stopped at every task after)."""
    name, certain = failure
    if certain and not handler:
        return HostOutcome(SKIPPED, f"the host is stopped by {name}", True)
    if handler and certain and forced is False:
        return HostOutcome(SKIPPED, f"the host is stopped by {name}, and force_handlers is off", True)
    if handler:
        return HostOutcome(DEPENDS, f"the host is stopped by {name}: handlers run then only with force_handlers")
    return HostOutcome(DEPENDS, f"after {name}: whether the host goes on is the run's to know (rescue, "
                                "failure settings, clear_host_errors)")


def _templated(plan: Plan, play_plan: PlayPlan, host: str, task: Task, value: Any) -> Any:
    """``value`` templated with what ``task`` sees on ``host``."""
    from engine.variables.report import templar_at

    chosen = next(h for h in play_plan.hosts if h.name == host)
    return templar_at(plan, play_plan, chosen, task).template(value)

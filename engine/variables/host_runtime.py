"""What earlier tasks set on one host, followed task by task before the run.

ansible keeps what a task sets as host variables for the rest of the run: ``include_vars``
in the host's vars cache, ``set_fact`` and ``register`` among its non-persistent facts, from one
play to the next. Each such task is evaluated here on the host, with what the host has at that
task (its ``when``, its loop items, its values templated there, not where they are read), the
same way for every template of the host. What only the run knows (a module's result, a fact
gathered, a condition on one) is a :class:`~engine.variables.sources.RuntimeValue` naming the
task, never a guess. A registered result whose shape ansible fixes before the run (``debug``,
``assert``, ``set_fact``, ``include_vars``, a task its ``when`` skips) is built as ansible's
action plugins and TaskExecutor build it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from engine.flow.batches import batch_place as _batch_place
from engine.flow.batches import batches_run as _batches_run
from engine.flow.batches import host_batch
from engine.flow.block_failures import section_tasks
from engine.flow.run_settings import check_mode, runs_once
from engine.flow.tags import TagEvaluator, TagTemplateError, should_run
from engine.loading import keywords as kw
from engine.parsing.source import files_state
from engine.templating.read_names import HOSTVARS_ALIKE, READS_ALL, names_recorded
from engine.variables.accumulating import accumulates as _accumulates
from engine.variables.block_runs import fails, reader_place, runs_anywhere, runs_there
from engine.variables.class_changes import followed_unshared
from engine.variables.earlier_walk import ItemMajor, earlier_plays, file_loop, own_play
from engine.variables.failed_hosts import as_written as _as_written
from engine.variables.failed_hosts import planned_alone, ran_unless_out
from engine.variables.host_facts import facts_layer, plays_before
from engine.variables.host_failures import BlockFailures
from engine.variables.include_orders import after_every_order, settled_names
from engine.variables.include_stops import Stop, caught_within, first_stop, may_stop
from engine.variables.loop_vars import item_runs, run_place
from engine.variables.once_runner import agreed, handler_runner, once_candidates
from engine.variables.setters import ends_host_task as _ends_host_task
from engine.variables.setters import ends_in_batch, host_names, play_enders, side_by_side
from engine.variables.setters import maybe as _maybe
from engine.variables.setters import occurrence as _occurrence
from engine.variables.setters import sets_something as _sets_something
from engine.variables.setters import setters as _setters
from engine.variables.setters import unknown_layer as _unknown_layer
from engine.variables.sources import (
    EARLIER_TASKS,
    SET_FACT,
    Layer,
)
from engine.variables.task_kinds import host_independent, known_shape
from engine.variables.task_results import Effects, follow, unknown_result
from engine.variables.uniform_walks import uniform_walk

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Play, Task
    from engine.templating.templar import Templar

_Read = TypeVar("_Read")
_NARROW_TRIES = 8
"""How many times a narrow reading (Follower.narrow_reading) widens its names before it walks them all."""
_following = 0  # effects being followed now (one inside another's templar): the memo is kept meanwhile
@dataclass(frozen=True)
class Follower(BlockFailures):
    """Follows earlier tasks on hosts of ``plan``; ``order_of`` gives a play's tasks in run order
    (engine.variables.report's order: ``tasks``, ``includers``, ``_before``) and ``templar_at`` a
    task's templar on a host (report.templar_at), which itself asks this follower for what the
    tasks before set."""

    plan: Plan
    order_of: Callable[[Play], Any]
    templar_at: Callable[..., Templar]
    item_order: Callable[..., list[int] | None]
    """The order a host runs a looped include's items in (engine.variables.report.include_item_order)."""

    def fill_in(self, play_plan: PlayPlan, host: Host, task: Task | None, occurrence: int,
                outer: tuple[int, ...], layers: list[Layer], names: frozenset[str] | None = None) -> list[Layer]:
        """``layers`` with the host's facts and what earlier tasks set on the host in their places
        (``names``: only the layers that may set these, :meth:`earlier_layers`)."""
        result = []
        for layer in layers:
            if layer.level == "host facts":
                result.append(facts_layer(self.plan, play_plan, host, task))
            elif layer.pending and layer.label == EARLIER_TASKS:
                result += shared_earlier_layers(self, play_plan, host, task, occurrence, outer) if names is None \
                    else self.earlier_layers(play_plan, host, task, occurrence, outer, names=names)
            else:
                result.append(layer)
        return result

    def earlier_layers(self, play_plan: PlayPlan, host: Host, task: Task | None, occurrence: int,
                       outer: tuple[int, ...], reader: Host | None = None,
                       names: frozenset[str] | None = None) -> list[Layer]:
        """What the tasks before this run of ``task`` set on ``host``, in earlier plays then this
        one: the include_vars layers, then the set_fact and register ones. In a looped include,
        the file runs whole for each item before the next: the reader at an item sees what every
        task of the file set at the items before (those after the reader too), then what the
        tasks before it set at its own item. ``reader``: the host whose ``hostvars`` asks (the
        ``serial`` batches up to its own have run a ``run_once`` task delegating to ``host``).
        ``names``: only the layers that may set these names (not ``ansible_failed_*``) are wanted,
        each as the whole walk gives it: the tasks that set none of them are passed over."""
        plays_effects = earlier_plays(self, play_plan, host, names)  # once per host and play (earlier_walk)
        order = self.order_of(play_plan.play)
        own_loops = order.looping(task) if task is not None else []
        before = order.count_before(task, occurrence)  # (the play's order, shared with report)
        if reader is not None and reader.name != host.name:  # another serial batch: none of the play, or all of it
            place = _batch_place(play_plan, host, reader)
            before = before if place == 0 else 0 if place > 0 else len(order.tasks)
            reader = host if place < 0 else reader  # what its batch's run gave it, not the later ones'
        loop = own_loops[0] if own_loops and outer and outer[0] >= 0 else None
        in_loop: list[tuple[int, int, Effects]] = []  # (the item's place in the run, the task's, what it set)
        member = host.name in host_names(play_plan)  # a host out of the play (a delegate) ends nothing in it
        ended = self.stopped_before(play_plan, host) if member else False
        batches_before: list[Effects] = []  # what the serial batches before the reader's delegated to the host
        # the host's walk so far, when it does not depend on this reader (engine.variables.earlier_walk)
        walked = own_play(self, play_plan, host, before, names, task) if not own_loops and reader is None else None
        setters = [] if walked is not None else \
            _setters(order, len(order.tasks) if loop is not None or reader is not None else before, names)
        loops = [file_loop(self, play_plan, done) for _, done in setters]
        mine = ItemMajor()  # what the setters past which it reads set, a looping include's file item by item
        for index, (at, done) in enumerate(setters):
            same_loop = loop is not None and any(include is loop for include in order.includers.get(id(done), []))
            if not self._selected(play_plan, done):
                continue
            if at >= before and not same_loop:
                if reader is not None and _delegates_facts(done):  # the earlier batches ran the whole play
                    batches_before += self._delegated_to(play_plan, host, done, reader, earlier=True)
                continue
            ended = ended or (member and at < before and self._ends_host(play_plan, host, done))
            if ended is True and not self._given_by_another(play_plan, host, done):
                continue
            ran = self._ran(play_plan, host, done, task) if member else True
            ran = ran_unless_out(self, play_plan, host, done, _occurrence(order, done, at), ran) if member else ran
            if ran is not False and planned_alone(play_plan, done) and member:
                ran = self._planned_ran(play_plan, host, done, _occurrence(order, done, at), ran)
            if ran is False:
                continue
            runs = self._runs_on(play_plan, host, done, outer if own_loops else (), own_loops, member,
                                 upto_reader=at < before, reader=reader or host,
                                 occurrence=_occurrence(order, done, at))
            if same_loop:
                in_loop += [(rank, at, _maybe(found, ended or ran)) for rank, found in runs]
            else:
                mine.add(loops[index], at, [(rank, _maybe(found, ended or ran)) for rank, found in runs])
        mine.close()
        if walked is not None:  # what the plays before set, then this play's walk so far: no setter walked here
            own = [*walked, Effects(facts=self._rescued(play_plan, host, before))] if names is None else walked
            included, facts = _layers_of(play_plan, (host.name, names), plays_effects)
            # (lists, not generators unpacked: a reading late in a play takes some 190 levels)
            return [*included, *[layer for found in own for layer in found.included],
                    *facts, *[layer for found in own for layer in found.facts]]
        after_plays = len(plays_effects)
        effects = [*plays_effects, *mine.effects, *(found for _, _, found in sorted(in_loop, key=lambda run: run[:2]))]
        effects[after_plays:after_plays] = batches_before
        if names is None:
            effects.append(Effects(facts=self._rescued(play_plan, host, before)))
        return [layer for found in effects for layer in found.included] + \
            [layer for found in effects for layer in found.facts]

    def memo(self, play_plan: PlayPlan) -> dict[Any, Any]:
        """What was followed on the play's hosts (engine.variables.earlier_walk keeps its walks there)."""
        return followed_memo(play_plan)

    def _selected(self, play_plan: PlayPlan, task: Task) -> bool:
        """Whether the run's tag selection keeps ``task`` (``never`` too), and every include on the way
        to it, each with its own tags (an include's do not reach what it loads); a handler runs
        whatever the tags. Tags only the run templates keep it (ansible-playbook stops on them)."""
        if task.handler:
            return True
        memo = followed_memo(play_plan)
        options = self.plan.options
        kept = memo.get(("selection", id(options)))
        if kept is None or kept[0] is not options:  # the same options for every task and host: built once
            kept = memo[("selection", id(options))] = (options, options.selection(), {})
        _, selection, selected = kept
        found = selected.get(id(task))  # (asked at each step of every walk: one lookup)
        if found is None:
            evaluator = TagEvaluator.for_play(play_plan.play)
            try:  # one a run option leaves out (play_plan.left_out: --start-at-task) is not selected either
                found = all(id(step) not in play_plan.left_out and should_run(evaluator.evaluate(step), selection)
                            for step in [*self.order_of(play_plan.play).includers.get(id(task), []), task])
            except TagTemplateError:
                found = True
            selected[id(task)] = found
        return found  # type: ignore[no-any-return]

    def _planned_ran(self, play_plan: PlayPlan, host: Host, task: Task, occurrence: int,
                     ran: bool | str) -> bool | str:
        """Whether the ``occurrence``-th run of ``task`` (a handler's flush point: a task before it
        notified it and changed there; a task delegating its facts: an end_play before it...) runs on
        ``host``, as the plan says: False, ``ran``, or why only the run knows."""
        pending = getattr(self.plan, "removals_pending", None)
        if pending is not None:
            pending()
        runs = getattr(play_plan, "planned_runs", None)
        # a run_once handler's result reaches every host of the batch, notified or not
        receivers = [other.name for other in host_batch(play_plan, host.name)] \
            if task.handler and runs_once(task) else [host.name]
        positions = len(self.order_of(play_plan.play).positions.get(id(task), []))
        if runs is None:  # not planned (planning now): what follows from it kept only until it is
            _as_written.append(play_plan)
            # its runs planned so far (a handler's flush points before the reader): the plan's answer
            # where they line up with its places in the play; as written where none is planned yet
            so_far = getattr(play_plan, "planning_runs", {}).get(id(task), [])
            if occurrence < len(so_far) <= positions:
                return self._ran_at(task, so_far[occurrence], receivers, ran)
            return False if _runs_nowhere(so_far, receivers) else ran
        outcomes = runs.get(id(task), [])
        if len(outcomes) != positions:
            # the plan lists its runs otherwise (notifications pending after a flush point): only
            # where it runs at none of them is known
            return False if _runs_nowhere(outcomes, receivers) else ran
        return self._ran_at(task, outcomes[occurrence], receivers, ran)

    @staticmethod
    def _ran_at(task: Task, planned: Mapping[str, bool | str], receivers: list[str], ran: bool | str) -> bool | str:
        """Whether a run of ``task`` the plan planned (``planned``: each host's answer) runs for the
        ``receivers``: False, ``ran``, or why only the run knows."""
        batch = [planned.get(name, "where it runs is the run's") for name in receivers]
        runs_here = True if True in batch else next((why for why in batch if isinstance(why, str)), False)
        if isinstance(runs_here, str):
            return f"set by task '{task.display_name()}', which on this host {runs_here}"
        return ran if runs_here else False

    def _ran(self, play_plan: PlayPlan, host: Host, task: Task, reader: Task | None) -> bool | str:
        """Whether ``task`` ran on ``host`` by the time ``reader`` runs, as the blocks with a
        ``rescue`` around it decide (engine.variables.block_runs): True, False, or why only the
        run knows."""
        alike = self._ran_alike(play_plan, task, reader)
        if alike is not None:
            return alike
        order = self.order_of(play_plan.play)
        blocks, item_by_item, deciding = order.per_task("ran by blocks", task,
                                                        lambda: self._ran_by_blocks(play_plan, order, task))
        return runs_there(blocks, task, reader, self._fails_on(play_plan, host), item_by_item, deciding)

    def _ran_alike(self, play_plan: PlayPlan, task: Task, reader: Task | None) -> bool | str | None:
        """:meth:`_ran` where the blocks decide it without asking whether a task fails the host (no
        block with a ``rescue`` around ``task``, or nothing before it there that may fail): the same
        on every host, found once per task and sections of the blocks the reader is in, in this order
        (asked for each host); else None."""
        order = self.order_of(play_plan.play)
        # what decides it but the host's failures: once per task and order
        how = order.per_task("ran by blocks", task, lambda: self._ran_by_blocks(play_plan, order, task))
        if how is None:
            return True
        return order.per_task(("ran alike", reader_place(how[0], reader)), task,  # type: ignore[no-any-return]
                              lambda: runs_anywhere(how[0], task, reader, how[1], how[2]))

    def _ran_by_blocks(self, play_plan: PlayPlan, order: Any, task: Task) -> tuple[Any, ...] | None:
        """The play's blocks and how they decide whether ``task`` ran (:meth:`_ran`), None where no
        block with a ``rescue`` is around it."""
        from engine.variables.block_runs import play_blocks

        blocks = play_blocks(play_plan.play)
        if id(task) not in blocks.paths or not blocks.rescuing:
            return None
        chain = order.includers.get(id(task), [])
        looping = order.looping(task)
        per_item = self._blocks_per_item(play_plan, task)  # decided item by item (_ran_at_item)
        return (blocks,
                (lambda earlier: order.includers.get(id(earlier), []) == chain)
                if len(looping) == 1 and not self._own_item(play_plan, task) else None,
                (lambda block: block not in per_item) if per_item else None)

    def _ends_host(self, play_plan: PlayPlan, host: Host, task: Task) -> bool | str:
        """Whether ``task``, a ``meta: end_host``, ends the play for ``host`` (nothing after it in
        the play runs there): True, False, or why only the run knows."""
        if ends_in_batch(task):  # run once for the batch: where it ran is what the play's plan says
            pending = getattr(self.plan, "removals_pending", None)
            if pending is not None:
                pending()
            if getattr(play_plan, "planned_runs", None) is None:  # planning now: not ended, until planned
                _as_written.append(play_plan)
                return False
            return self._planned_ran(play_plan, host, task, 0, True)
        if not _ends_host_task(task):
            return False
        conditions = [c.value for include in self.order_of(play_plan.play).includers.get(id(task), [])
                      for c in include.effective_when()] + [c.value for c in task.effective_when()]
        if not conditions:
            return True
        # once per host, task and planned runs: each walk of the setters on the host passes it
        key = ("ends host", host.name, id(task), id(getattr(play_plan, "planned_runs", None)))
        memo = followed_memo(play_plan) if getattr(self.plan, "removals_pending", None) is None else {}
        if key not in memo:
            # the hosts of a class of what the conditions read share one answer, where answers are kept
            # and the plan shares them (engine.variables.end_host_classes)
            shared = getattr(self.plan, "end_host_holds", None)
            memo[key] = shared(self, play_plan, host, task, conditions) \
                if shared is not None and getattr(self.plan, "removals_pending", None) is None else \
                self._end_host_holds(play_plan, host, task, conditions)
        return memo[key]  # type: ignore[no-any-return]

    def _end_host_holds(self, play_plan: PlayPlan, host: Host, task: Task, conditions: list[Any],
                        read: set[str] | None = None) -> bool | str:
        """Whether ``conditions`` hold on ``host`` at ``task``. ``read``: the names recorded meanwhile
        (engine.templating.read_names), emptied once the host's templar there is made."""
        templar = self.templar_at(self.plan, play_plan, host, task)
        if read is not None:
            read.clear()
        for condition in conditions:
            try:
                if not templar.evaluate(condition):
                    return False
            except Exception as exc:  # noqa: BLE001 - a condition only the run decides
                return f"set after task '{task.display_name()}', which ends the play for the host if " \
                       f"{condition!r} holds, which only the run knows ({exc})"
        return True

    def stopped_before(self, play_plan: PlayPlan, host: Host) -> bool | str:
        """Whether an ``end_play`` that ran in a ``serial`` batch before ``host``'s ended the play
        before its batch started: then no task of the play runs on it (True, False, or why only the
        run knows)."""
        enders = play_enders(self.order_of(play_plan.play))
        if not enders:
            return False
        memo = followed_memo(play_plan)
        key = ("stopped before", host.name, id(getattr(play_plan, "planned_runs", None)))
        if key not in memo:
            unsure: bool | str = False
            for batch in _batches_run(play_plan, host, True):
                for done in enders:
                    ran = self._ends_host(play_plan, batch[0], done) if batch else False
                    if ran is True:
                        memo[key] = True
                        return True
                    unsure = unsure or ran
            memo[key] = unsure
        return memo[key]  # type: ignore[no-any-return]

    def _given_by_another(self, play_plan: PlayPlan, host: Host, task: Task) -> bool:
        """Whether ``task`` is a ``run_once`` one another host of ``host``'s batch runs: ansible gives
        its result to every host of the batch, one the play ended for too."""
        return runs_once(task) and bool(play_plan.hosts) and self._once_runner(play_plan, host, task)[0] is not host \
            and self.stopped_before(play_plan, host) is not True  # a batch that never ran gets nothing

    def _once_runner(self, play_plan: PlayPlan, host: Host, task: Task, occurrence: int = 0,
                     batch: list[Host] | None = None) -> tuple[Host, str | None]:
        """The host a ``run_once`` task runs on for ``host``: the first of its ``serial`` batch (or
        of ``batch``) that no ``meta: end_host`` before the task ended (a handler: the first the
        plan runs it on at that flush point, the first notified), with why only the run knows it."""
        batch = host_batch(play_plan, host.name) if batch is None else batch  # its hosts, in the play's order
        if task.handler and (found := handler_runner(play_plan, task, occurrence, batch,
                                                     len(self.order_of(play_plan.play).positions.get(id(task), [])))):
            return found
        order = self.order_of(play_plan.play)
        at = order.positions.get(id(task), [len(order.tasks)])[0]
        enders = [done for _, done in _setters(order, at) if _ends_host_task(done)]
        for runner in batch:
            ends = [self._ends_host(play_plan, runner, done) for done in enders]
            if True not in ends:
                return runner, next((why for why in ends if isinstance(why, str)), None)
        return (batch or play_plan.hosts)[0], None

    def _runs_on(self, play_plan: PlayPlan, host: Host, task: Task, outer: tuple[int, ...],
                 reader_loops: list[Task], member: bool, upto_reader: bool = True,
                 reader: Host | None = None, occurrence: int = 0) -> list[tuple[int, Effects]]:
        """The effects on ``host`` of every run of ``task`` the reader sees, each with the place of
        its item in the host's run: one per item of the looped include around it (when the reader
        is in the same include, up to the reader's own item, or only the items before it without
        ``upto_reader``), and what other hosts' runs delegated to ``host`` (``delegate_facts``)."""
        loaded_on = self.order_of(play_plan.play).loaded_on.get(id(task))
        if not _sets_something(task):
            return []
        data = task.data if isinstance(task.data, Mapping) else {}
        # a task of a file this host's include does not load (another file; a run_once include loads
        # its tasks on its batch's first host only) sets nothing of its own on it; the hosts that
        # load it may still delegate their facts to it
        if loaded_on is not None and host.name not in loaded_on or \
                member and any(self._given_by_another(play_plan, host, include) for include in
                               self.order_of(play_plan.play).includers.get(id(task), [])
                               if include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS):
            return [(0, given) for given in self._delegated_to(play_plan, host, task, reader)] \
                if data.get("delegate_facts") else []
        found: list[tuple[int, Effects]] = []
        runs: list[tuple[int, ...]] = [()]
        includers = self.order_of(play_plan.play).looping(task)
        order: list[int] | None = None
        unordered: Callable[[str], bool] | None = None  # the names its runs set from what the ones before set
        if includers and member:
            order = self.item_order(self.plan, play_plan, host, task, includers[0])
            if order is None or -1 in order:
                runs = [(-1,)] if order is not None else runs  # items whose order only the run knows
                play_order_ = self.order_of(play_plan.play)
                unordered = play_order_.per_task(("accumulates", id(includers[0])), task,
                                                 partial(_accumulates, play_order_, task, includers[0]))
            else:
                runs = item_runs(partial(self.templar_at, self.plan, play_plan, host), task, includers, order, outer,
                                 reader_loops, upto_reader)
                runs = self._before_stop(play_plan, host, task, includers, order, runs)
                if len(includers) == 1 and self.order_of(play_plan.play).first_item_only(task, includers[0]):
                    runs = runs[:1]  # a dependency of the included role: it has run after the first item
        # run_once: the first host of the batch still in the play runs it, ansible gives the batch its result
        runner, unsure = (host, None) if not runs_once(task) or not play_plan.hosts else \
            self._once_runner(play_plan, host, task, occurrence)
        first_of = None if task.handler else lambda batch: self._once_runner(play_plan, host, task, 0, batch)[0]
        others = once_candidates(self.plan, play_plan, runner, host, first_of) \
            if runs_once(task) and play_plan.hosts else None
        places = self.order_of(play_plan.play)

        def rank_of(number: int) -> int:  # where the run comes, among those of the other tasks of its include
            return run_place(places, task, includers, order, runs[number], number) if number < len(runs) and \
                includers and member and order else number

        for number, run in enumerate(runs if member else []):
            rank = rank_of(number)
            ran = self._ran_at_item(play_plan, host, task, run) if includers else True
            if ran is True:  # a task of a file only the run names here: what it sets, the run's
                ran = self.order_of(play_plan.play).named_by_run(task, host.name) or True
            if ran is False:
                continue  # at this item a task before it in its block failed, or none did before its rescue
            own = self._effects(play_plan, runner, task, run, occurrence)
            if others is not None:  # the first host of the batch is the run's: any of them may run it
                own = agreed(own, others, lambda other, run=run: self._effects(play_plan, other, task, run, occurrence))
            own = _maybe(own, unsure or ran)
            if unordered:  # each run reads what the one before set, in an order (or a number) the run's
                # read after the include: what every order of its items agrees on (engine.variables.include_orders)
                known = after_every_order(self, play_plan, host, includers[0]) \
                    if includers[0] not in reader_loops else None
                own = settled_names(own, unordered, known, f"set by task '{task.display_name()}' from what its "
                                    f"earlier runs set, one per item of the looping include "
                                    f"'{includers[0].display_name()}', whose items or their order only the run knows")
            if own.delegated_to is None and own.delegated_each is None:
                found.append((rank, own))
            elif own.delegated_each is not None and own.facts:  # its register stays with the host
                found.append((rank, Effects(facts=own.facts)))
        if data.get("delegate_facts"):
            found += [(rank_of(max(len(runs) - 1, 0)), given)
                      for given in self._delegated_to(play_plan, host, task, reader)]
        return found

    def _before_stop(self, play_plan: PlayPlan, host: Host, task: Task, includers: list[Task], order: list[int],
                     runs: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """``runs`` of ``task`` (in a file the looping ``includers`` load) up to where a task of that
        file stops the host (engine.variables.include_stops), a rescue around the include or not."""
        found = self._include_stop(play_plan, host, task, includers, order)
        if not isinstance(found, Stop):
            return runs
        kept = [run for run in runs if found.keeps(task, run, runs) is not False]
        return kept

    def _include_stop(self, play_plan: PlayPlan, host: Host, task: Task, includers: list[Task],
                      order: list[int]) -> Stop | str | None:
        """Where ``host`` stops running the file of ``task`` the looping ``includers`` load, once
        per file and host (engine.variables.include_stops.first_stop)."""
        from engine.variables.block_runs import play_blocks

        play_order = self.order_of(play_plan.play)
        chain = play_order.includers.get(id(task), [])
        memo = followed_memo(play_plan)
        key = ("include stop", id(chain[-1]) if chain else 0, host.name, id(self.plan.inventory))
        if key not in memo:
            memo[key] = None
            same = [each for each in play_order.tasks if play_order.includers.get(id(each), []) == chain]
            caught = caught_within(play_plan.play, includers[-1])
            every = item_runs(partial(self.templar_at, self.plan, play_plan, host), task, includers, order, (), [],
                              True) if any(may_stop(each, caught) for each in same) else []
            memo[key] = first_stop(same, every, lambda each, run: self.narrow_reading(
                play_plan, host, each, run, partial(fails, each, gate=self._gate(play_plan, each))),
                caught, play_blocks(play_plan.play).paths)
        return memo[key]  # type: ignore[no-any-return]

    def narrow_reading(self, play_plan: PlayPlan, host: Host, task: Task, outer: tuple[int, ...],
                       read: Callable[[Templar], _Read]) -> _Read:
        """``read(templar)`` with ``task``'s templar on ``host`` (at the ``outer`` items), what earlier
        tasks set walked only for the names the reading reads (:func:`narrow_reading`)."""
        return narrow_reading(play_plan, ("narrow reading", id(task)), lambda names: self.templar_at(
            self.plan, play_plan, host, task, 0, outer, names=names), read)

    def _delegated_to(self, play_plan: PlayPlan, host: Host, task: Task, reader: Host | None = None,
                      earlier: bool = False) -> list[Effects]:
        """The set_fact values other hosts' runs of ``task`` give ``host`` with ``delegate_facts``
        by the time ``reader`` reads (the ``serial`` batches up to its own; ``earlier``: only those
        before it): with ``run_once``, the first host's of each batch, the last batch's staying (each
        batch's run reads what the one before left); with several hosts the last to finish wins,
        which only the run knows."""
        once = runs_once(task)
        found: list[Effects] = []
        for batch in _batches_run(play_plan, reader, earlier):
            # run_once: its first sender only (not every host of the batch asked, for every receiver)
            senders = [first] if once and (first := next(self._senders(play_plan, task, batch), None)) is not None \
                else [] if once else list(self._senders(play_plan, task, batch))
            # run_once: the first host of the batch the task runs on (one a meta action ended is not);
            # a host whose `when` skips it gives nothing
            given = [_maybe(effects if each is None else Effects(facts=[each[host.name]]), sent)
                     for sender, sent in (senders[:1] if once else senders)
                     for effects in [self._effects(play_plan, sender, task, ())] for each in [effects.delegated_each]
                     if effects.delegated_to == host.name and effects.facts or host.name in (each or {})]
            if len(given) > 1:  # the hosts of one batch run it side by side, each reading what the batches before left
                reason = f"set by several of the {len(given)} hosts of one batch in task '{task.display_name()}' " \
                         "(delegate_facts): the last to finish wins"
                given = side_by_side(given, reason)
            found += given  # the batches run one after the other: each reads what the one before left
        return found

    def _senders(self, play_plan: PlayPlan, task: Task, batch: list[Host]) -> Iterator[tuple[Host, bool | str]]:
        """The hosts of ``batch`` on which ``task`` runs (or may), in order, each with how: not one
        whose include names another file, nor one a ``run_once`` include does not load it on."""
        loaded_on = self.order_of(play_plan.play).loaded_on.get(id(task))
        once = [include for include in self.order_of(play_plan.play).includers.get(id(task), [])
                if include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS and runs_once(include)]
        for sender in batch:
            if loaded_on is not None and sender.name not in loaded_on or \
                    any(self._given_by_another(play_plan, sender, include) for include in once):
                continue  # it loads another file, or a run_once include loads it on another host
            sent = self._planned_ran(play_plan, sender, task, 0, True)
            if sent:
                yield sender, sent

    def effects_of(self, play_plan: PlayPlan, host: Host, task: Task, occurrence: int = 0) -> Effects:
        """What the ``occurrence``-th run of ``task`` (not in a looped include) sets on ``host``."""
        return self._effects(play_plan, host, task, (), occurrence)

    def _effects(self, play_plan: PlayPlan, host: Host, task: Task, outer: tuple[int, ...],
                 occurrence: int = 0) -> Effects:
        """What the ``occurrence``-th run of ``task`` (a handler flushed twice, a file imported twice)
        sets on ``host``, each run templated with what the runs before it set."""
        global _following
        memo = followed_memo(play_plan)
        uniform = memo.get(("uniform", id(task))) if outer == () else False
        if uniform is None:  # the same effects on every host: followed once (asked for each host and reader)
            uniform = memo[("uniform", id(task))] = not task.effective_when() and not any(
                include.effective_when() for include in self.order_of(play_plan.play).includers.get(id(task), [])) \
                and (not known_shape(task) or host_independent(task))
        # followed while its play is planned, a run reads the tasks before it as written: kept apart
        memo_key = (id(task), "" if uniform else host.name, outer, id(self.plan.inventory), occurrence,
                    id(getattr(play_plan, "planned_runs", None)))
        kept = memo.get(memo_key)  # (what it set, the plays it read as written while they were being planned)
        # followed while a play it read was being planned: what its plan says now
        found = None if kept is None or kept[1] and any(getattr(asked, "planned_runs", None) is not None
                                                        for asked in kept[1]) else kept[0]
        if found is None:
            _following += 1
            mark = len(_as_written)
            try:
                # hosts sharing a setter's effects by class (engine.variables.setter_classes)
                share = None if uniform else getattr(self.plan, "share_setters", None)
                if share is None and not uniform:
                    followed_unshared(memo, task)
                follow = partial(self._follow, play_plan, host, task, outer, occurrence)
                # (a run of a looping include's file: each host's own, what it read noted for the walks past it)
                found = follow() if share is None else \
                    share(self.plan, play_plan, memo, host, task, outer, occurrence, follow,
                          looping=bool(outer or self.order_of(play_plan.play).looping(task)))
                memo[memo_key] = (found, tuple({id(asked): asked for asked in _as_written[mark:]}.values()))
            finally:
                _following -= 1
                if not _following:
                    _as_written.clear()
        return found  # type: ignore[no-any-return]

    def _follow(self, play_plan: PlayPlan, host: Host, task: Task, outer: tuple[int, ...], occurrence: int,
                read: set[str] | None = None) -> Effects:
        """Run ``task`` on ``host`` as far as it can be before the run (engine.variables.task_results);
        ``read``: where to put the names its templates read (engine.variables.setter_classes)."""
        # an include whose `when` is false loads nothing: no task of it runs or registers a result
        # a handler an include_role brings runs where it is notified, with that include's variables
        # but not its conditions (a host whose run of the include skipped that item runs it too)
        gate = [c.value for include in self.order_of(play_plan.play).includers.get(id(task), [])
                if not (task.handler and include.action in kw.INCLUDE_ROLE) for c in include.effective_when()]
        own = [c.value for c in task.effective_when() if all(c.value is not g for g in gate)]
        # a rescue task that fails runs the always section before the host stops: not stopped there
        recovered = any(id(task) in tasks for tasks in section_tasks(play_plan.play))
        if not gate and not own and not known_shape(task):  # a module's result on every host: nothing to template
            return unknown_result(task, check_mode(self.plan, task) is False, recovered)
        if not gate and not own and host_independent(task):  # constant values: the same on every host
            from engine.templating.templar import Templar

            templar: Templar = Templar({})  # nothing to template: no bounds to watch
        else:
            templar = self.templar_at(self.plan, play_plan, host, task, occurrence, outer=outer)
        with names_recorded(hostvars_alike=True, memberships=True) if read is not None else nullcontext() as names:
            effects = follow(task, templar, play_plan.play.basedir, self.plan.inventory.cache, own, gate,
                             self.plan.inventory.data.merge_hashes, recovered=recovered)
        if read is not None:
            read.update(names)
        data = task.data if isinstance(task.data, Mapping) else {}
        if data.get("delegate_facts") and data.get("delegate_to") and task.action in SET_FACT and \
                effects.delegated_each is None:
            try:
                effects.delegated_to = str(templar.template(data["delegate_to"]))
            except Exception:  # noqa: BLE001 - a target only the run knows: the facts go nowhere known
                effects.facts = [_unknown_layer(layer, f"delegated by task '{task.display_name()}' to a host only "
                                                       "the run knows") for layer in effects.facts]
        return effects


def narrow_reading(play_plan: PlayPlan, start: Any, templar_of: Callable[[frozenset[str] | None], Templar],
                   read: Callable[[Templar], _Read]) -> _Read:
    """``read(templar_of(names))``, the templar's walk of what earlier tasks set taken only for
    ``names`` (None: all of them; engine.variables.report.templar_at): first for the names the
    readings kept under ``start`` read on the hosts before (none at first), then for those this one
    read, until it reads no name it was not walked for. Its answer is then the whole walk's: each
    name it read has every layer that may set it. Every variable when it reads one by a computed
    name. A reading of a few names (a looping include's items, or its file's failing tasks, read on
    each host) walks a few setters, not every one before it."""
    memo = followed_memo(play_plan)
    names: frozenset[str] = memo.get(start, frozenset())
    for _ in range(_NARROW_TRIES):
        with names_recorded() as seen:
            found = read(templar_of(names))
        if READS_ALL in seen or HOSTVARS_ALIKE in seen:
            break
        if seen <= names:
            memo[start] = names
            return found
        names |= seen
    return read(templar_of(None))


def shared_earlier_layers(follower: Follower, play_plan: PlayPlan, host: Host, task: Task | None, occurrence: int,
                          outer: tuple[int, ...]) -> list[Layer]:
    """``follower.earlier_layers`` of this run of ``task`` on ``host`` (not under a looped include's
    items), once for all the hosts in the same plays when the tasks before set alike on every host."""
    if task is None or outer:
        return follower.earlier_layers(play_plan, host, task, occurrence, outer)  # type: ignore[no-any-return]
    def walk() -> list[Layer]:  # the first run's walk shared by the hosts whose walks read the same
        layers = partial(follower.earlier_layers, play_plan, host, task, occurrence, outer)
        share = getattr(follower.plan, "class_walk", None)  # engine.variables.walk_classes
        return share(follower, play_plan, host, task, None, "earlier layers", layers) if share and not occurrence \
            else layers()

    return list(once_per_plays(follower, play_plan, host, task, occurrence, None, "earlier layers", walk))


def once_per_plays(follower: Follower, play_plan: PlayPlan, host: Host, task: Task, occurrence: int,
                   names: frozenset[str] | None, what: str, walk: Callable[[], Any]) -> Any:
    """``walk()`` (``what`` the walk of the tasks before this run of ``task`` gives ``host``, for
    ``names``), once for all the hosts in the same plays when that walk is the same on each of them
    (:func:`uniform_walk`); else ``host``'s own."""
    plan = follower.plan
    memo = followed_memo(play_plan)
    if not kept_uniform_walk(follower, play_plan, task, occurrence, names):
        return walk()
    membership = tuple(host.name in host_names(earlier) for earlier in plays_before(plan, play_plan, True))
    key = (what, id(task), occurrence, names, membership)
    kept = memo.get(key)
    if kept is None or kept[0] is not plan:
        kept = memo[key] = (plan, walk())
    return kept[1]


def _runs_nowhere(planned: list[Mapping[str, bool | str]], receivers: list[str]) -> bool:
    """Whether the plan has runs of a task (``planned``) and none of them on any of ``receivers``."""
    return bool(planned) and all(found.get(name) is False for found in planned for name in receivers)


def kept_uniform_walk(follower: Follower, play_plan: PlayPlan, task: Task, occurrence: int,
                      names: frozenset[str] | None) -> bool:
    """:func:`uniform_walk`, once per task, run and names while the files stay the same."""
    memo = followed_memo(play_plan)
    uniform = memo.get(("uniform walk", id(task), occurrence, names))
    if uniform is None or uniform[0] is not follower.plan:
        uniform = memo[("uniform walk", id(task), occurrence, names)] = (
            follower.plan, uniform_walk(follower, play_plan, task, names, occurrence))
    return uniform[1]  # type: ignore[no-any-return]


def _layers_of(play_plan: PlayPlan, walk: tuple[str, frozenset[str] | None],
               effects: list[Effects]) -> tuple[list[Layer], list[Layer]]:
    """The layers of ``effects`` (what the plays before ``play_plan`` set on a host, for names:
    ``walk``, as engine.variables.earlier_walk keeps it): the include_vars ones, then the set_fact
    and register ones; once while that list is the same, not at every task of the play reading them."""
    memo = followed_memo(play_plan)
    key = ("layers of the plays before", *walk)
    kept = memo.get(key)
    if kept is None or kept[0] is not effects:
        kept = memo[key] = (effects, [layer for found in effects for layer in found.included],
                            [layer for found in effects for layer in found.facts])
    return kept[1], kept[2]


def _delegates_facts(task: Task) -> bool:
    data = task.data if isinstance(task.data, Mapping) else {}
    return bool(data.get("delegate_facts"))


def followed_memo(play_plan: PlayPlan) -> dict[Any, Any]:
    """What was followed on the play's hosts since the files last changed: one store per play for
    this module's walks and those the per-host model keeps beside them (hostvars read, include item
    keys, walk classes), emptied together when a file changes."""
    derived = play_plan.play.derived
    now = files_state()
    kept = derived.get("host effects")
    # a stale store is kept while following (all of it would start over); a dropped one begun again
    if kept is None or kept[0] != now and not _following:  # (else each walk would keep in one of its own)
        kept = derived["host effects"] = (now, {})
    return kept[1]  # type: ignore[no-any-return]

"""Where a block's tasks fail one host before the run, for what the host's rescues set: each
task once per host (an assertion, a ``fail``, a ``failed_when``, read at each item of a looping
include around it), and the ``ansible_failed_task`` and ``ansible_failed_result`` a rescue gives.
A part of engine.variables.host_runtime's ``Follower``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from engine.flow.block_failures import section_tasks
from engine.flow.loops import loop_of
from engine.templating.read_names import names_recorded
from engine.variables.block_runs import failing_task, fails_by_condition, play_blocks
from engine.variables.failure_facts import failure_facts
from engine.variables.include_stops import Stop, caught_within, may_stop
from engine.variables.loop_vars import copy_items
from engine.variables.sources import Layer, RuntimeValue

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


class BlockFailures:
    """Whether and where the tasks of blocks with a ``rescue`` fail a host (engine.variables.block_runs)."""

    plan: Plan
    order_of: Any
    item_order: Any
    templar_at: Any
    _include_stop: Any
    _given_by_another: Any
    memo: Any

    def _fails_on(self, play_plan: PlayPlan, host: Host) -> Callable[[Task], bool | str]:
        """Whether a task fails on ``host`` (engine.variables.block_runs.fails), each task once."""
        memo = self.memo(play_plan)

        def fails_on_host(earlier: Task) -> bool | str:
            key = ("fails", id(earlier), host.name, id(self.plan.inventory))
            if key not in memo and not self._loaded_on(play_plan, host, earlier):
                memo[key] = False  # a file this host does not load (another file, a run_once include's)
            if key not in memo:  # asked again while worked out (its templar reads the block): the run's
                memo[key] = f"task '{earlier.display_name()}' fails or not as the run decides"
                own = self._own_item(play_plan, earlier)
                loops = self.order_of(play_plan.play).looping(earlier)
                if len(loops) == 1 and not own:
                    memo[key] = self._fails_per_item(play_plan, host, earlier, loops[0])
                else:
                    memo[key] = self._fails_by_class(play_plan, host, earlier, own)
            return memo[key]  # type: ignore[no-any-return]

        return fails_on_host

    def _fails_by_class(self, play_plan: PlayPlan, host: Host, task: Task, own: tuple[int, ...]) -> bool | str:
        """Whether ``task`` fails ``host``, worked out once per class of hosts whose variables agree on
        what its conditions and arguments read (engine.variables.setter_classes.by_class, as a
        setter's effects are; the plan hands it over, below the class keys it reads): not once per
        host of a fleet."""
        from engine.variables.block_runs import fails

        def follow(read: set[str] | None) -> bool | str:
            with names_recorded(hostvars_alike=True, memberships=True) if read is not None else nullcontext() as names:
                found = fails(task, self.templar_at(self.plan, play_plan, host, task, 0, own),
                              self._gate(play_plan, task), id(task) not in section_tasks(play_plan.play)[0])
            if read is not None:
                read.update(names)
            return found

        by_class = getattr(self.plan, "share_by_class", None)  # given by the plan (setter_classes.share_setters)
        if own or by_class is None:
            return follow(None)
        key = ("failure classes", id(task), id(self.plan.inventory))
        return by_class(self.plan, play_plan, self.memo(play_plan), key, host, task, follow)  # type: ignore[no-any-return]

    def _fails_per_item(self, play_plan: PlayPlan, host: Host, task: Task, include: Task) -> bool | str:
        """Whether ``task``, which the looping ``include`` loads once per item, fails ``host``: read
        at each item (the include's ``when`` too). At none: False; at the first: True; at a later
        one only, which task of the file fails first is the run's to order (another's run at an
        earlier item may fail first), as is any item whose run only the run decides."""
        from engine.variables.block_runs import fails

        label = f"task '{task.display_name()}'"
        order = self.item_order(self.plan, play_plan, host, task, include)
        if order is None or -1 in order:
            return f"{label} runs once per item of the include '{include.display_name()}', whose items only the " \
                   "run knows"
        stop = self._include_stop(play_plan, host, task, [include], order)
        if isinstance(stop, Stop) and id(task) in stop.tasks and may_stop(task, caught_within(play_plan.play, include)):
            return stop.task is task  # the first failure of the file, item by item: the others do not get to fail
        gate = self._gate(play_plan, task)
        found = [fails(task, self.templar_at(self.plan, play_plan, host, task, 0, (index,)), gate,
                       id(task) not in section_tasks(play_plan.play)[0]) for index in order]
        if not found or all(each is False for each in found):
            return False
        if found[0] is True:
            return True
        first = next(each for each in found if each is not False)
        return first if isinstance(first, str) else \
            f"{label} fails at item {found.index(True) + 1} of its include, where a task of the file may fail first"

    def _failing_run(self, play_plan: PlayPlan, host: Host, task: Task) -> tuple[int, ...]:
        """The items of the looping include around ``task`` at which it fails ``host``, when it is
        where the host stops running the file (engine.variables.include_stops); else its own item."""
        own = self._own_item(play_plan, task)
        loops = self.order_of(play_plan.play).looping(task)
        if own or len(loops) != 1:
            return own
        order = self.item_order(self.plan, play_plan, host, task, loops[0])
        stop = self._include_stop(play_plan, host, task, loops, order) if order is not None and -1 not in order \
            else None
        return stop.run if isinstance(stop, Stop) and stop.task is task else own

    def _own_item(self, play_plan: PlayPlan, task: Task) -> tuple[int, ...]:
        """The item of the looping include around ``task`` when it is in the copy of the file the
        loader made for that item (a loop written out): its runs read that item; else ``()``."""
        def found() -> tuple[int, ...]:
            loops = self.order_of(play_plan.play).looping(task)
            own = copy_items(task, loops)[0] if len(loops) == 1 else None
            return (own,) if own is not None else ()

        return self.order_of(play_plan.play).per_task("own item", task, found)  # type: ignore[no-any-return]

    def _gate(self, play_plan: PlayPlan, task: Task) -> list[Any]:
        """The conditions ``task`` checks, those of the includes that load it first."""
        return [c.value for include in self.order_of(play_plan.play).includers.get(id(task), [])
                for c in include.effective_when()] + [c.value for c in task.effective_when()]

    def _rescued(self, play_plan: PlayPlan, host: Host, before: int | None) -> list[Layer]:
        """What the rescues that started on ``host`` among the play's first ``before`` tasks (and
        the reader's own, when it is the first of its rescue; None: all of them) gave it:
        ``ansible_failed_task`` and ``ansible_failed_result`` of the task that failed there,
        unknown when only the run knows which fails."""
        blocks = play_blocks(play_plan.play)
        positions = self.order_of(play_plan.play).positions
        started = sorted((positions[id(first)][0], block, first) for block, first in blocks.rescue_starts.items()
                         if positions.get(id(first)) and (before is None or positions[id(first)][0] <= before))
        layers = []
        for _, block, first in started:
            failed = failing_task(blocks, block, self._fails_on(play_plan, host))
            if failed is None:
                continue
            reader = f"task '{first.display_name()}'"
            if isinstance(failed, str):
                layers.append(Layer("set_fact / register", f"a rescue starting at {reader}",
                                    {name: RuntimeValue(f"whether and where the block fails before {reader}: {failed}")
                                     for name in ("ansible_failed_task", "ansible_failed_result")}, runtime=True))
            else:
                run = self._failing_run(play_plan, host, failed)
                templar = self.templar_at(self.plan, play_plan, host, failed, 0, run)
                gate = self._gate(play_plan, failed)  # a looped task's own conditions are its items'
                gate = gate[:len(gate) - len(failed.effective_when())] if loop_of(failed) is not None else gate
                layers.append(failure_facts(failed, templar, reader, fails_by_condition(templar, gate),
                                            (play_plan.play.basedir, self.plan.inventory.cache)))
        return layers

    def _loaded_on(self, play_plan: PlayPlan, host: Host, task: Task) -> bool:
        """Whether ``host`` loads ``task`` at all: not a task of a file its include names otherwise,
        nor of one a ``run_once`` include loads on its batch's first host only."""
        from engine.flow.run_settings import runs_once
        from engine.loading import keywords as kw

        order = self.order_of(play_plan.play)
        loaded_on = order.loaded_on.get(id(task))
        if loaded_on is not None and host.name not in loaded_on:
            return False
        return not any(include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS and runs_once(include) and
                       self._given_by_another(play_plan, host, include)
                       for include in order.includers.get(id(task), []))

    def _blocks_per_item(self, play_plan: PlayPlan, task: Task) -> frozenset[int]:
        """The blocks with a ``rescue`` around ``task`` inside the file the one looping include
        around it loads once per item (not a copy of the file for one item): each item's run of the
        file fails into them, or not, on its own, and the file goes on at the next item."""
        from engine.variables.block_runs import play_blocks

        def found() -> frozenset[int]:
            loops = self.order_of(play_plan.play).looping(task)
            if len(loops) != 1 or self._own_item(play_plan, task):
                return frozenset()
            blocks = play_blocks(play_plan.play)
            around = {block for block, _ in blocks.paths.get(id(loops[0]), ())}
            return frozenset(block for block, _ in blocks.paths.get(id(task), ())
                             if block in blocks.rescuing and block not in around)

        return self.order_of(play_plan.play).per_task("blocks per item", task, found)  # type: ignore[no-any-return]

    def _ran_at_item(self, play_plan: PlayPlan, host: Host, task: Task, run: tuple[int, ...]) -> bool | str:
        """Whether ``task``'s ``run`` (its item of the looping include around it) happened on ``host``,
        as the blocks with a ``rescue`` inside the included file decide at that item: a task of the
        block section after one failing at the item does not run there, the rescue runs there only."""
        from engine.variables.block_runs import fails, play_blocks, runs_there

        inner = self._blocks_per_item(play_plan, task)
        if not inner or not run or run[0] < 0:
            return True
        memo = self.memo(play_plan)

        def fails_at_item(earlier: Task) -> bool | str:
            key = ("fails at item", id(earlier), host.name, run, id(self.plan.inventory))
            if key not in memo:  # asked again while worked out: the run's
                memo[key] = f"task '{earlier.display_name()}' fails or not as the run decides"
                memo[key] = fails(earlier, self.templar_at(self.plan, play_plan, host, earlier, 0, run),
                                  self._gate(play_plan, earlier), id(earlier) not in section_tasks(play_plan.play)[0])
            return memo[key]  # type: ignore[no-any-return]

        return runs_there(play_blocks(play_plan.play), task, None, fails_at_item, deciding=inner.__contains__)


"""The program each host walks in a play: its blocks with rescue and always sections.

A generator per host yields the next task and gets back the :class:`~engine.run.actions.Step` the
strategy made of it, so that a failure sends the host to its block's rescue, then always, and
included files run in place, as ansible's PlayIterator walks a host's state.
"""

from __future__ import annotations

from collections.abc import Generator

from engine.loading.model import Block, Task
from engine.run.actions import META, HostRun, Step

Program = Generator[Task, Step, bool]


class HostPrograms:
    """The per-host walk of :class:`~engine.run.executor.Executor` (a mixin: it holds no state of its own)."""

    def _finish_host(self, run: HostRun, failed: bool) -> None:
        run.ended = True
        if run.host.name in self.context.hosts_left:
            self.context.hosts_left.remove(run.host.name)
        if failed:
            run.failed = True
            self.failed_hosts.add(run.host.name)

    def _program(self, run: HostRun, blocks: list[Block]) -> Program:
        for block in blocks:
            failed = yield from self._block(run, block)
            if failed or run.ended:
                if failed and not run.ended:
                    self._finish_host(run, True)
                return failed
        if run.failed:  # marked failed, and its rescue went well
            self.marked_ok.add(run.host.name)
        self._finish_host(run, False)
        return False

    def _block(self, run: HostRun, block: Block) -> Program:
        has_rescue = any(self._selectable(t) for t in _section_tasks(block.rescue))
        run.rescue_depth.append(has_rescue)
        failed = bool((yield from self._section(run, block.block)))
        run.rescue_depth.pop()
        rescued = False
        while True:
            if failed and has_rescue and not run.ended and not rescued:
                rescued = True
                run.rescue_depth.append(False)
                failed = bool((yield from self._section(run, [*self._carried(run, block, True), *block.rescue])))
                run.rescue_depth.pop()
            if run.ended and (not failed or run.host.name in self.unreachable_hosts):
                return failed  # ended, or unreachable: the strategy gives the host no more task, always's neither
            run.rescue_depth.append(False)
            always = [*self._carried(run, block, False), *block.always]
            always_failed = yield from self._section(run, always, not_entered=not failed)
            run.carried = []  # what an include in the always section left: the host's state is complete
            run.rescue_depth.pop()
            if always_failed is None and rescued:  # marked at the end of its rescue: the rescue
                # failed, the always section runs from its start, then the host fails
                run.rescue_depth.append(False)
                yield from self._section(run, block.always)
                run.rescue_depth.pop()
                return True
            if always_failed is None:  # marked before the always section: the block's tasks failed
                failed = True
                continue
            return failed or bool(always_failed)

    def _section(self, run: HostRun, items: list[Block | Task],
                 not_entered: bool = False) -> Generator[Task, Step, bool | None]:
        """A host marked failed before a task fails the section it is in (ansible's
        ``mark_host_failed``). ``not_entered``: an always section reached without a failure,
        which ansible's iterator enters only when asked for its first task: a mark before it
        fails the block's own tasks (None, so the rescue section runs first, if any)."""
        first = True
        for item in items:
            if isinstance(item, Block):
                failed = yield from self._block(run, item)
            elif not self._selectable(item) or self._ended_role(run, item):
                continue
            else:
                step = yield item
                if step.marked:
                    return None if not_entered and first else True
                failed = step.outcome is not None and step.outcome.status in ("failed", "unreachable") \
                    and not step.outcome.ignored
                if step.marked_after and not failed:  # marked once it ran this task: its section fails
                    return True
                if failed and step.include_failed:  # the files it did include go to the rescue or always
                    run.carried = list(step.blocks)
                if failed and not any(run.rescue_depth) and run.host.name in self.context.hosts_left:
                    # mark_host_failed: out of ansible_play_hosts at once, unless a rescue takes
                    # the failure (an always section, force_handlers' flush, still runs)
                    self.context.hosts_left.remove(run.host.name)
                for included in step.blocks:
                    if failed or run.ended:
                        break
                    failed = yield from self._block(run, included)
            first = False
            if failed or run.ended:
                return failed
        return False

    def _carried(self, run: HostRun, block: Block, rescue: bool) -> list[Block]:
        """What a looped include that failed on a missing file did include, for the section the
        host goes to (add_tasks after mark_host_failed): the block's rescue, else its always;
        none when the block has neither (the host's state is complete there)."""
        carried, run.carried = run.carried, []
        return carried if rescue or any(self._selectable(t) for t in _section_tasks(block.always)) else []

    def _ended_role(self, run: HostRun, task: Task) -> bool:
        """Whether ``meta: end_role`` leaves ``task`` out (every task up to its role's role_complete)."""
        if run.ending_role is None:
            return False
        if task.implicit and task.action in META and task.args.get("_raw_params") == "role_complete" \
                and task.role is run.ending_role:
            run.ending_role = None
            return False
        return True


def _section_tasks(items: list[Block | Task]) -> list[Task]:
    return [t for item in items for t in (item.tasks() if isinstance(item, Block) else [item])]

"""How :class:`~engine.run.executor.Executor` runs the handlers a flush point reaches (a mixin:
it holds no state of its own): each notified handler on its hosts, in definition order, and the
tasks a handler's include loaded right after it."""

from __future__ import annotations

from engine.loading.model import Task
from engine.run.actions import META
from engine.run.callback import Outcome
from engine.run.free import BYPASS_HOST_LOOP


class HandlerRuns:
    """Handlers in :class:`~engine.run.executor.Executor`."""

    def _flush_handlers(self, names: list[str]) -> dict[str, Outcome]:
        """The notified handlers on ``names``; returns the hosts a handler failed inside a block
        with a rescue, with that outcome (``PlayIterator.mark_host_failed``: the host leaves the
        flush for the block's rescue, its other handlers still notified)."""
        self.flush_rescued: dict[str, Outcome] = {}
        for handler, hosts in self.handlers.due(names):
            self._run_handler(handler, hosts)
            names[:] = [name for name in names if name not in self.flush_rescued]
        return self.flush_rescued

    def _run_handler(self, handler: Task, hosts: list[str]) -> None:
        """One handler on its hosts; the tasks a handler's include loaded run next, as handlers
        of the hosts that loaded them (the iterator inserts each included block's tasks there)."""
        hosts = [name for name in hosts if not self.runs[name].ended]
        if not hosts:  # its hosts failed in a handler before it: the strategy gives it to none
            return
        title = self._title(handler, hosts[0] if handler.action not in META else None)
        self.callback.task_start(title, handler=True)
        once = bool(hosts) and self._run_once(handler, hosts[0])
        included: dict[int, tuple[Task, list[str]]] = {}
        # a run_once handler (or a BYPASS_HOST_LOOP action) runs for the first host
        for name in hosts[:1] if once or handler.action in BYPASS_HOST_LOOP else hosts:
            run = self.runs[name]
            step = self._run_on_host(handler, run, title, handler=True, once=once)
            if step.outcome and step.outcome.status == "failed" and not step.outcome.ignored:
                if step.outcome.rescued:
                    self.flush_rescued[name] = step.outcome
                else:
                    self._finish_host(run, True)
            for task in (t for block in step.blocks for t in block.block if isinstance(t, Task)):
                included.setdefault(id(task), (task, []))[1].append(name)
        self._announce_includes()
        for task, loaded_on in included.values():
            self._run_handler(task, loaded_on)

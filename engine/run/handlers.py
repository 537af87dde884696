"""Handlers: notified by changed results, run at flush points in definition order, once per
flush for every host that notified them (which handlers a notification reaches: engine.notify).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model import Block, Task
from engine.notify import notifications, search_handlers
from engine.templar import Templar, TemplateFailure


class Handlers:
    def __init__(self, blocks: list[Block]) -> None:
        self.tasks: list[Task] = [task for block in blocks for task in block.tasks() if not task.implicit]
        self.notified: dict[int, list[str]] = {}
        self.unknown: list[str] = []

    def notify(self, task: Task, host: str, templar: Templar) -> None:
        """Record the notifications of ``task``'s changed result on ``host``."""
        for raw in notifications(task):
            try:
                name = str(templar.template(raw))
            except TemplateFailure:
                name = str(raw)
            found = search_handlers(self.tasks, name)
            if not found and name not in self.unknown:
                self.unknown.append(name)
            for handler in found:
                hosts = self.notified.setdefault(id(handler), [])
                if host not in hosts:
                    hosts.append(host)

    def due(self, hosts: list[str]) -> Iterator[tuple[Task, list[str]]]:
        """Each notified handler with the hosts (of ``hosts``) to run it on, in definition
        order; a notification made while flushing reaches the handlers after the current one."""
        for handler in self.tasks:
            notified = self.notified.get(id(handler), [])
            now = [h for h in hosts if h in notified]
            if now:
                self.notified[id(handler)] = [h for h in notified if h not in now]
                yield handler, now

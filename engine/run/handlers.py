"""Handlers: notified by changed results, run at flush points in definition order.

A handler is notified by its name, by ``role : name`` for a role's handler, or by any topic
it ``listen``s to; it runs once per flush for every host that notified it.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model import Block, Task
from engine.run.task_runner import keyword
from engine.templar import Templar, TemplateFailure


class Handlers:
    def __init__(self, blocks: list[Block]) -> None:
        self.tasks: list[Task] = [task for block in blocks for task in block.tasks() if not task.implicit]
        self.notified: dict[int, list[str]] = {}
        self.unknown: list[str] = []

    @staticmethod
    def _names(handler: Task) -> set[str]:
        if not handler.name:
            return set()
        names = {str(handler.name)}
        if handler.role is not None:
            names.add(f"{handler.role.name} : {handler.name}")
        return names

    @staticmethod
    def _listens(handler: Task) -> list[str]:
        listen = handler.data.get("listen") if isinstance(handler.data, dict) else None
        return [str(t) for t in (listen if isinstance(listen, list) else [listen] if listen else [])]

    def _search(self, notification: str) -> list[Task]:
        """``StrategyBase.search_handlers_by_notification``: by name only the last handler loaded
        with that name (a role in ``roles:`` and imported again has its handlers twice), then every
        handler listening to the topic, one per handler name."""
        handlers = list(reversed(self.tasks))
        found = [next((h for h in handlers if notification in self._names(h)), None)]
        seen: set[str] = set()
        for handler in handlers:
            if notification in self._listens(handler):
                if handler.name and str(handler.name) in seen:
                    continue
                if handler.name:
                    seen.add(str(handler.name))
                found.append(handler)
        return [h for h in found if h is not None]

    def notify(self, task: Task, host: str, templar: Templar) -> None:
        """Record the notifications of ``task``'s changed result on ``host``."""
        value = keyword(task, "notify")
        for raw in value if isinstance(value, list) else [value] if value else []:
            try:
                name = str(templar.template(raw))
            except TemplateFailure:
                name = str(raw)
            found = self._search(name)
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

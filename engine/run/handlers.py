"""Handlers: notified by changed results, run at flush points in definition order, once per
flush for every host that notified them (which handlers a notification reaches: engine.notify).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from engine.model import Block, Frame, Play, Task, implicit_meta_block
from engine.notify import notifications, search_handlers
from engine.templar import Templar, TemplateFailure


class Handlers:
    def __init__(self, blocks: list[Block]) -> None:
        self.tasks: list[Task] = [task for block in blocks for task in block.tasks() if not task.implicit]
        self.notified: dict[int, list[str]] = {}
        self.unknown: list[str] = []

    def add(self, blocks: list[Block]) -> None:
        """An included role's handlers, after the play's (each handler once, however often the
        same include is loaded)."""
        known = {id(task) for task in self.tasks}
        self.tasks += [task for block in blocks for task in block.tasks()
                       if not task.implicit and id(task) not in known]

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


def forces_handlers(play: Play, templar: Templar, option: bool) -> bool:
    """The play's ``force_handlers`` (templated with the play's variables), else
    ``--force-handlers`` or ansible.cfg's ``force_handlers``."""
    from engine.booleans import boolean
    from engine.config import config_value

    data = play.data if isinstance(play.data, Mapping) else {}
    value = data.get("force_handlers")
    if value is None:
        value = option or config_value("ANSIBLE_FORCE_HANDLERS", "defaults", "force_handlers") or False
    try:
        return bool(boolean(templar.template(value)))
    except (TemplateFailure, TypeError, ValueError):
        return False


def play_blocks(play: Play, force: bool) -> list[Block]:
    """``Play.compile``: with ``force_handlers`` each section (pre_tasks, roles and tasks,
    post_tasks) is a block whose ``always`` flushes the handlers, so a host that fails still
    runs what it notified, then stops; an empty section holds a ``noop``."""
    if not force or play.flush is None:
        return play.compile()
    chain = tuple(play.flush.block[0].chain[:-1]) if isinstance(play.flush.block[0], Task) else ()
    blocks = []
    for section in (play.pre_tasks, [*play.roles, *play.tasks], play.post_tasks):
        wrapper = Block(Frame("block", "implicit block", None), implicit=True)
        wrapper.block = list(section) or [implicit_meta_block(chain, "noop")]
        wrapper.always = [play.flush]
        blocks.append(wrapper)
    return blocks

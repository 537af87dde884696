"""Handlers: notified by changed results, run at flush points in definition order, once per
flush for every host that notified them (which handlers a notification reaches: engine.flow.notify).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from engine.flow.notify import handler_names, handler_topics, notifications, search_handlers
from engine.loading.model import Block, Frame, Play, Task, implicit_meta_block
from engine.templating.load_time import is_template
from engine.templating.templar import Templar, TemplateFailure


class MissingHandler(Exception):
    """A changed result notified a handler the play does not have: ansible's strategy raises
    this while it reads the result (before showing it), which ends the playbook."""


def error_on_missing_handler() -> bool:
    from engine.config import config_flag

    return config_flag("ANSIBLE_ERROR_ON_MISSING_HANDLER", "defaults", "error_on_missing_handler")


class Handlers:
    def __init__(self, blocks: list[Block], name_templar: Callable[[Task], Templar] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        """``name_templar``: a templar of a handler's variables without a host, which its
        templated name is rendered with when a notification first looks for it."""
        self.tasks: list[Task] = [task for block in blocks for task in block.tasks() if not task.implicit]
        self.notified: dict[int, list[str]] = {}
        self.pending: dict[str, list[str]] = {}
        """Each host's notifications by name, resolved when it flushes: the handler a name
        reaches is the last loaded by then (an include may load another with the name)."""
        self.flushing = False
        self.name_templar = name_templar
        self.warn = warn
        self.templated: dict[int, str] = {}

    def _names(self, handler: Task) -> set[str]:
        """The names that notify ``handler``; a templated name as the strategy renders it, once
        and for good, with the play's variables (none of a host's): one that cannot be rendered
        is passed over this time, with ansible's warning when no topic can reach it either."""
        if self.name_templar is None or not handler.name or not is_template(str(handler.name)):
            return handler_names(handler)
        name = self.templated.get(id(handler))
        if name is None:
            try:
                name = str(self.name_templar(handler).template(str(handler.name)))
            except TemplateFailure as exc:
                if self.warn is not None and not handler_topics(handler):
                    self.warn(f"Handler '{handler.name}' is unusable because it has no listen topics and the name "
                              "could not be templated (host-specific variables are not supported in handler "
                              f"names). The error: {exc}")
                return set()
            self.templated[id(handler)] = name
        return {name} if handler.role is None else {name, f"{handler.role.name} : {name}"}

    def search(self, name: str) -> list[Task]:
        return search_handlers(self.tasks, name, self._names)

    def add(self, blocks: list[Block]) -> None:
        """An included role's handlers, after the play's (each handler once, however often the
        same include is loaded)."""
        known = {id(task) for task in self.tasks}
        self.tasks += [task for block in blocks for task in block.tasks()
                       if not task.implicit and id(task) not in known]

    def notify(self, task: Task, host: str, templar: Templar, warn: Callable[[str], None]) -> None:
        """Record the notifications of ``task``'s changed result on ``host``; raises
        :class:`MissingHandler` for one no handler answers (a warning when ansible.cfg says so)."""
        for name in self._templated(notifications(task), templar):
            found = self.search(name)
            if not found:
                message = (f"The requested handler '{name}' was not found in either the main handlers list nor in the "
                           "listening handlers list")
                if error_on_missing_handler():
                    raise MissingHandler(message)
                warn(message)
            if not self.flushing:
                if name not in self.pending.setdefault(host, []):
                    self.pending[host].append(name)
                continue
            for handler in found:  # a handler's notification reaches the handlers after it now
                self._notify_host(handler, host)

    @staticmethod
    def _templated(written: list[str], templar: Templar) -> Iterator[str]:
        """The handler names ``written`` notifies: ``notify`` is a list attribute, so a template
        that renders a list (``"{{ ['restart'] | product(services) | map('join', ' ') | list }}"``)
        names each of its items."""
        for raw in written:
            try:
                value = templar.template(raw)
            except TemplateFailure:
                value = raw
            yield from (str(item) for item in value) if isinstance(value, list) else (str(value),)

    def notify_result(self, task: Task, host: str, result: Mapping[str, object], looped: bool,
                      templar: Templar, warn: Callable[[str], None]) -> None:
        """The notifications of ``task``'s changed result: a loop's are each item's (its
        ``notify`` templated with the item, as each item's ``_ansible_notify`` holds it; an item
        its ``when`` skipped has none), whichever items changed, as the strategy reads them."""
        items = result.get("results")
        if not looped or not isinstance(items, list):
            self.notify(task, host, templar, warn)
            return
        for item in items:
            if not isinstance(item, Mapping) or item.get("skip_reason") == "Conditional result was False":
                continue
            scope = {name: item[name] for name in ("ansible_loop",) if name in item}
            for var in (item.get("ansible_loop_var"), item.get("ansible_index_var")):
                if isinstance(var, str) and var in item:
                    scope[var] = item[var]
            self.notify(task, host, templar.child(scope), warn)

    def _notify_host(self, handler: Task, host: str) -> None:
        hosts = self.notified.setdefault(id(handler), [])
        if host not in hosts:
            hosts.append(host)

    def nothing_notified(self, host: str) -> bool:
        """The iterator skips an implicit flush_handlers for ``host`` (no get_vars, no result):
        nothing notified for it, and no handler notified for any host."""
        return not self.pending.get(host) and not any(self.notified.values())

    def due(self, hosts: list[str]) -> Iterator[tuple[Task, list[str]]]:
        """Each notified handler with the hosts (of ``hosts``) to run it on, in definition
        order; a notification made while flushing reaches the handlers after the current one."""
        for host in hosts:
            for name in self.pending.pop(host, []):
                for handler in self.search(name):
                    self._notify_host(handler, host)
        self.flushing = True
        try:
            for handler in self.tasks:
                notified = self.notified.get(id(handler), [])
                now = [h for h in hosts if h in notified]
                if now:
                    self.notified[id(handler)] = [h for h in notified if h not in now]
                    yield handler, now
        finally:
            self.flushing = False


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


def template_notify(task: Task, templar: Templar) -> None:
    """``notify`` templated as ``post_validate`` templates it for each run of the task (before
    ``environment`` and the arguments, whether or not the task changes anything): raises
    TemplateFailure worded as ansible's "Error processing keyword 'notify'" when it cannot be."""
    data = task.data if isinstance(task.data, Mapping) else {}
    value = data.get("notify")
    items = value if isinstance(value, list) else [value]
    if not any(is_template(item) for item in items):
        return
    item_spans = list(getattr(value, "item_spans", ()))
    where = getattr(data, "value_spans", {}).get("notify")
    for index, item in enumerate(items):
        try:
            templar.template(item)
        except TemplateFailure as exc:
            from engine.run.error_block import Event
            from engine.templating.errors import undefined_cause, value_origin

            span = item_spans[index] if isinstance(value, list) and index < len(item_spans) else where
            origin = value_origin(exc) if undefined_cause(exc) else None
            failure = TemplateFailure(f"Task failed: Error processing keyword 'notify': {exc}")
            failure.events = [Event("Error processing keyword 'notify'.", where),  # type: ignore[attr-defined]
                              Event(str(exc), origin or span)]
            raise failure from exc


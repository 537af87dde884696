"""Which handlers a notification reaches, and where a play runs them.

A handler is notified by its name, by ``role : name`` for a role's handler, or by any topic it
``listen``s to (``role : topic`` too in a role; ``StrategyBase.search_handlers_by_notification``);
a notified handler runs at the next flush point (the end of ``pre_tasks``, of ``roles`` and
``tasks``, of ``post_tasks``, and every ``meta: flush_handlers``), once per flush, in the order
the handlers are written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from engine.loading import keywords as kw
from engine.loading.model import Task
from engine.templating.load_time import is_template


def handler_names(handler: Task) -> set[str]:
    """The names that notify ``handler``: its name, and ``role : name`` in a role."""
    if not handler.name:
        return set()
    names = {str(handler.name)}
    if handler.role is not None:
        names.add(f"{handler.role.name} : {handler.name}")
    return names


def handler_topics(handler: Task) -> list[str]:
    """The topics ``handler`` listens to; in a role, each also as ``role : topic``
    (``Handler._validate_listen``)."""
    listen = handler.data.get("listen") if isinstance(handler.data, dict) else None
    topics = [str(t) for t in (listen if isinstance(listen, list) else [listen] if listen else [])]
    if handler.role is None:
        return topics
    return [*topics, *(f"{handler.role.name} : {topic}" for topic in topics)]


def search_order(handlers: list[Task]) -> list[Task]:
    """``handlers`` (in the order they were loaded) as ``search_handlers_by_notification`` reads
    them: the handler blocks last first, but each block's handlers in their order (consecutive
    bare handlers of a file are one implicit block)."""
    groups: list[list[Task]] = []
    for handler in handlers:
        if groups and handler.handler_block is not None and groups[-1][-1].handler_block is handler.handler_block:
            groups[-1].append(handler)
        else:
            groups.append([handler])
    return [handler for group in reversed(groups) for handler in group]


def search_handlers(handlers: list[Task], notification: str,
                    names: Callable[[Task], set[str]] = handler_names) -> list[Task]:
    """``search_handlers_by_notification`` over ``handlers`` in the order they were loaded: by
    name only the first handler :func:`search_order` meets with that name (the last block's: a
    role in ``roles:`` and imported again has its handlers twice; the first of one file's), then
    every handler listening to the topic, one per handler name. ``names``: the names that notify
    a handler (a run gives them templated)."""
    newest_first = search_order(handlers)
    found = [next((h for h in newest_first if notification in names(h)), None)]
    seen: set[str] = set()
    for handler in newest_first:
        if notification in handler_topics(handler):
            if handler.name and str(handler.name) in seen:
                continue
            if handler.name:
                seen.add(str(handler.name))
            found.append(handler)
    return [h for h in found if h is not None]


def notifications(task: Task) -> list[str]:
    """What ``task`` notifies when it changes something, as written (a templated name is kept
    as its template: only the run knows its value)."""
    value = getattr(task.effective("notify"), "value", None)
    return [str(n) for n in (value if isinstance(value, list) else [value] if value else [])]


def is_flush(task: Task) -> bool:
    return task.action in kw.META and isinstance(task.args, dict) and task.args.get("_raw_params") == "flush_handlers"


def with_handler_runs(play: Any, tasks: Iterable[tuple[Task, list[Task]]],
                      loaded: Callable[[Task], bool] | None = None, handlers: list[Task] | None = None,
                      notified: list[str] | None = None) -> Iterator[tuple[Task, list[Task]]]:
    """``tasks`` (a play's tasks in run order, each with its includers) with the handlers where
    they would run if every notifying task changed something: after each flush point, each
    handler notified since the one before. A handler no task notifies as written (its name is
    templated, or only an include the loader cannot follow notifies it) comes once, at the end. The handlers an
    ``include_role`` brings join the play's when it is reached, as in a run.

    Per host (``loaded`` given, asked once the caller has planned an include_role: whether a
    run may include it on some host): the handlers the include adds join ``handlers`` (the
    play's, kept up to date for the caller) only if it may, and a notification stays pending after an
    explicit ``flush_handlers``, which may not run on every host: its handlers come again at the
    next flush point; for the values (``loaded`` None), after one whose ``when`` may be false.
    ``notified``: what tasks the caller planned outside ``tasks`` (those a run-time include loads)
    notified meanwhile, taken as pending here."""
    handlers = handlers if handlers is not None else []
    handlers[:] = [task for block in play.handlers for task in block.tasks() if not task.implicit]
    pending: list[str] = []
    ran: set[int] = set()
    # an include_role's handlers have the include as their parent (its vars): for the values of the
    # play's order (``loaded`` None; the plan decides a handler by its own notifications); a looping
    # include adds them again at each item, the last item's copy answering every notification
    brought: dict[int, list[Task]] = {}
    for task, outer in tasks:
        yield task, outer
        if task.child_handlers and (loaded(task) if loaded is not None else not _never_loads(task)):
            known = {id(handler) for handler in handlers}
            added = [h for block in task.child_handlers for h in block.tasks() if not h.implicit and id(h) not in known]
            handlers += added
            if loaded is None:
                brought.update((id(h), [*outer, task]) for h in added)
        if not task.implicit or task.action not in kw.META:
            pending += notifications(task)
        if notified:
            pending += notified
            notified.clear()
        looping = looping_notifications(outer, task) if loaded is not None and is_flush(task) else set()
        if is_flush(task) and (pending or looping):
            due = {id(h) for name in (*pending, *looping) for h in search_handlers(handlers, name)}
            if loaded is not None and any(is_template(name) for name in (*pending, *looping)):
                due |= {id(h) for h in handlers}  # a templated name may name any of them
            if loaded is None and not _may_skip(task) or task.implicit:
                pending = []
            for handler in list(handlers):
                if id(handler) in due:
                    ran.add(id(handler))
                    yield handler, brought.get(id(handler), [])
                    yield from with_includers(handler.children, [*brought.get(id(handler), []), handler])
                    # a handler's own notifications reach the handlers after it in this flush
                    due |= {id(h) for name in notifications(handler) for h in search_handlers(handlers, name)}
    for handler in list(handlers):
        if id(handler) not in ran and not (loaded is None and _shadowed(handler, handlers)):
            yield handler, brought.get(id(handler), [])
            yield from with_includers(handler.children, [*brought.get(id(handler), []), handler])


def _may_skip(flush: Task) -> bool:
    """Whether an explicit ``flush_handlers`` may flush nothing on a host: a ``when`` on the way to
    it may be false there. What was notified before it then waits for the next flush point on such
    a host, so the play's order (``loaded`` None: the values') has its handlers there again, as the
    plan lists them."""
    return any(condition.value is not True for condition in flush.effective_when())


def _never_loads(include: Task) -> bool:
    """Whether ``include`` runs on no host whatever the values: a ``when`` on the way to it is a
    constant false (``when: false``); its role's handlers never join the play's."""
    return any(condition.value is False for condition in include.effective_when())


def _shadowed(handler: Task, handlers: list[Task]) -> bool:
    """Whether no notification can reach ``handler``: every name and topic it answers to reaches
    a handler loaded after it with its name instead (a role include_role brought in again), so the
    run never runs it."""
    keys = [*handler_names(handler), *handler_topics(handler)]
    return bool(keys) and all(handler not in search_handlers(handlers, key) for key in keys)


def looping_notifications(includers: Iterable[Task], flush: Task | None = None) -> set[str]:
    """What the tasks of the looping includes among ``includers`` notify: a flush point inside
    them runs once per item, so what an item notifies after it is flushed by the next item.
    ``flush``: that flush point; only the tasks after it count (what an item notifies before it
    is flushed there, in the same item), unless it is not found among them."""
    from engine.flow.loops import loop_of

    every: set[str] = set()
    after: set[str] = set()
    found = False
    for include in includers:
        if loop_of(include) is not None:
            for task in _included_tasks(include.children):
                found = found or task is flush
                every.update(notifications(task))
                if found and task is not flush:
                    after.update(notifications(task))
    return after if found else every


def _included_tasks(blocks: Iterable[Any]) -> Iterator[Task]:
    """The tasks of ``blocks`` in order, those an include loads after the include."""
    for block in blocks:
        for task in block.tasks():
            yield task
            yield from _included_tasks(task.children)


def with_includers(blocks: Iterable[Any], outer: list[Task]) -> Iterator[tuple[Task, list[Task]]]:
    """The tasks of ``blocks`` in order, those of includes after the include, each with the
    include tasks that load it (``outer`` first)."""
    for block in blocks:
        for task in block.tasks():
            yield task, outer
            if task.children:
                yield from with_includers(task.children, [*outer, task])

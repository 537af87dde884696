"""A templated ``notify`` (``notify: "{{ 'reload' if role == 'db' else 'tell' }}"``) as a host's
run names it: ansible templates the task's ``notify`` with the host's variables at the task, then
finds the handlers by the names it gives (a handler's name or a ``listen`` topic). The plan
(engine.flow.host_handlers) renders it once per host and notifying task, with the variables the
host has there; a name that reads what only the run knows (a loop item, a registered result not
known yet) or that reaches no handler (ansible fails the notifying task then) is left to the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.flow import notify
from engine.templating.load_time import is_template
from engine.variables.change_classes import HostClasses
from engine.variables.walk_classes import host_classes

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task


def notified_names(plan: Plan, play_plan: PlayPlan, host: Any, task: Task,
                   read: set[str] | None = None) -> list[str] | None:
    """The names ``task``'s ``notify`` gives on ``host`` (an inventory host), or None when only
    the run knows them. ``read``: the names recorded meanwhile (engine.templating.read_names),
    emptied once the host's variables at the task are worked out, so that it holds what the
    ``notify`` read."""
    from engine.variables.task_variables import variables_at

    names: list[str] = []
    try:
        templar = variables_at(plan, play_plan, host, task, []).templar  # (its templar alone: no name resolved)
        if read is not None:
            read.clear()
        for written in notify.notifications(task):
            value = templar.template(written) if is_template(written) else written
            values = value if isinstance(value, list) else [value]
            if not all(isinstance(name, str) for name in values):
                return None
            names += values
    except Exception:  # noqa: BLE001 - a name only the run gives (or one that fails there)
        return None
    return names


def notify_renderer(plan: Plan, play_plan: PlayPlan) -> Callable[[str, Task], tuple[str, ...] | None]:
    """:func:`notified_names` for a host of ``play_plan`` named as the plan names it. The hosts whose
    variables at the task answer the names the ``notify`` read alike (engine.variables.change_classes)
    are given what it gave the first host of their class: rendered once per class, not per host."""
    hosts = {host.name: host for host in play_plan.hosts}
    classes: dict[int, tuple[Task, HostClasses]] = {}

    def render(name: str, task: Task) -> tuple[str, ...] | None:
        host = hosts.get(name)
        if host is None:
            return None
        if len(hosts) < 2:
            return _as_tuple(notified_names(plan, play_plan, host, task))
        kept = classes.get(id(task))
        if kept is None:
            kept = classes[id(task)] = (task, HostClasses(plan, play_plan, task, host_classes))
        # (a tuple: the same object for the hosts of its class)
        return kept[1].value_of(  # type: ignore[no-any-return]
            host, lambda read: _as_tuple(notified_names(plan, play_plan, host, task, read)))

    return render


def _as_tuple(names: list[str] | None) -> tuple[str, ...] | None:
    return tuple(names) if names is not None else None


def reaches(handlers: list[Task], names: list[str], handler: Task) -> bool | None:
    """Whether the ``names`` a host's run notifies reach ``handler``; None when one of them reaches
    no handler (ansible fails the notifying task then: the run decides)."""
    found = False
    for name in names:
        reached = notify.search_handlers(handlers, name)
        if not reached:
            return None
        found = found or handler in reached
    return found

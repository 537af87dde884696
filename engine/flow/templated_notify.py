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

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task


def notified_names(plan: Plan, play_plan: PlayPlan, host: Any, task: Task) -> list[str] | None:
    """The names ``task``'s ``notify`` gives on ``host`` (an inventory host), or None when only
    the run knows them."""
    from engine.variables.task_variables import variables_at

    names: list[str] = []
    try:
        templar = variables_at(plan, play_plan, host, task, []).templar  # (its templar alone: no name resolved)
        for written in notify.notifications(task):
            value = templar.template(written) if is_template(written) else written
            values = value if isinstance(value, list) else [value]
            if not all(isinstance(name, str) for name in values):
                return None
            names += values
    except Exception:  # noqa: BLE001 - a name only the run gives (or one that fails there)
        return None
    return names


def notify_renderer(plan: Plan, play_plan: PlayPlan) -> Callable[[str, Task], list[str] | None]:
    """:func:`notified_names` for a host of ``play_plan`` named as the plan names it."""
    hosts = {host.name: host for host in play_plan.hosts}
    return lambda name, task: notified_names(plan, play_plan, hosts[name], task) if name in hosts else None


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

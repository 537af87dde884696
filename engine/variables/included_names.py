"""The names an ``include_vars`` whose file a template names may set, for
engine.variables.names_before: the keys of the files its arguments name with each host's values at
the task. The plan gives it (engine.variables.setter_classes.share_setters): it reads a host's
values at a task (engine.variables.report), which the walks below it do not import back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.sources import INCLUDE_VARS

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task


def followed_names(plan: Plan, play_plan: PlayPlan, order: Any, task: Task) -> frozenset[str] | None:
    """The names an ``include_vars`` whose file a template names may set on the play's hosts: the
    keys of the files its arguments name with each host's values at the task (class by class, as a
    ``group_by``'s hosts: engine.variables.change_classes), whether or not it runs there; None when
    one's file is the run's to know, it runs more than once (a loop, a handler), or its hosts cannot
    be taken class by class (its template reads ``hostvars``, ``vars``, a lookup)."""
    from engine.flow.loops import loop_of
    from engine.templating.read_names import names_recorded
    from engine.variables.change_classes import HostClasses
    from engine.variables.include_vars_files import include_vars_names
    from engine.variables.report import templar_at

    if task.action not in INCLUDE_VARS or task.handler or loop_of(task) is not None or \
            len(order.positions.get(id(task), ())) != 1 or \
            bool(order.looping(task)):
        return None
    classes = HostClasses(plan, play_plan, task)
    names: set[str] = set()
    for host in play_plan.hosts:
        found = classes.joined(host)
        if found is None:
            with names_recorded() as read:
                templar = templar_at(plan, play_plan, host, task)
                read.clear()  # the host's variables at the task are worked out: what the file's template reads
                found = (include_vars_names(task, play_plan.play.basedir, plan.inventory.cache, templar),)
            classes.add(host, read, found)
            if not classes.usable:
                return None  # each host on its own: what following every later task host by host costs
        if found[0] is None:
            return None
        names.update(found[0])
    data = task.data if isinstance(task.data, Mapping) else {}
    return frozenset({*names, *([str(data["register"])] if data.get("register") else [])})

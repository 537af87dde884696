"""Includes whose file only each host's variables name (``include_tasks: "tasks/{{ os }}.yml"``,
an ``include_role`` of a templated name), loaded for the variables of the tasks they load: the
target is templated on each host with what the host sees at the include (its inventory, cached
facts, what earlier tasks set: the same values its conditions see), each distinct file is loaded
once and its tasks placed after the include in the play's order. Which host runs which of them
is the plan's business (engine.flow.host_includes); here they only need their values.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.flow.loops import loop_of
from engine.flow.notify import with_includers
from engine.loading import keywords as kw
from engine.templating.errors import RunTimeOnly, TemplateFailure, cause_of
from engine.variables.inventory_changes import Changes
from engine.variables.play_order import add_loaded_tasks, play_order
from engine.variables.run_named_loads import could_load

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task

HOSTS_ASKED = 50
"""Hosts whose include targets are templated per include (a larger play: its first ones)."""


def unloaded_include(task: Task) -> bool:
    """An include the static model left without its tasks because its target is the host's (with
    a loop: each item may name a file or role, with the host's values)."""
    return task.action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE and not task.children and \
        task.include_target is not None and isinstance(task.args, Mapping)


def load_host_includes(plan: Plan) -> None:
    """Load every play's per-host includes, each host's file once (nested ones too), play after
    play, each play's hosts selected again where earlier plays' add_host/group_by changed the
    inventory (engine.variables.inventory_changes); then plan the run, whose failed and ended
    hosts the play lists of later tasks lose."""
    from engine.flow.host_includes import MAX_DEPTH, shared_loader
    from engine.variables.report import templar_at

    loader = shared_loader(plan)
    changes = Changes(plan)
    for play_plan in plan.plays:
        changes.select(play_plan)  # its hosts in the inventory earlier plays' add_host/group_by left
        order = play_order(play_plan.play)
        index = 0
        while index < len(order.tasks):  # the order grows as includes are loaded
            task = order.tasks[index]
            index += 1
            # as deep as the plan follows them (engine.flow.host_includes): a cycle of files
            # including each other would otherwise grow the order for ever
            if unloaded_include(task) and len(order.includers.get(id(task), [])) < MAX_DEPTH:
                _load(plan, play_plan, task, loader, templar_at)
        changes.follow(play_plan)
    _plan_removals(plan)


def _plan_removals(plan: Plan) -> None:
    """Leave planning the run, for the hosts each task's play lists have lost by then (failed,
    ended), to the first template that reads such a list (engine.variables.report._less_removed):
    planning costs as much as ``plan`` (a fleet's seconds), and only where a list can lose a host."""
    if any(_may_remove_hosts(play_plan) or _handler_sets(play_plan) or _repeats_roles(play_plan)
           for play_plan in plan.plays):
        plan.removals_pending = partial(plan_removals, plan)  # type: ignore[attr-defined]


def plan_removals(plan: Plan) -> None:
    """Plan the run, once: the plan's tag selection is made for it and dropped after (the values
    are shown for every task). The lists read while it plans are whole, as the plan reads them."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import PlanError, selected_run_tasks

    if getattr(plan, "removals_pending", None) is None:
        return
    from engine.variables.host_facts import cached_facts

    plan.removals_pending = None  # type: ignore[attr-defined]
    unselected = [play_plan for play_plan in plan.plays if not play_plan.tasks]
    given = plan.facts
    plan.facts = dict(cached_facts(plan))  # the plan decides with the facts the values read
    try:
        for play_plan in unselected:
            play_plan.tasks = selected_run_tasks(play_plan.play, plan.options.selection())
        plan_hosts(plan)
    except PlanError:
        pass  # tags only the run can template: ansible-playbook stops there too, no list loses a host
    finally:
        plan.facts = given
        for play_plan in unselected:
            play_plan.tasks = []


def _load(plan: Plan, play_plan: PlayPlan, include: Task, loader: Any, templar_at: Any) -> None:
    from engine.flow.role_from_files import mark_run_from, merged_from_files, tasks_differ, why_merged

    outer = [*play_order(play_plan.play).includers.get(id(include), []), include]
    if loop_of(include) is not None:  # each item names a file of its own
        _load_items(plan, play_plan, include, loader, outer)
        return
    groups: dict[int, tuple[list[Any], list[str]]] = {}
    args: dict[str, Any] = {}
    named_by_run: list[str] = []  # the hosts whose file only the run names
    for host in play_plan.hosts[:HOSTS_ASKED]:
        try:
            blocks, result = loader.load(include, templar_at(plan, play_plan, host, include), play_plan.play)
        except TemplateFailure as exc:  # a file only the run names, or none: nothing to load for this host
            if cause_of(exc, RunTimeOnly) is None:  # none: the host fails there (_may_remove_hosts)
                play_plan.loads_fail = True  # type: ignore[attr-defined]
            else:
                named_by_run.append(host.name)
            continue
        groups.setdefault(id(blocks), (blocks, []))[1].append(host.name)
        args[host.name] = result.get("include_args", {})
    merged = merged_from_files(include, args)
    for blocks, hosts in groups.values():
        loaded = list(with_includers(blocks, outer))
        if hosts[0] in merged:  # any of the hosts merged may run this copy, with files only the run picks
            mark_run_from([task for task, _ in loaded], include, why_merged(include, merged[hosts[0]]),
                          merged[hosts[0]])
            if tasks_differ(merged[hosts[0]]):
                hosts = [*hosts, *(name for name in merged if name not in hosts)]
        add_loaded_tasks(play_plan.play, include, loaded, hosts)
    if named_by_run:
        could_load(play_plan, include, loader, named_by_run, outer)


def _load_items(plan: Plan, play_plan: PlayPlan, include: Task, loader: Any, outer: list[Task]) -> None:
    """A looping include's copies, each item's file for the hosts whose item names it
    (engine.variables.item_files), in item order after the include; the files it could name on
    the hosts whose items or files only the run knows."""
    from engine.variables.item_files import item_copies

    copies, unknown = item_copies(plan, play_plan, include, play_plan.hosts, loader)
    for copy in reversed(copies):  # each is placed right after the include: the first item's first
        add_loaded_tasks(play_plan.play, include, list(with_includers(copy.blocks, outer)), copy.hosts)
    if unknown:
        could_load(play_plan, include, loader, list(unknown), outer, {copy.target for copy in copies})


_ENDS = frozenset({"end_host", "end_batch", "end_play"})


def _handler_sets(play_plan: PlayPlan) -> bool:
    """Whether a handler of the play sets or registers something, or a task delegates its facts:
    where it runs is the plan's (which hosts a notifying task changes on, flush point by flush
    point; which hosts a meta action ended)."""
    from engine.variables.sources import SET_FACT

    return any(task.handler and (task.action in SET_FACT or isinstance(task.data, Mapping) and
                                 bool(task.data.get("register"))) or
               isinstance(task.data, Mapping) and bool(task.data.get("delegate_facts"))
               for task in play_order(play_plan.play).tasks)


def _repeats_roles(play_plan: PlayPlan) -> bool:
    """Whether a task of the play that sets something is of a role the play may reach twice with
    an equal use: where it runs is the plan's (``Role.has_run``)."""
    from engine.variables.setters import sets_something

    order = play_order(play_plan.play)
    return any(task.role is not None and sets_something(task) and order.repeats_role(task) for task in order.tasks)


def _may_remove_hosts(play_plan: PlayPlan) -> bool:
    """Whether a task of the play is one the plan may find taking a host out of the play lists:
    a ``fail``, an ``assert``, a ``failed_when``, a ``meta`` that ends hosts, an include whose
    file did not load for a host. (A template that fails a task is found only by planning; without
    such a task the lists are read whole.)"""
    if getattr(play_plan, "loads_fail", False):
        return True
    for task in play_order(play_plan.play).tasks:
        data = task.data if isinstance(task.data, Mapping) else {}
        if task.action in kw.FAIL | kw.ASSERT or "failed_when" in data or task.action in kw.META and \
                isinstance(task.args, Mapping) and task.args.get("_raw_params") in _ENDS:
            return True
    return False

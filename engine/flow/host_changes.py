"""Whether a task that runs on a host reports a change there, known before the run where it can
be: its ``changed_when`` (evaluated in three values as its ``when``, item by item for a loop), or
else its action (``debug`` or ``set_fact`` never changes, ``command`` always does). What it
notifies runs only where it reports one (engine.flow.host_handlers)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from engine.flow.host_outcome import DEPENDS, RUNS, SKIPPED, HostOutcome, task_outcomes
from engine.flow.outcomes import distinct
from engine.flow.run_settings import check_mode
from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def change_reports(plan: Plan, play_plan: PlayPlan, task: Task, outcomes: Mapping[str, HostOutcome],
                   conditions: list[tuple[Any, str]], batches: list[list[str]],
                   signatures: dict[tuple[Any, ...], tuple[Any, ...]]) -> dict[str, bool | None]:
    """On each host where ``task`` runs or may: True when it is certain to report a change, False
    when certain not to (or not to run), None when only the run knows."""
    objects = list(distinct(outcomes))
    running = {id(outcome) for outcome in objects if outcome.outcome in (RUNS, DEPENDS)}  # (none: skipped)
    if not running:
        return {}
    # the play's hosts whose outcome is one of those, without a step of Python per host: all of them
    # where every object runs or may and the task's hosts are the play's, in its order (most tasks)
    names = list(map(_NAME, play_plan.hosts))
    every = len(running) == len(objects) and names == list(outcomes)
    if every:
        hosts = list(play_plan.hosts)
    else:
        asked = map(outcomes.get, names)
        hosts = list(compress(play_plan.hosts, map(running.__contains__, map(id, asked))))
    if not hosts:
        return {}
    data = task.data if isinstance(task.data, Mapping) else {}
    changed_when = data.get("changed_when")
    once = getattr(task.effective("run_once"), "value", None) not in (None, False)
    if changed_when is None or once:  # a run_once result is given to the batch's hosts: the run's to follow
        known = _action_changes(plan, task, data) if changed_when is None else None
        said = {id(outcome): known if known is not True or outcome.outcome == RUNS else None for outcome in objects}
        answers = set(said.values())
        if every and len(answers) == 1:  # one answer for every host
            return dict.fromkeys(names, *answers)
        names = names if every else list(map(_NAME, hosts))
        return dict(zip(names, map(said.__getitem__, map(id, map(outcomes.__getitem__, names))), strict=True))
    values = changed_when if isinstance(changed_when, list) else [changed_when]
    if _reads_own(task, values):  # evaluated after the action: with what it set, as the values have it
        return {host.name: _followed_change(plan, play_plan, host, task) if outcomes[host.name].outcome == RUNS
                else None for host in hosts}
    checked = task_outcomes(plan, play_plan, task, [*conditions, *((value, "changed_when") for value in values)],
                            batches, signatures, hosts)
    return {name: False if outcome.outcome == SKIPPED else True if outcome.outcome == RUNS and
            outcomes[name].outcome == RUNS else None for name, outcome in checked.items()}


_NAME = attrgetter("name")


def _action_changes(plan: Plan, task: Task, data: Mapping[str, Any]) -> bool | None:
    """Whether the action itself reports a change, without ``changed_when``."""
    if task.action in kw.NEVER_CHANGED:
        return False
    args = task.args if isinstance(task.args, Mapping) else {}
    if task.action in kw.ALWAYS_CHANGED and not {"creates", "removes"} & set(args) and data.get("async") is None \
            and check_mode(plan, task) is False:
        return True
    return None


_SHAPED = kw._family("set_fact") | kw._family("include_vars") | kw._family("debug") | kw._family("assert")


def _reads_own(task: Task, conditions: list[Any]) -> bool:
    """Whether ``conditions`` (a ``changed_when``) may read what the task itself sets: its
    registered result, its set_fact's names, anything of an include_vars's file."""
    from engine.templating.variable_uses import names_read
    from engine.variables.setters import set_names

    own = set_names(task)
    if own is None:
        return True
    for condition in conditions:
        read = names_read(condition, True) if isinstance(condition, str) else frozenset()
        if read is None or read & own:
            return True
    return False


def _followed_change(plan: Plan, play_plan: PlayPlan, host: Host, task: Task) -> bool | None:
    """Whether ``task`` reports a change on ``host`` as the values model follows it there (its
    action's result has a known shape, outside a looped include), None when only the run knows."""
    from engine.flow.host_reading import include_loop_names
    from engine.variables.report import play_order, task_effects

    if task.action not in _SHAPED or include_loop_names(play_plan.play, task) or \
            sum(run is task for run in play_order(play_plan.play).tasks) != 1:  # which run of it: the plan's
        return None
    return task_effects(plan, play_plan, host, task).changed

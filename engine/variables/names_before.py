"""Which names the tasks before a place may set on a host, told before the run: ``set_fact``'s keys,
``register``, and the names of the files an ``include_vars`` reads. The plan keys hosts by what
the tasks before set of the names a task reads (engine.variables.earlier_key) and follows another
host's variables only for such names (engine.variables.host_runtime): a name no task may set is the
inventory's alone. One task whose names are not told (a templated ``set_fact`` key, a file only a
host's values name, ``add_host``, ``group_by``) leaves every name open, and each host is followed on
its own from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.host_facts import plays_before
from engine.variables.setters import set_names, setters
from engine.variables.sources import INCLUDE_VARS

FOLLOWED = True
"""Whether an ``include_vars`` whose file a template names is followed on the hosts (tests turn it off)."""
NAMED = True
"""Whether an ``include_vars`` with a literal ``name`` is told by it (tests turn it off)."""

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Play, Task


def names_set_before(plan: Plan, play_plan: PlayPlan, order_of: Callable[[Play], Any]) -> frozenset[str] | None:
    """Every name the tasks of the plays up to ``play_plan`` (its own, all of them) may set on a
    host (:func:`task_names`, engine.variables.included_names), None when one's are not told; kept until an
    include adds tasks. While a templated ``include_vars`` of the play is followed on its hosts,
    what the tasks before it may set (all that the walks to it ask)."""
    derived = play_plan.play.derived
    so_far = derived.get("names set so far")
    if so_far is not None and so_far[0] is plan:
        return so_far[1]  # type: ignore[no-any-return]
    plays = plays_before(plan, play_plan, including=True)
    sizes = tuple(len(order_of(earlier.play).tasks) for earlier in plays)
    kept = derived.get("names set before")
    if kept is not None and kept[0] == sizes and kept[1] is plan:
        return kept[2]  # type: ignore[no-any-return]
    earlier = names_set_before(plan, plays[-2], order_of) if len(plays) > 1 else frozenset()
    found: set[str] | None = None if earlier is None else set(earlier)
    order = order_of(play_plan.play)
    try:
        for _, task in setters(order, len(order.tasks)) if found is not None else ():
            names = task_names(plan, play_plan.play, task)
            follow = getattr(plan, "include_vars_names", None) if FOLLOWED else None
            if names is None and follow is not None:  # engine.variables.included_names, given by the plan
                derived["names set so far"] = (plan, frozenset(found))  # type: ignore[arg-type]
                names = follow(plan, play_plan, order, task)
            if names is None:
                found = None
                break
            found |= names  # type: ignore[operator]
    finally:
        derived.pop("names set so far", None)
    result = frozenset(found) if found is not None else None
    derived["names set before"] = (tuple(len(order_of(earlier.play).tasks) for earlier in plays), plan, result)
    return result


def task_names(plan: Plan, play: Play, task: Task) -> frozenset[str] | None:
    """The names ``task`` may set on a host (engine.variables.setters.set_names), an
    ``include_vars`` told by its ``name`` or by the files it names without a template (whatever
    the host: their keys); None when they are not told."""
    found = set_names(task)
    if found is not None or task.action not in INCLUDE_VARS:
        return found
    data = task.data if isinstance(task.data, Mapping) else {}
    register = {str(data["register"])} if data.get("register") else set()
    args = task.args if isinstance(task.args, Mapping) else {}
    named = args.get("name")
    if NAMED and isinstance(named, str) and named and "{" not in named and "%" not in named:
        return frozenset({named, *register})  # every file's values under that one name
    included = _file_names(plan, play, task)
    return None if included is None else frozenset({*included, *register})


def _file_names(plan: Plan, play: Play, task: Task) -> frozenset[str] | None:
    """The keys of the files an ``include_vars`` names without a template, once per task and files' state."""
    from engine.parsing.source import files_state
    from engine.variables.include_vars_files import include_vars_names

    key = ("include_vars names", id(task))
    kept = play.derived.get(key)
    now = files_state()
    if kept is None or kept[0] is not task or kept[1] != now:
        names = include_vars_names(task, play.basedir, plan.inventory.cache)
        kept = play.derived[key] = (task, now, None if names is None else frozenset(names))
    return kept[2]  # type: ignore[no-any-return]

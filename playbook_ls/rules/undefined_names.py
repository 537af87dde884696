"""Variables a launch's tasks read that nothing defines: the analysis behind PLS122.

A launch profile fixes what ansible-playbook is given (playbook, inventory, extra variables,
tag selection), so what a task can see is known, except where the playbook lets variables
come from places no static reading can follow: then the analysis says nothing (``None`` from
:func:`_setters`, or the plays it stops before). Every name is checked against the union of
what any host of the play could see, so a name defined for one host only is never reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.parsing.source import files_state
from engine.span import Span

if TYPE_CHECKING:
    from engine.flow.plan import Plan
    from engine.launch.profiles import LaunchProfile
    from engine.loading.model import Task

# names a task may read that no level of the variable model lists
ALWAYS_DEFINED = frozenset({"item", "omit", "module_setup", "discovered_interpreter_python", "gather_subset"})
FACT_PREFIXES = ("ansible_", "facter_", "ohai_")
# play problems that leave tasks out of the resolved playbook: what they would set is unknown
UNFOLLOWED = frozenset({"dynamic-include", "unresolved-include", "unresolved-import", "unresolved-role",
                        "unresolved-template"})

_cache: dict[tuple[str, str, str, frozenset[str]], tuple[int, list[Undefined]]] = {}
"""Analyses kept until the files change: every play of a playbook asks for the same one."""
_shared_sources: list[Any] = []


class Undefined(NamedTuple):
    task: Task
    name: str
    span: Span | None
    hosts: int


class _Setters(NamedTuple):
    names: set[str]
    """Every name a set_fact, register, include_vars or loop variable of the playbook sets."""
    last_certain_play: int
    """Plays after this index come after an inventory change or a play we cannot follow."""


def undefined_in_launch(playbook: str, profile: LaunchProfile) -> list[Undefined]:
    """The unguarded variables each task of ``playbook`` launched with ``profile`` reads and
    nothing defines ([] when that cannot be known)."""
    from engine.flow.plan import RunOptions
    from engine.launch.prompting import resolve_launch

    launch = resolve_launch(profile, {})
    cwd = os.path.dirname(profile.source) if profile.source else os.getcwd()
    options = RunOptions.from_launch(launch, playbook, cwd)
    given = frozenset(launch.extra_vars) | {str(q.get("variable")) for q in profile.survey if q.get("variable")}
    # What the analysis depends on besides the files: profiles that launch alike share it (an
    # export's thousands of job templates come down to a few distinct launches of each playbook).
    key = (os.path.realpath(playbook), cwd, repr(options), given)
    now = files_state()
    cached = _cache.get(key)
    if cached is not None and now == cached[0]:
        return cached[1]
    found = _analyse(playbook, options, cwd, given)
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = (now, found)
    return found


def _analyse(playbook: str, options: Any, cwd: str, given: frozenset[str]) -> list[Undefined]:
    from engine.flow.plan import PlanError, make_plan
    from engine.parsing.source import SourceCache

    try:
        plan = make_plan(options, _sources(SourceCache), dynamic_inventory=False)
    except PlanError:
        return []  # the launch fails before any task: other rules and the launch itself say why
    if _uncertain_sources(plan, playbook, cwd):
        return []
    setters = _setters(plan)
    if setters is None:
        return []
    found: list[Undefined] = []
    for index, play_plan in enumerate(plan.plays):
        if index > setters.last_certain_play:
            break
        if not play_plan.hosts:
            continue
        for task, includers in _selected(play_plan):
            found += _task_undefined(plan, play_plan, task, includers, setters.names | given)
    return found


def _sources(make: Any) -> Any:
    """One source cache for every analysis: each profile launching a playbook reads the same files
    (a cached file is parsed again when its modification time or size changes)."""
    if not _shared_sources:
        _shared_sources.append(make())
    return _shared_sources[0]


def _uncertain_sources(plan: Plan, playbook: str, cwd: str) -> bool:
    """Variables from outside what is read statically: a dynamic inventory, a fact cache that
    keeps facts of earlier runs, vars plugins."""
    if any(note.startswith("dynamic inventory:") for note in plan.inventory.notes):
        return True
    from engine.config import AnsibleConfig

    # the settings a launch from the project's, the profile's or the playbook's directory reads
    for start in {os.getcwd(), cwd, os.path.dirname(os.path.abspath(playbook))}:
        config = AnsibleConfig.load(start)
        if config.fact_caching != "memory" or config.vars_plugins_enabled != ["host_group_vars"]:
            return True
    # legacy vars plugins beside the playbook or an inventory run without being enabled
    directories = [os.path.dirname(os.path.abspath(playbook))]
    directories += [source if os.path.isdir(source) else os.path.dirname(source) for source in plan.inventory.sources]
    return any(os.path.isdir(os.path.join(directory, "vars_plugins")) for directory in directories)


def _setters(plan: Plan) -> _Setters | None:
    """The names the playbook's tasks set at run time, anywhere (facts and registered results
    last for the whole run); None when a task sets names nobody can read from the playbook."""
    from engine.loading.keywords import CHANGES_INVENTORY
    from engine.templating.load_time import is_template
    from engine.variables.include_vars_files import include_vars_names
    from engine.variables.sources import INCLUDE_VARS, SET_FACT
    from playbook_ls.rules.base import play_tasks

    names: set[str] = set()
    last_certain = len(plan.plays) - 1
    for index, play_plan in enumerate(plan.plays):
        play = play_plan.play
        if any(problem.code in UNFOLLOWED for problem in play.problems):
            last_certain = min(last_certain, index - 1)
        for task in play_tasks(play):
            args = task.args if isinstance(task.args, Mapping) else {}
            data = task.data if isinstance(task.data, Mapping) else {}
            action = task.action or ""
            if action.endswith("_facts") and action not in SET_FACT:
                return None
            if action in SET_FACT:
                if any(is_template(name) for name in args):
                    return None
                names.update(str(name) for name in args if name != "cacheable")
            elif action in INCLUDE_VARS:
                included = include_vars_names(task, play.basedir, plan.inventory.cache)
                if included is None:
                    return None
                names.update(included)
            elif action in CHANGES_INVENTORY or (action.endswith("meta") and "refresh_inventory" in str(task.args)):
                last_certain = min(last_certain, index)
            register = data.get("register")
            if isinstance(register, str):
                names.add(register)
            control = data.get("loop_control")
            if isinstance(control, Mapping):
                names.update(str(control[k]) for k in ("loop_var", "index_var") if isinstance(control.get(k), str))
    return _Setters(names, last_certain)


def _selected(play_plan: Any) -> Iterable[tuple[Task, list[Task]]]:
    """The tasks the launch runs, with the includes that load them: the selected ones and what
    selected includes load."""
    from engine.variables.sources import tasks_with_includers

    selected = play_plan.selected_ids()
    for task, includers in tasks_with_includers(play_plan.play):
        if not task.implicit and (id(task) in selected or any(id(outer) in selected for outer in includers)):
            yield task, includers


def _task_undefined(plan: Plan, play_plan: Any, task: Task, includers: list[Task], known: set[str]) -> list[Undefined]:
    from engine.templating.variable_uses import task_uses
    from engine.variables.report import layers_at

    conditions = [frame.keywords.get("when") for frame in task.chain if "when" in frame.keywords]
    conditions += [outer.data.get("when") for outer in includers if isinstance(outer.data, Mapping)]
    uses = task_uses(task, conditions)
    if uses.unreadable:
        return []
    candidates = [use for use in uses.uses if use.name not in uses.guarded and use.name not in known
                  and use.name not in ALWAYS_DEFINED and not use.name.startswith(FACT_PREFIXES)]
    if not candidates:
        return []
    visible: set[str] = set()
    for host in play_plan.hosts:  # undefined on every host: what vars says at this task for each
        layers, magic = layers_at(plan, play_plan, host, task)
        visible |= {str(name) for layer in layers for name in layer.values} | set(magic)
        if all(use.name in visible for use in candidates):
            return []
    return [Undefined(task, use.name, use.span, len(play_plan.hosts)) for use in candidates if use.name not in visible]

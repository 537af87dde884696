"""The ``module_defaults`` the bundled engine declines before a run: what it cannot resolve as
ansible-core 2.19 does (engine.loading.module_defaults applies the rest). An action group
(``group/NAME``, resolved from a collection's metadata) unless it resolves to actions none of
which the engine runs (engine.run.action_groups: its defaults then reach no task), a module the engine does not run (its
name may not resolve at all, and ansible then stops loading), an action whose defaults would go
somewhere else than its task's arguments (the includes and what the engine carries out itself,
fact gathering: the gather_facts action gives setup's defaults to the facts it gathers), and
defaults that are not a mapping (a template, resolved per host).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.loading.model import Task
from engine.loading.module_defaults import resolved_action
from engine.templating.pure_lookups import short_name

NOT_APPLIED = frozenset({"set_fact", "include_vars", "meta", "include_tasks", "include_role", "import_tasks",
                         "import_role", "validate_argument_spec", "add_host", "group_by", "async_status", "setup",
                         "gather_facts", "package", "service"})


def _runs(name: Any) -> bool:
    """Whether ``name`` resolves to a module the engine runs from its task's arguments."""
    from engine.run.modules import MODULE_NAMES

    resolved = resolved_action(name)
    if resolved is None:
        return False
    short = short_name(resolved)
    return (resolved in MODULE_NAMES or short in MODULE_NAMES) and short not in NOT_APPLIED


def module_defaults_declines(tasks: Iterable[Task], collections: Any = None) -> Iterator[tuple[str, Task]]:
    """Each ``module_defaults`` entry the engine cannot resolve as ansible does, worded for the
    plan, with the first task it reaches (``collections``: where the run finds collections)."""
    seen: set[int] = set()
    for task in tasks:
        for frame in task.chain:
            value = frame.keywords.get("module_defaults")
            if value is None or id(frame) in seen:
                continue
            seen.add(id(frame))
            for what in _entry_declines(value, collections):
                yield what, task


def _entry_declines(value: Any, collections: Any) -> Iterator[str]:
    from engine.run.action_groups import group_reaches_engine_modules

    for entry in value if isinstance(value, list) else [value]:
        if not isinstance(entry, Mapping):
            yield "module_defaults that are not a mapping of module names"
            continue
        for key, defaults in entry.items():
            if isinstance(key, str) and key.startswith("group/"):
                if group_reaches_engine_modules(key[len("group/"):], collections) is not False:
                    yield f"module_defaults for the action group {key[len('group/'):]}"
            elif not _runs(key):
                yield f"module_defaults for {key}, a module the engine does not run"
            elif defaults is not None and not isinstance(defaults, Mapping):
                yield f"module_defaults for {key} given as a template"

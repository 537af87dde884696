"""``module_defaults``: arguments a play, role entry, block or task gives every task of a module
below it, as ansible-core 2.19 does it.

``Base._load_module_defaults`` reads the keyword as a list of mappings whose keys name an action
(a short name means ``ansible.legacy.NAME``, whose defaults also go to ``ansible.builtin.NAME``),
each resolved to its plugin's full name, or ``group/NAME``, an action group. The keyword extends
outer levels first (``prepend``: play, dependencies, role entry, blocks, task), and
``_get_action_arg_defaults`` merges the list with ``dict.update``: the nearest level that names a
module replaces the whole of that module's defaults, it does not add to them. Task arguments then
win over the defaults key by key (``TaskArgsFinalizer``'s layers), and the merged arguments are
templated as the task's own are, an omitted task argument leaving the key out.

A run applies that merge once, before it starts, to the arguments of every task its plan holds,
and to the tasks an include loads (:mod:`engine.loading.includes`), so that everything that reads
a task's arguments reads what ansible's action gets. What the engine cannot resolve the same way
is declined before the run (engine.run.module_defaults).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.loading.model import Block, Task
from engine.templating.pure_lookups import short_name

# actions ansible-core routes to a collection: their defaults are keyed by the collection's name
ROUTED = {"archive": "community.general.archive", "ini_file": "community.general.ini_file"}


def resolved_action(name: Any) -> str | None:
    """The full name ansible resolves an action or a ``module_defaults`` key to when it is
    ansible-core's (``ansible.builtin.copy``) or routed by it (``community.general.ini_file``);
    None for a collection's name."""
    if not isinstance(name, str):
        return None
    if name in ROUTED.values():
        return name
    short = short_name(name)
    if short in ROUTED:
        return ROUTED[short]
    return None if "." in short else f"ansible.builtin.{short}"


def _entries(task: Task) -> list[Any]:
    """The ``module_defaults`` entries that reach ``task``, outermost first."""
    if not any("module_defaults" in frame.keywords for frame in task.chain):
        return []
    return [sourced.value for sourced in task.effective("module_defaults") or []]  # type: ignore[union-attr]


def task_defaults(task: Task) -> Mapping[str, Any] | None:
    """The defaults ``module_defaults`` gives ``task``'s action (None: none)."""
    entries = _entries(task)
    action = resolved_action(task.action) if entries else None
    if action is None:
        return None
    merged: dict[str, Any] = {}
    for entry in entries:
        if isinstance(entry, Mapping):
            for key, defaults in entry.items():
                name = resolved_action(key)
                if name is not None:
                    merged[name] = defaults
    found = merged.get(action)
    return found if isinstance(found, Mapping) else None


def apply_module_defaults(tasks: Iterable[Task]) -> None:
    """Give each task the arguments ansible's action gets: its ``module_defaults`` under its own
    arguments. The arguments as written stay in ``written_args``, which a task copied for another
    context (a role used again) starts from."""
    for task in tasks:
        written = task.written_args if task.written_args is not None else task.args
        defaults = task_defaults(task)
        if defaults is None or not isinstance(written, Mapping):
            if task.written_args is not None:
                task.args, task.written_args = task.written_args, None
            continue
        task.written_args = written
        task.args = {**defaults, **written}


def tasks_under(blocks: Iterable[Block]) -> Iterable[Task]:
    """Every task of ``blocks``, each followed by the statically known children of an include."""
    for block in blocks:
        for task in block.tasks():
            yield task
            yield from tasks_under(task.children)

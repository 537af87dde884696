"""``meta: refresh_inventory``: where the engine's run is ansible's without re-reading the inventory.

ansible's strategy (``_execute_meta``) parses the inventory's sources again
(``InventoryManager.refresh_inventory``: a new ``InventoryData``, the sources read without a cache)
and the play's host lists with it. What the run's ``add_host`` and ``group_by`` added is gone;
what a source gives now is what later plays select from. The engine does not read the inventory
again: the meta action is a no-op there, which is ansible's result exactly when the sources give
what they gave at the start. So the plan declines it before the run where they may not: after
``add_host`` or ``group_by``, with a source a script or an inventory plugin makes (it may answer
otherwise), a directory of sources, or a source file a task may write (one whose arguments name
the file, ``inventory_file`` or ``inventory_dir``). Host lists (``-i a,b``) never change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

from engine.loading import keywords as kw
from engine.loading.model import Task

_PLUGIN_CONFIG = re.compile(r"^plugin\s*:", re.MULTILINE)
_INVENTORY_NAMES = ("inventory_file", "inventory_dir")


def is_refresh(task: Task) -> bool:
    return task.action in kw.META and isinstance(task.args, Mapping) and \
        task.args.get("_raw_params") == "refresh_inventory"


def _changing_source(path: str) -> bool:
    """Whether a source may give other hosts when read again: a directory, a script, a plugin's
    configuration."""
    if os.path.isdir(path) or os.access(path, os.X_OK):
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return _PLUGIN_CONFIG.search(handle.read()) is not None
    except OSError:
        return True


def refresh_declines(tasks: Sequence[Task], sources: Iterable[str]) -> Iterator[tuple[str, Task]]:
    """The reason to decline the first ``meta: refresh_inventory`` of ``tasks``, if any."""
    from engine.values import strings

    refresh = next((task for task in tasks if is_refresh(task)), None)
    if refresh is None:
        return
    if any(task.action in kw.CHANGES_INVENTORY for task in tasks):
        yield "meta: refresh_inventory in a playbook that runs add_host or group_by", refresh
        return
    files = [source for source in sources if os.path.exists(source)]
    if any(_changing_source(source) for source in files):
        yield "meta: refresh_inventory with an inventory a script, a plugin or a directory gives", refresh
        return
    names = (*(os.path.basename(source) for source in files), *_INVENTORY_NAMES) if files else ()
    for task in tasks:
        if any(name in text for text in strings(task.args) for name in names):
            yield "meta: refresh_inventory with an inventory file a task may write", refresh
            return

"""The files a per-host include may load where only the run names its file (``tasks_{{
which.stdout }}.yml``, or a looping include's items named with the host's values): each candidate
file (engine.flow.run_named_files) is loaded once, for the plan and the values alike, and placed
after the include for the hosts it may load on; what its tasks set there is the run's
(``PlayOrder.run_named``), and so is which item of a looping include loads it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from engine.flow.notify import with_includers
from engine.variables.play_order import add_loaded_tasks, play_order

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.loading.model import Task


def could_load(play_plan: PlayPlan, include: Task, loader: Any, hosts: Collection[str], outer: list[Task],
               skip: Collection[str] = ()) -> dict[str, list[tuple[Task, list[Task]]]]:
    """The tasks of each file ``include`` could load on ``hosts``, which only the run names there
    (engine.flow.run_named_files), but ``skip``: placed after it for them, what each sets there
    the run's; each file's tasks, with their includers, loaded once for the plan and the values."""
    from engine.flow.run_named_files import candidate_files
    from engine.templating.templar import Templar

    order = play_order(play_plan.play)
    known = order.candidates.setdefault(id(include), {})
    found: dict[str, list[tuple[Task, list[Task]]]] = {}
    for target, copy in candidate_files(include, play_plan.play.basedir):
        if target in skip:
            continue
        if target not in known:
            try:
                blocks, _result = loader.load(copy, Templar({}), play_plan.play)
            except Exception:  # noqa: BLE001 - a file that does not load as tasks is no candidate
                continue
            known[target] = list(with_includers(blocks, outer))
        add_loaded_tasks(play_plan.play, include, known[target], hosts)
        for task, _ in known[target]:
            order.run_named.setdefault(id(task), {}).update(dict.fromkeys(
                hosts, f"set by task '{task.display_name()}' of {target}, which the include "
                       f"'{include.display_name()}' loads on this host only if the run names that file"))
        found[target] = known[target]
    return found

"""Whether the walk of the tasks before a task is the same on every host of its plays: what the
per-host model (engine.variables.host_runtime) then walks once for all of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.run_settings import runs_once
from engine.variables.block_runs import play_blocks
from engine.variables.host_facts import plays_before
from engine.variables.loop_vars import includer_loops
from engine.variables.setters import ends_host_task as _ends_host_task
from engine.variables.setters import ends_in_batch
from engine.variables.setters import setters as _setters
from engine.variables.task_kinds import host_independent, known_shape

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.loading.model import Task


def uniform_walk(follower: Any, play_plan: PlayPlan, task: Task, names: frozenset[str] | None,
                  occurrence: int = 0) -> bool:
    """Whether every task before ``task`` that may set ``names`` (in the plays so far) does so alike
    on every host of its play: effects the same on every host, not in a block with a rescue, not a
    handler, not loaded by a looping or ``run_once`` include, not for some hosts only, no facts
    delegated, and no ``meta: end_host`` on the way; all of them (``names`` None): no rescue in the
    plays either. The earlier tasks' walk is then the same on all hosts in the same plays
    (engine.variables.host_runtime.Follower.earlier_layers)."""
    from engine.loading import keywords as kw

    plan = follower.plan
    for earlier in plays_before(plan, play_plan, including=True):
        order = follower.order_of(earlier.play)
        before = order.count_before(task, occurrence) if earlier is play_plan else len(order.tasks)
        blocks = play_blocks(earlier.play) if names is None else None
        if blocks is not None and blocks.rescue_starts:
            return False  # what a rescue gives a host depends on what failed there
        for _, done in _setters(order, before, names):
            includers = order.includers.get(id(done), [])
            data = done.data if isinstance(done.data, Mapping) else {}
            if _ends_host_task(done) or ends_in_batch(done) or done.handler or data.get("delegate_facts") or \
                    order.loaded_on.get(id(done)) is not None or done.effective_when() or \
                    any(include.effective_when() or includer_loops(include) or
                        include.action in kw.INCLUDE_ROLE | kw.INCLUDE_TASKS and runs_once(include)
                        for include in includers) or known_shape(done) and not host_independent(done):
                return False
            blocks = blocks or play_blocks(earlier.play)
            if id(done) in blocks.paths and blocks.rescuing:
                return False
    return True

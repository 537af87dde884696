"""``run_once``: a task run by the first host of the batch, for all of them.

As the linear strategy does it: ``run_once`` is templated with the first host's variables; only
that host runs the task (its ``when``, its loop) and reports a result, counted for it alone;
what the task registers and the facts it sets reach every host of the batch that is not
unreachable (``StrategyBase.get_task_hosts``); a failure that is not ignored fails every host
of the batch (the strategy treats the task as ``any_errors_fatal``).
"""

from __future__ import annotations

from engine.loading.model import Task
from engine.templating.templar import Templar, TemplateFailure


def run_once(task: Task, templar: Templar) -> bool:
    """The task's effective ``run_once`` (a meta task's is the strategy's business, not this)."""
    from engine.run.task_runner import keyword

    value = keyword(task, "run_once")
    if value is None:
        return False
    try:  # the strategy takes the templated value's truth, unconverted (`run_once: maybe` holds)
        return bool(templar.template(value))
    except TemplateFailure:
        return False


def task_hosts(host: str, once: bool, batch: list[str], unreachable: set[str]) -> list[str]:
    """``get_task_hosts``: the hosts a result's registered value and facts are given to."""
    return [h for h in batch if h not in unreachable] if once else [host]

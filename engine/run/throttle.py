"""``throttle`` as the strategy reads it when it queues a task for a host.

ansible's ``StrategyBase._queue_task`` converts the task's ``throttle`` (templated with the host's
variables) with ``int()`` before the worker runs anything, for every task it queues, whatever the
task's ``when`` says. A value ``int()`` refuses is no failed task: "Failed to convert the throttle
value to an integer", caused by Python's error, at the value as written, ends the run there
(exit 1, no recap). The engine runs its hosts one at a time, so a valid value changes nothing else.
"""

from __future__ import annotations

from typing import Any

from engine.loading.model import Task
from engine.templating.templar import Templar


class ThrottleError(Exception):
    """The run's end: the error text as ansible-playbook prints it."""


def check_throttle(task: Task, templar: Templar) -> None:
    """Raise :class:`ThrottleError` when ``task``'s ``throttle`` does not convert for this host."""
    from engine.run.error_block import Event, format_events

    sourced = task.effective("throttle")
    if sourced is None or isinstance(sourced, list):
        return
    try:
        int(templar.template(sourced.value))
    except (TypeError, ValueError) as exc:
        span: Any = sourced.frame.keyword_spans.get("throttle") or sourced.frame.span
        raise ThrottleError(format_events([Event("Failed to convert the throttle value to an integer.", span),
                                           Event(str(exc))])) from exc

"""``until`` / ``retries`` / ``delay``: the attempt loop of ``TaskExecutor._execute``.

ansible runs the action ``1 + retries`` times at most (``retries`` defaults to 3 when only
``until`` is set; ``retries`` alone retries until the task stops failing). Every attempt's result
gets ``attempts``; one that will be retried gets ``retries`` (the total number of runs) and is
shown by the callback's "FAILED - RETRYING" line before ``delay`` seconds of sleep (default 5,
negative means 1). When no attempt satisfies ``until``, the last result fails with ``attempts``
set to one less than the runs made, as ansible 2.19 reports it. An error the action raises
(AnsibleActionFail and the like: a template's missing source) leaves the attempt loop at once:
the task fails with it, unretried and without ``attempts``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.loading.model import Task
from engine.templating.templar import Templar, TemplateFailure

DEFAULT_RETRIES = 3
DEFAULT_DELAY = 5
Action = Callable[[Templar], dict[str, Any]]
Conditions = Callable[[Task, dict[str, Any], Templar], None]
ACTION_SKIP = "_ansible_action_skip"
"""Marks a result an action plugin skipped by raising AnsibleActionSkip (script, uri in check mode,
unarchive's ``creates``): ansible's result of it has no ``failed`` key."""
RETRIED = "_ansible_retried"
"""Where the final result keeps copies of the results that were retried, for the callback to
show before it (an item's before its item line, as ansible's streamed results come)."""


def _task_data(task: Task) -> Mapping[str, Any]:
    return task.data if isinstance(task.data, Mapping) else {}


def attempt_plan(task: Task, templar: Templar) -> tuple[int, float, list[Any]]:
    """(runs at most, seconds between runs, until conditions) for ``task``; one run without
    either keyword. A value that does not template or convert counts as not given: the task's
    validation fails the first attempt with it (engine.run.keyword_types)."""
    data = _task_data(task)
    until = data.get("until")
    conditions = [] if until in (None, "", []) else until if isinstance(until, list) else [until]
    retries = _number(templar, data.get("retries"), "int")
    runs = 1
    if retries is not None:
        runs += max(0, retries)
    elif conditions:
        runs += DEFAULT_RETRIES
    delay = _number(templar, data.get("delay", DEFAULT_DELAY), "float")
    delay = DEFAULT_DELAY if delay is None else delay
    return runs, (1.0 if delay < 0 else delay), conditions


def _number(templar: Templar, value: Any, isa: str) -> Any:
    """``value`` templated and converted as ansible converts the keyword, or None."""
    from engine.run.keyword_types import convert

    if value is None:
        return None
    try:
        rendered = templar.template(value)
        return None if rendered is None else convert(rendered, isa)
    except (TemplateFailure, ValueError):
        return None


def _until(task: Task, conditions: list[Any], scope: Templar) -> bool:
    """Whether every ``until`` condition holds; one that cannot be evaluated fails the task (it is
    raised out of ansible's attempt loop), caused by the error at the condition as written."""
    from engine.run.conditions import condition_failure

    written = _task_data(task).get("until")
    for index, condition in enumerate(conditions):
        try:
            if not scope.evaluate(condition):
                return False
        except TemplateFailure as exc:
            spans = getattr(written, "item_spans", None) or []
            span = spans[index] if isinstance(written, list) and index < len(spans) else \
                (getattr(task.data, "value_spans", None) or {}).get("until")
            raise condition_failure(exc, span) from exc
    return True


def raised_out(result: Mapping[str, Any]) -> bool:
    """Whether the action raised rather than returned ``result`` (a failure, a skip or a connection
    that failed)."""
    from engine.run.error_block import raised

    return bool(result.get(ACTION_SKIP) or result.get("unreachable")) or bool(result.get("failed")) and raised(result)


def run_attempts(task: Task, templar: Templar, action: Action, apply_conditions: Conditions,
                 scope_of: Callable[[dict[str, Any]], Templar]) -> dict[str, Any]:
    """The task's result after its attempts: ``action`` then ``apply_conditions`` (failed,
    changed, changed_when, failed_when) per attempt, ``until`` judged in ``scope_of(result)``
    (the registered name bound); the retried results are kept under :data:`RETRIED`."""
    runs, delay, until = attempt_plan(task, templar)
    if runs == 1:
        result = action(templar)
        apply_conditions(task, result, templar)
        return result
    result: dict[str, Any] = {}
    retried: list[dict[str, Any]] = []
    for attempt in range(1, runs + 1):
        result = action(templar)
        if raised_out(result):  # _execute's handler.run raised: out of the loop, unretried
            apply_conditions(task, result, templar)
            return result
        result["attempts"] = attempt  # before changed_when/failed_when, which may read it
        apply_conditions(task, result, templar)
        scope = scope_of(result)
        done = _until(task, until, scope) if until else not result.get("failed")
        if done:
            break
        if attempt < runs:
            result["retries"] = runs
            retried.append(dict(result))
            time.sleep(delay)
    else:
        result.update(attempts=runs - 1, failed=True)
    result[RETRIED] = retried
    return result

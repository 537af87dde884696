"""``no_log``: what the callback shows of a result the task asked to hide.

As ``_BaseTaskResult.as_callback_task_result`` does it: the callback gets a censored copy (a
few keys kept, ``censored`` added), a loop keeps its shape with every item censored and labelled
"(censored due to no_log)"; ``register`` still stores the whole result, as ansible's does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.loading.model import Task
from engine.templating.templar import Templar, TemplateFailure

CENSORED = "the output has been hidden due to the fact that 'no_log: true' was specified for this result"
CENSORED_ITEM = "(censored due to no_log)"
PRESERVE = ("attempts", "changed", "retries", "_ansible_no_log", "exception", "warnings", "deprecations")
SUB_PRESERVE = {"_ansible_delegated_vars": ("ansible_host", "ansible_port", "ansible_user", "ansible_connection",
                                            "ansible_delegated_host")}
NO_LOG = "_ansible_no_log"
RETRIED = "_ansible_retried"  # engine.run.retries.RETRIED


def no_log(task: Task, templar: Templar) -> bool:
    """The task's effective ``no_log``, templated; a value that cannot be read masks the output,
    as ``update_result_no_log`` falls back to."""
    from engine.booleans import boolean

    value = getattr(task.effective("no_log"), "value", None)  # engine.run.task_runner.keyword
    if value is None:
        return False
    try:
        return boolean(templar.template(value), strict=True)  # ansible's post-validated field
    except (TemplateFailure, TypeError, ValueError):
        return True


def censor_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """``censor_result``: the preserved keys and the ``censored`` message (and what the callback
    needs to show delegation)."""
    from engine.run.async_jobs import CENSORED_DISPLAY

    censored = {key: result[key] for key in PRESERVE if key in result}
    censored["censored"] = CENSORED
    if "_ansible_display" in result:  # what the action displayed as it ran, from the censored results it had
        censored["_ansible_display"] = result.get(CENSORED_DISPLAY, result["_ansible_display"])
    if isinstance(result.get(RETRIED), list):  # v2_runner_retry still reports each retry, censored
        censored[RETRIED] = [censor_result(r) if isinstance(r, Mapping) else r for r in result[RETRIED]]
    for sub, keys in SUB_PRESERVE.items():
        if isinstance(result.get(sub), Mapping):
            censored[sub] = {k: v for k, v in result[sub].items() if k in keys}
    return censored


def shown_no_log(hidden: bool, result: Mapping[str, Any]) -> bool:
    """Whether the callback gets ``result`` censored: a loop's when one of its items is (each
    item's ``no_log`` templated with that item, as ``TaskExecutor._run_loop`` marks the whole),
    another when the task's ``no_log`` (``hidden``) says so."""
    items = result.get("results")
    if isinstance(items, list) and items and all(isinstance(item, Mapping) and NO_LOG in item for item in items):
        return any(item[NO_LOG] for item in items)
    return hidden


def censored_for_callback(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the callback is given of a ``no_log`` result: censored, and of a loop's items those
    whose own ``no_log`` is on (all of them when the items carry none)."""
    censored = censor_result(result)
    if isinstance(result.get("results"), list):
        censored["results"] = [{**censor_result(item), **_status(item), NO_LOG: True}
                               if isinstance(item, Mapping) and item.get(NO_LOG, True) else item
                               for item in result["results"]]
    return censored | _status(result)


def _status(result: Mapping[str, Any]) -> dict[str, Any]:
    """``failed``/``skipped``: ansible's callback learns them from the event, this one from the
    result (its dump leaves them out, as ansible's does)."""
    return {key: result[key] for key in ("failed", "skipped") if key in result}

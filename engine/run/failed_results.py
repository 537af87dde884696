"""``ansible_failed_result``: what the strategy keeps of a failed result for the rescue section.

It is the result as the worker returned it (``_RawTaskResult._return_data``), not the one
``register`` stores: the module's ``invocation`` stays, and so do the internal keys ansible's
``TaskExecutor`` gives every run, which a playbook reads there (``ansible_failed_result._ansible_no_log``,
its keys): ``_ansible_parsed`` first in a module's result (the action parsed the module's JSON),
``_ansible_no_log`` after the result's own keys (``update_result_no_log``), and on each loop item,
after the loop's variables, ``_ansible_item_result``, ``_ansible_ignore_errors`` (gone from a failed
item), ``_ansible_ignore_unreachable`` (gone from an unreachable one) and ``_ansible_item_label``.
The loop's own result has ``_ansible_no_log`` only when an item's is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.run.censoring import NO_LOG
from engine.run.task_runner import keyword, registered, truth
from engine.templating.templar import Templar, TemplateFailure
from engine.values import untrusted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine.loading.model import Task

_MESSAGES = ("warnings", "deprecations")  # taken out of the result and put back after _ansible_no_log


def failure_kept(result: Mapping[str, Any], hidden: bool, ignores: tuple[bool | None, bool | None]) -> dict[str, Any]:
    """``result`` as ``ansible_failed_result``; ``hidden``: the task's ``no_log``; ``ignores``: its
    ``ignore_errors`` and ``ignore_unreachable`` as its fields hold them (None when not written)."""
    kept = dict(registered(result, keep_invocation=True))
    items, raw_items = kept.get("results"), result.get("results")
    if not (isinstance(items, list) and isinstance(raw_items, list) and len(items) == len(raw_items)):
        return untrusted(_run_kept(kept, result, hidden))  # type: ignore[return-value]
    kept["results"] = [
        _item_kept(item, raw, hidden, ignores) if isinstance(item, dict) and isinstance(raw, Mapping) else item
        for item, raw in zip(items, raw_items, strict=True)
    ]
    if any(isinstance(raw, Mapping) and raw.get(NO_LOG, hidden) for raw in raw_items):
        pairs = list(kept.items())
        at = list(kept).index("skipped") + 1 if "skipped" in kept else len(pairs)
        kept = dict([*pairs[:at], (NO_LOG, True), *pairs[at:]])
    return untrusted(kept)  # type: ignore[return-value]


def _run_kept(kept: dict[str, Any], raw: Mapping[str, Any], hidden: bool) -> dict[str, Any]:
    """One run's result (a task's, a loop item's before its loop keys) with what ``_execute`` adds."""
    messages = {key: kept.pop(key) for key in _MESSAGES if key in kept}
    parsed = {"_ansible_parsed": True} if "invocation" in raw else {}  # a module's, its JSON parsed
    return {**parsed, **kept, NO_LOG: hidden or raw.get(NO_LOG) is True, **messages}


def _item_kept(
    item: dict[str, Any], raw: Mapping[str, Any], hidden: bool, ignores: tuple[bool | None, bool | None]
) -> dict[str, Any]:
    """A loop item's: its run's result, then ``_run_loop``'s loop keys and internal keys."""
    loop_keys = {
        item.get("ansible_loop_var"),
        "ansible_loop_var",
        item.get("ansible_index_var"),
        "ansible_index_var",
        "ansible_loop",
    }
    own = {key: value for key, value in item.items() if key not in loop_keys}
    kept = _run_kept(own, raw, bool(raw.get(NO_LOG, hidden)))
    kept.update({key: value for key, value in item.items() if key in loop_keys})
    kept["_ansible_item_result"] = True
    if not raw.get("failed"):  # TaskExecutor.run pops it from a failed item
        kept["_ansible_ignore_errors"] = ignores[0]
    if not raw.get("unreachable"):
        kept["_ansible_ignore_unreachable"] = ignores[1]
    kept["_ansible_item_label"] = raw.get("_ansible_item_label", item.get(item.get("ansible_loop_var")))
    return kept


def ignore_fields(task: Task, templar: Templar) -> tuple[bool | None, bool | None]:
    """The task's ``ignore_errors`` and ``ignore_unreachable`` fields: templated, None when not written."""
    found: list[bool | None] = []
    for name in ("ignore_errors", "ignore_unreachable"):
        try:
            found.append(None if keyword(task, name) is None else truth(keyword(task, name), templar))
        except TemplateFailure:
            found.append(None)
    return found[0], found[1]

"""How the strategy judges one task result for one host (``StrategyBase._process_pending_results``):
failed (ignored, or handed to a rescue), skipped, changed or ok."""

from __future__ import annotations

from typing import Any

from engine.loading.model import Task
from engine.run.callback import Outcome, is_failed
from engine.run.keyword_types import strategy_ignores
from engine.run.task_runner import keyword, truth
from engine.templating.templar import Templar, TemplateFailure


def judge(task: Task, result: dict[str, Any], templar: Templar, rescuing: bool) -> Outcome:
    """The outcome of ``result``; ``rescuing`` says the host is in a block with a rescue."""
    if is_failed(result):
        ignored = strategy_ignores(result, lambda: ignores_errors(task, templar))
        return Outcome("failed", ignored=ignored, rescued=not ignored and rescuing,
                       changed=bool(result.get("changed")))
    if result.get("unreachable"):  # ignore_unreachable: counted ok and ignored, and the host goes on
        return Outcome("unreachable", ignored=truth(keyword(task, "ignore_unreachable"), templar))
    if result.get("skipped"):
        return Outcome("skipped")
    return Outcome("changed" if result.get("changed") else "ok")


def ignores_errors(task: Task, templar: Templar) -> bool:
    try:
        return truth(keyword(task, "ignore_errors"), templar)
    except TemplateFailure:
        return False

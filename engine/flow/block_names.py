"""The name of the block a task is directly in, which ansible 2.19's ``Task.post_validate``
templates before each run of the task (engine.run.parent_block runs it; the plan asks here whether
it fails on a host before the run)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.templating.errors import TemplateFailure, undefined_cause

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar


def block_name_templated(task: Task) -> bool:
    """Whether the name of the block ``task`` is directly in is templated before each run of it."""
    return templated_block_name(task) is not None


def templated_block_name(task: Task) -> tuple[str, Any] | None:
    parent = task.chain[-2] if len(task.chain) > 1 else None
    if parent is None or parent.kind != "block" or parent.templated_name is None:
        return None
    return parent.templated_name


def block_name_failure(task: Task, needs: Callable[[str], str | None], templar: Callable[[], Templar]) -> str | None:
    """Why ``task`` fails on a host before the run because the name of the block it is directly
    in needs an undefined variable there (engine.run.parent_block), for the plan; None when
    the name templates, or when it reads what only the run knows (``needs`` says what)."""
    templated = templated_block_name(task)
    if templated is None or needs(templated[0]) is not None:
        return None
    try:
        templar().template(templated[0])
    except TemplateFailure as exc:
        return f"the name of its block does not template: {exc}" if undefined_cause(exc) else None
    return None

"""A task's parent block, validated before each run of the task.

ansible 2.19's ``Task.post_validate`` validates the task's parent block before the task's own
fields, for every run (every loop item) of a task whose ``when`` holds. A block validates only its
``always_post_validate`` fields, of which only ``name`` is templated; the block's own parent is not
validated. So a block whose name needs an undefined variable fails each task directly in it,
those of its rescue and always sections too, while a task in a nested block or an imported file
(whose own, implicit block is its parent) runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.flow.block_names import templated_block_name
from engine.templating.errors import TemplateFailure

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar


def template_block_name(task: Task, templar: Templar) -> None:
    """The name of the block ``task`` is directly in, templated as ``Task.post_validate`` templates
    its parent block's fields for each run of the task (only ``name`` is validated on a block;
    a task in a nested block or an imported file has its own block as parent). Raises
    TemplateFailure worded as ansible's "Error processing keyword 'name'" when it cannot be."""
    templated = templated_block_name(task)
    if templated is None:
        return
    name, where = templated
    try:
        templar.template(name)
    except TemplateFailure as exc:
        from engine.run.error_block import Event

        failure = TemplateFailure(f"Task failed: Error processing keyword 'name': {exc}")
        failure.events = [Event(f"Error processing keyword 'name': {exc}", where)]  # type: ignore[attr-defined]
        raise failure from exc

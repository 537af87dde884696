"""A task's name as the strategy shows it in its banner: templated with the variables of the
first host it runs for (``Task._post_validate_name``, best effort), an undefined value replaced
by ansible's marker text and reported in warnings (``ReplacingMarkerBehavior``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.loading.model import Task
from engine.templating.replacing import replacing_markers
from engine.templating.templar import Templar, TemplateFailure
from engine.values import UnsafeText


def templated_name(name: str, templar: Templar, warn: Callable[[str], None], span: Any = None) -> str:
    """``name`` templated by ``templar`` as ansible's ``ReplacingMarkerBehavior`` does it
    (engine.templating.replacing): each undefined value it shows becomes ``<< error N - MESSAGE >>``
    (with "template potentially truncated" after one an expression raised on) and ``warn`` gets
    ansible's "Encountered N template error(s)." for each template they came from (``span``: the
    name as written); any other failure leaves the name as written, and so does a rendering that
    made a marker it does not show (in a value ansible would not have rendered)."""
    if "{{" not in name and "{%" not in name:
        return name
    from engine.run.error_block import Event, format_events

    try:  # a name that renders is what ansible shows (the markers change only what fails)
        return str(templar.template(name))
    except TemplateFailure:
        pass
    try:
        with replacing_markers(span) as markers:
            shown = templar.template(name)
    except TemplateFailure:
        return name
    if not markers.all_shown(shown):
        return name
    for message, origin in markers.warnings():
        warn(format_events([Event(message, origin)]))
    return str(shown)


def plain_name(task: Task, title: str) -> str:
    """The task's name as a retry line shows it (``CallbackTaskResult.task_name``): a named role
    task without its role prefix, an unnamed one as its banner names it."""
    prefix = f"{task.role.name} : " if task.role is not None else ""
    return title[len(prefix):] if task.name and prefix and title.startswith(prefix) else title


def failed_task(task: Task, title: str, templar: Templar) -> dict[str, Any]:
    """``ansible_failed_task``: the part of ``Task.serialize()`` a rescue section reads, of the task
    as it ran (post-validated): its keywords, its name and arguments templated. Nothing in it is
    templated again when read: a rescue task that fails with a message naming
    ``ansible_failed_task`` would otherwise read itself."""
    data = dict(task.data) if isinstance(task.data, Mapping) else {}
    data.pop(task.action, None)  # the module key; its arguments are under "args"
    try:
        args = templar.template(dict(task.args))
    except TemplateFailure:  # a loop item's, say: as written
        args = dict(task.args)
    return _unsafe({**data, "name": plain_name(task, title) if task.name else "", "action": task.action,
                    "args": args})


def _unsafe(value: Any) -> Any:
    if isinstance(value, str):
        return UnsafeText(value)
    if isinstance(value, Mapping):
        return {key: _unsafe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unsafe(item) for item in value]
    return value

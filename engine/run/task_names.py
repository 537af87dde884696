"""A task's name as the strategy shows it in its banner: templated with the variables of the
first host it runs for (``Task._post_validate_name``, best effort), an undefined expression
replaced by ansible's marker text and reported in one warning (``ReplacingMarkerBehavior``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from engine.loading.model import Task
from engine.templating.errors import undefined_cause
from engine.templating.templar import Templar, TemplateFailure
from engine.values import UnsafeText

# one ``{{ ... }}`` of a name; a name with block tags is templated whole, without markers
_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def templated_name(name: str, templar: Templar, warn: Callable[[str], None], span: Any = None) -> str:
    """``name`` templated by ``templar``; each expression whose variable is undefined becomes
    ``<< error N - MESSAGE >>`` and ``warn`` gets ansible's "Encountered N template error(s)."
    (at ``span``, the name as written); any other failure leaves the name as written."""
    if "{{" not in name and "{%" not in name:
        return name
    try:
        return str(templar.template(name))
    except TemplateFailure as exc:
        if "{%" in name or not undefined_cause(exc):
            return name
    errors: list[str] = []

    def expression(match: re.Match[str]) -> str:
        try:
            return str(templar.template(match.group(0)))
        except TemplateFailure as each:
            if not undefined_cause(each):
                raise
            errors.append(str(each))
            return f"<< error {len(errors)} - {each} >>"

    try:
        shown = _EXPRESSION.sub(expression, name)
    except TemplateFailure:
        return name
    if errors:
        from engine.run.error_block import Event, format_events

        count = f"{len(errors)} template error{'s' if len(errors) > 1 else ''}"
        listed = "\n".join(f"error {index} - {message}" for index, message in enumerate(errors, 1))
        warn(format_events([Event(f"Encountered {count}.\n{listed}", span)]))
    return shown


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

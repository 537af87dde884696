"""A task's typed keywords, validated as ansible 2.19's ``Task.post_validate`` validates them.

For every run of a task (each loop item) whose ``when`` holds, ``post_validate`` templates the
task's fields in the order of ``Task.fattributes`` and converts each to its type
(``Base._get_validated_value``): a boolean strictly (``convert_bool.boolean(strict=True)``), an
int through ``decimal.Decimal`` (a float that would be truncated is refused), a float with
``float()``. A value that does not template or does not convert fails the task before its action
runs, "Error processing keyword 'NAME'", caused by the template's error or by "The value V could
not be converted to 'TYPE'." at the value's origin.

The strategy then reads ``ignore_errors`` from the task's fields as the worker left them: the
fields validated before the failing one hold their converted values, the failing one and those
after it their values as written, so a written ``maybe`` (or any template) counts as true.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.booleans import NotABoolean, boolean
from engine.loading import keywords as kw
from engine.templating.errors import undefined_cause, value_origin
from engine.templating.load_time import is_template
from engine.templating.templar import TemplateFailure

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.span import Span
    from engine.templating.templar import Templar

# the typed keywords the engine reads, in the order of ansible's Task.fattributes
TYPED: tuple[tuple[str, str], ...] = (
    ("no_log", "bool"), ("run_once", "bool"), ("ignore_errors", "bool"), ("ignore_unreachable", "bool"),
    ("check_mode", "bool"), ("diff", "bool"), ("any_errors_fatal", "bool"), ("throttle", "int"),
    ("timeout", "int"), ("delay", "float"), ("poll", "int"), ("retries", "int"),
)
# IncludeRole's own fields, set from its arguments and validated after the task's (its fattributes' order)
ROLE_INCLUDE_TYPED: tuple[tuple[str, str], ...] = (
    ("public", "bool"), ("allow_duplicates", "bool"), ("rolespec_validate", "bool"))
IGNORE_KEY = "_ansible_ignore_errors"
"""A failed result's ``ignore_errors`` as the strategy reads it from the task's fields."""
_ONE_NAME = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")


class KeywordFailure(TemplateFailure):
    """A keyword that does not template or convert; ``ignore_errors``: the task's field as the
    strategy then reads it."""

    def __init__(self, name: str, message: str, events: list[Any], ignore_errors: bool) -> None:
        super().__init__(message)
        self.name = name
        self.events = events
        self.ignore_errors = ignore_errors


def keyword_failure(exc: KeywordFailure, warn: Callable[[str], None]) -> dict[str, Any]:
    """The failed result of a keyword that does not validate: raised out of the task before its
    attempts, ignored as the strategy reads ``ignore_errors`` then. A ``no_log`` that does not
    validate masks the output, with ansible's warning (``update_result_no_log``)."""
    from engine.run.error_block import CONTEXT_KEY, Event, failure_result, format_events

    if exc.name == "no_log":
        warn(format_events([Event("Invalid no_log value for task, output will be masked."), *exc.events]))
    return {**failure_result(exc), CONTEXT_KEY: "task", IGNORE_KEY: exc.ignore_errors}


def unvalidated_no_log(task: Task, templar: Templar, warn: Callable[[str], None]) -> None:
    """What ``update_result_no_log`` does for a result made before the task's keywords were
    validated (a false or failing ``when``, a loop's error): it validates ``no_log`` alone, and one
    that does not validate masks the output with ansible's warning."""
    if task.effective("no_log") is None:
        return
    try:
        validate_keywords(task, templar, ("no_log",))
    except KeywordFailure as exc:
        keyword_failure(exc, warn)


def convert(value: Any, isa: str) -> Any:
    """``_get_validated_value`` for a bool, int or float keyword; ValueError when it cannot."""
    try:
        if isa == "bool":
            return boolean(value, strict=True)
        if isa == "int":
            if isinstance(value, int):
                return value
            if (number := decimal.Decimal(value)) != (whole := int(number)):
                raise ValueError(f"Floating-point value {value!r} would be truncated.")
            return whole
        return float(value)
    except (TypeError, ValueError, NotABoolean, decimal.DecimalException, OverflowError) as exc:
        raise ValueError(f"The value {value!r} could not be converted to {isa!r}.") from exc


def _written(task: Task, name: str) -> tuple[Any, Span | None]:
    """The value of keyword ``name`` the task runs with (inherited or its own), and where it is
    written; an include_role's own field: its argument."""
    if task.action in kw.INCLUDE_ROLE and name in dict(ROLE_INCLUDE_TYPED):
        args = task.data.get(task.action) if isinstance(task.data, Mapping) else None
        spans = getattr(args, "value_spans", None) or {}
        return task.args.get(name), spans.get(name)
    if name in kw.INHERITED:
        sourced = task.effective(name)
        if sourced is None or isinstance(sourced, list):
            return None, None
        return sourced.value, sourced.frame.keyword_spans.get(name)
    data = task.data if isinstance(task.data, Mapping) else {}
    return data.get(name), (getattr(data, "value_spans", None) or {}).get(name)


def _origin(raw: Any, span: Span | None, templar: Templar) -> Any:
    """Where a keyword's templated value comes from: the variable a lone ``{{ name }}`` reads
    (ansible hands the variable's value, tagged with its origin), else the keyword itself."""
    match = _ONE_NAME.match(raw.strip()) if isinstance(raw, str) else None
    if match and templar.origin_of is not None:
        return templar.origin_of(match.group(1), True) or span
    return span


def validate_keywords(task: Task, templar: Templar, only: tuple[str, ...] | None = None) -> None:
    """Template and convert the task's typed keywords in ansible's order (``only`` those named);
    raises :class:`KeywordFailure` worded as ansible's for the first that fails."""
    from engine.run.error_block import Event

    ignore_errors: bool | None = None
    if only is None:
        _validate_play_context(task, templar)
    typed = TYPED + ROLE_INCLUDE_TYPED if task.action in kw.INCLUDE_ROLE else TYPED
    for name, isa in typed if only is None else [(n, isa) for n, isa in typed if n in only]:
        raw, span = _written(task, name)
        if raw is None:
            continue
        written_ignore = bool(raw) if name == "ignore_errors" else None
        try:
            value = templar.template(raw) if is_template(raw) else raw
        except TemplateFailure as exc:
            origin = value_origin(exc) if undefined_cause(exc) else None
            raise KeywordFailure(name, f"Task failed: Error processing keyword {name!r}: {exc}",
                                 [Event(f"Error processing keyword {name!r}.", span), Event(str(exc), origin or span)],
                                 _ignored(ignore_errors, written_ignore, task)) from exc
        if value is None:
            continue
        try:
            converted = convert(value, isa)
        except ValueError as exc:
            raise KeywordFailure(name, f"Task failed: Error processing keyword {name!r}: {exc}",
                                 [Event(f"Error processing keyword {name!r}.", span),
                                  Event(str(exc), _origin(raw, span, templar), alone=True)],
                                 _ignored(ignore_errors, written_ignore, task)) from exc
        if name == "ignore_errors":
            ignore_errors = converted


def written_user(task: Task, templar: Templar) -> Any:
    """The task's ``remote_user`` keyword (its block's, its play's), templated; None where none is
    written or it does not template (the engine then adds no user; :func:`_validate_play_context`
    fails the task with it)."""
    raw, _span = _written(task, "remote_user")
    if not is_template(raw):
        return raw
    try:
        return templar.template(raw)
    except TemplateFailure:
        return None


def _validate_play_context(task: Task, templar: Templar) -> None:
    """The play context's keywords the engine reads (``remote_user``: engine.run.local.remote_user),
    templated as ``set_task_and_variable_override`` and ``PlayContext.post_validate`` do before the
    task's own fields: one that does not template fails the task, "Error processing keyword", unless
    the task is delegated (ansible then leaves an undefined value to the delegated connection)."""
    from engine.run.error_block import Event

    raw, span = _written(task, "remote_user")
    if not is_template(raw) or (isinstance(task.data, Mapping) and task.data.get("delegate_to") is not None):
        return
    try:
        templar.template(raw)
    except TemplateFailure as exc:
        origin = value_origin(exc) if undefined_cause(exc) else None
        message = f"Error processing keyword 'remote_user': {exc}"
        raise KeywordFailure("remote_user", f"Task failed: {message}", [Event(message, origin or span)],
                             unvalidated_ignore_errors(task)) from exc


def _ignored(validated: bool | None, written: bool | None, task: Task) -> bool:
    """``ignore_errors`` as the worker's fields hold it after a failure: converted when it was
    validated before the failing keyword, as written when it fails itself or comes after."""
    if validated is not None:
        return validated
    if written is not None:
        return written
    raw, _ = _written(task, "ignore_errors")
    return bool(raw)


def unvalidated_ignore_errors(task: Task) -> bool:
    """``ignore_errors`` as the strategy reads it after a failure before ``post_validate`` (a loop
    or ``when`` that does not template): the field as written, so any template counts as true."""
    return _ignored(None, None, task)


def strategy_ignores(result: Mapping[str, Any], written: Callable[[], bool]) -> bool:
    """Whether the strategy ignores the failed ``result``: the ``ignore_errors`` a keyword's
    failure left in the task's fields, a loop's taken from its failed items as ``_run_loop``
    takes it (the first failed item's, turned off by any later one's false), else ``written()``
    (the keyword as the task holds it)."""
    if IGNORE_KEY in result:
        return bool(result[IGNORE_KEY])
    items = result.get("results")
    failed = [item for item in items if isinstance(item, Mapping) and item.get("failed")] \
        if isinstance(items, list) else []
    if not any(IGNORE_KEY in item for item in failed):
        return written()
    return all(bool(item[IGNORE_KEY]) if IGNORE_KEY in item else written() for item in failed)


# actions that take free-form text (``RAW_PARAM_MODULES``); any other refuses it
_TAKE_RAW = kw.RAW_PARAMS_ACTIONS | kw._family(
    "win_command", "win_shell", "include_vars", "include_tasks", "include_role", "import_tasks", "import_role",
    "add_host", "group_by", "set_fact", "meta") | {"ansible.windows.win_command", "ansible.windows.win_shell"}


def raw_params_failure(task: Task) -> dict[str, Any] | None:
    """The failure of an action that takes no free-form text given some (``debug: msg=a b``
    leaves ``b``), as ``Task._post_validate_args`` raises it before the action runs; None
    when there is none, or it is wholly a template (the action's arguments check that)."""
    from engine.run.error_block import ERROR_KEY, Event, _fqcn, _spans

    raw = task.args.get("_raw_params") if isinstance(task.args, Mapping) else None
    if not raw or task.action in _TAKE_RAW or isinstance(raw, str) and _whole_template(raw):
        return None
    message = f"Action {_fqcn(task.action)!r} does not support raw params."
    return {"failed": True, "changed": False, "msg": f"Task failed: {message}",
            ERROR_KEY: [Event(message, _spans(task.data)[0].get(task.action))]}


def _whole_template(text: str) -> bool:
    """``is_possibly_all_template``: the text is one ``{{ }}`` expression."""
    text = text.strip()
    return text.startswith("{{") and text.endswith("}}") and "{{" not in text[2:-2] and "}}" not in text[2:-2]

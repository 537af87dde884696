"""Running one task on one host: ``when``, loops, the action, failed_when/changed_when, register.

Follows ``TaskExecutor``: the whole inherited ``when`` chain is evaluated for every run (and
for every loop item), a loop's results are gathered into ansible's aggregate result, and
``register`` stores what the playbook sees.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.booleans import boolean
from engine.flow.loop_control import LoopControl
from engine.flow.loops import loop_items, loop_of
from engine.loading import keywords as kw
from engine.loading.includes import IncludeParseError
from engine.loading.model import Task
from engine.run.censoring import NO_LOG, no_log
from engine.run.conditions import ConditionFailure, condition_failure
from engine.run.keyword_types import IGNORE_KEY, unvalidated_ignore_errors, unvalidated_no_log
from engine.run.retries import ACTION_SKIP, run_attempts
from engine.run.type_warnings import warning_at
from engine.templating.errors import ForeignCause, StorageRefusal, cause_of, undefined_cause, value_origin
from engine.templating.templar import Templar, TemplateFailure
from engine.values import untrusted

ModuleLookup = Callable[[str], Any]
NO_TRACEBACK = "(traceback unavailable)"
"""What ansible 2.19 puts under ``exception`` in every failed result of a task run (not in a loop's
aggregate result): the error summary it raises from a failed result, without a traceback."""


def keyword(task: Task, name: str) -> Any:
    """The effective (inherited) value of a replace-merged keyword, or None."""
    sourced = task.effective(name)
    return getattr(sourced, "value", None)


def skipped_result(condition: Any) -> dict[str, Any]:
    return {"changed": False, "skipped": True, "skip_reason": "Conditional result was False",
            "false_condition": condition}


def failed_result(message: str) -> dict[str, Any]:
    return {"failed": True, "msg": message, "changed": False}


def false_condition(task: Task, templar: Templar) -> Any:
    """The first condition of the chain that is false, or None when all hold."""
    for sourced in task.effective_when():
        try:
            if not templar.evaluate(sourced.value):
                return sourced.value
        except TemplateFailure as exc:
            raise condition_failure(exc, _condition_span(sourced)) from exc
    return None


def _condition_span(sourced: Any) -> Any:
    """Where a condition is written: its item of a ``when`` list, else the ``when`` value."""
    written = sourced.frame.keywords.get("when")
    spans = getattr(written, "item_spans", [])
    items = written if isinstance(written, list) else []
    # the item itself, else the first equal one (the chain may hold a copy of the text)
    for same in (lambda item: item is sourced.value, lambda item: item == sourced.value):
        for index, item in enumerate(items):
            if same(item) and index < len(spans):
                return spans[index]
    return sourced.frame.keyword_spans.get("when")


def _failure(exc: TemplateFailure) -> dict[str, Any]:
    """The failed result of a templating error met before the action runs."""
    if isinstance(exc, ConditionFailure):
        from engine.run.error_block import conditional_failure

        return conditional_failure(str(exc), exc.span, exc.help, exc.origin, exc.value)
    return failed_result(str(exc))


def _loop_failure(task: Task, exc: TemplateFailure, templar: Templar) -> dict[str, Any]:
    """The failed result of a loop value that does not template (``_get_loop_items``): the
    task fails, caused by the error at the loop's value as written."""
    from engine.run.error_block import (
        BEFORE_TASK_KEY,
        CAUSE_KEY,
        ERROR_KEY,
        TEMPLATE_ERRORS,
        UNKNOWN,
        Event,
        failed_filter,
        loop_failure,
        plugin_error,
    )

    message = str(exc)
    data = task.data if isinstance(task.data, Mapping) else {}
    key = next((k for k in data if k == "loop" or str(k).startswith("with_")), None)
    # a filter of ansible's failing is raised out of the task: no "Task failed", no changed
    plugin = None if message.startswith("The filter plugin ") or undefined_cause(exc) else \
        failed_filter(exc, data.get(key))
    if plugin is not None:
        message = f"The filter plugin {plugin!r} failed: {plugin_error(message)}"
    if message.startswith(("The filter plugin ", "The lookup plugin ")):
        from engine.run.error_block import SEPARATE_KEY
        from engine.templating.errors import PluginFailure

        failure = cause_of(exc, PluginFailure)
        if isinstance(failure, PluginFailure) and failure.separate is not None:
            # an ansible filter's own error (AnsibleFilterError): a cause of its own below the plugin's failure
            return {"failed": True, "msg": message,
                    SEPARATE_KEY: (f"The {failure.kind} plugin {failure.plugin!r} failed.", str(failure.separate))}
        foreign = cause_of(exc, ForeignCause)  # a plugin's Python error: in its message, and a link of its own
        if foreign is not None:
            return {"failed": True, "msg": f"{message}: {foreign}", CAUSE_KEY: str(foreign)}
        return {"failed": True, "msg": message}
    span = (getattr(data, "value_spans", None) or {}).get(key)
    value = data.get(key)
    terms = value if isinstance(value, list) else []
    for item, item_span in zip(terms, getattr(value, "item_spans", ()), strict=False):
        try:  # a list of terms: the error is the first failing term's
            templar.template(item)
        except TemplateFailure:
            span = item_span
            break
    refused = cause_of(exc, StorageRefusal)
    if refused is not None and message.startswith(TEMPLATE_ERRORS[2]):  # a value ansible cannot store: its
        # refusal a cause of no known origin below the template's error
        return {"failed": True, "msg": message, BEFORE_TASK_KEY: True, ERROR_KEY: [
            Event("Error rendering template.", span), Event(refused.refusal, UNKNOWN, refused.shown)]}
    if message.startswith(TEMPLATE_ERRORS) and terms and key == "loop":  # at the term that failed, or
        # at the variable whose template failed, as ansible's captured error keeps its own origin
        return {"failed": True, "msg": message, ERROR_KEY: [Event(message, value_origin(exc) or span)],
                BEFORE_TASK_KEY: True}
    if loop_failure(task, message) is not None:  # its own chain (a loop that is no list), raised out of
        return {"failed": True, "msg": message}  # TaskExecutor.run before any result: no changed
    if key is None:
        return failed_result(message)
    # an undefined value met in a variable's template is at that value, as ansible chains it
    origin = value_origin(exc) if undefined_cause(exc) else None
    return {"failed": True, "changed": False, "msg": f"Task failed: {message}",
            ERROR_KEY: [Event(message, origin or span)]}


def apply_result_conditions(task: Task, result: dict[str, Any], templar: Templar) -> None:
    """What ``TaskExecutor._execute`` does to an action's result: default ``failed`` (from a
    non-zero ``rc``) and ``changed``, then ``changed_when`` / ``failed_when`` with the registered
    name bound to the result, unless the action skipped itself (a command in check mode). A skip
    the action raised is returned as it is, without ``failed``."""
    if result.pop(ACTION_SKIP, False) or result.get("unreachable"):  # raised: the connection failed, say
        result.setdefault("changed", False)
        return
    from engine.run.error_block import raised

    if result.get("failed") and raised(result):  # an error the action raised: no condition applies
        result.setdefault("changed", False)
        return
    # a command module's fail_json carries its exception, which a failed_when that clears the
    # failure keeps apart (a failure ansible's normalization adds later has none yet)
    module_exception = result.get("failed") is True and "rc" in result
    # a failure of the module's own stays its own when failed_when keeps it (ansible normalized
    # its error before the keywords ran): "Module failed: MSG", not the keywords' "Action failed"
    if result.get("failed") is True:
        from engine.run.error_block import CONTEXT_KEY, own_context

        result.setdefault(CONTEXT_KEY, own_context(result, task.action))
    if "failed" not in result:
        result["failed"] = "rc" in result and result["rc"] not in (0, "0")
    result.setdefault("changed", False)
    if "skipped" in result:
        return
    data = task.data if isinstance(task.data, Mapping) else {}
    scope = result_scope(task, result, templar)
    condname = "changed"
    try:
        if data.get("changed_when") is not None and data["changed_when"] != []:
            whens = data["changed_when"] if isinstance(data["changed_when"], list) else [data["changed_when"]]
            result["changed"] = all(scope.evaluate(c) for c in whens)
        condname = "failed"
        if data.get("failed_when") not in (None, [], ""):
            whens = data["failed_when"] if isinstance(data["failed_when"], list) else [data["failed_when"]]
            failed = all(scope.evaluate(c) for c in whens)
            result["failed_when_result"] = failed
            result["failed"] = failed
            if not failed and module_exception:
                result.pop("exception", None)
                result["failed_when_suppressed_exception"] = NO_TRACEBACK
    except TemplateFailure as exc:  # ansible fails the task and keeps the error beside the result
        result["failed"] = True
        result[f"{condname}_when_result"] = str(exc)


_CLEAN_FACTS = kw._family("set_fact", "include_vars")  # C._ACTION_WITH_CLEAN_FACTS


def result_scope(task: Task, result: dict[str, Any], templar: Templar) -> Templar:
    """What changed_when, failed_when and until see: the result under the registered name (its
    keys are not variables of their own: ``failed_when: rc != 0`` without a register fails)."""
    register = task.data.get("register") if isinstance(task.data, Mapping) else None
    facts = result.get("ansible_facts") if task.action in _CLEAN_FACTS else None
    if isinstance(facts, Mapping) and facts:  # _execute puts set_fact's and include_vars' facts
        templar = templar.child(facts)  # in the attempt's variables, before the registered result
    return templar.child({register: result} if isinstance(register, str) else {})


def attempt(task: Task, templar: Templar, action: Callable[[Templar], dict[str, Any]]) -> dict[str, Any]:
    """One run of the task (one loop item) with its until/retries attempts and result conditions."""
    result = run_attempts(task, templar, action, apply_result_conditions,
                          lambda result: result_scope(task, result, templar))
    return _with_message(task, _with_exception(result))


def _with_message(task: Task, result: dict[str, Any]) -> dict[str, Any]:
    """A failed result without ``msg`` given the brief message of its error, as
    ``result_dict_from_exception`` gives it at the end of ``TaskExecutor._execute`` (a module
    result that ``failed_when`` or a broken ``changed_when`` failed: "Task failed: Action failed:
    Unknown error."); the registered value and the callback see it."""
    if result.get("failed") and "msg" not in result:
        from engine.run.error_block import ERROR_KEY, brief, result_events

        events = result_events(result, task.action, task)
        result[ERROR_KEY] = events[1:]
        result["msg"] = brief([event.msg for event in events])
    return result


def aggregate(results: list[dict[str, Any]]) -> dict[str, Any]:
    """A loop's results as one result, as ``TaskExecutor.run`` builds it, keys in its order: the
    results, skipped, changed once an item changed, failed with its message at the first failed
    item, unreachable, then the message of a loop that did not fail, and changed false last."""
    if not results:
        return {"changed": False, "skipped": True, "skipped_reason": "No items in the list", "results": []}
    result: dict[str, Any] = {"results": results, "skipped": True}
    for item in results:
        if item.get("changed") and not result.get("changed"):
            result["changed"] = True
        if not item.get("skipped"):
            result["skipped"] = False
        if item.get("failed") and not result.get("failed"):
            result.update(failed=True, msg="One or more items failed")
        if item.get("unreachable"):
            result["unreachable"] = True
    if not result.get("failed"):
        result["msg"] = "All items completed"
    if result["skipped"]:
        result["msg"] = "All items skipped"
    result.setdefault("changed", False)
    return result


def run_with_loop(task: Task, templar: Templar, run_once: Callable[[Templar], dict[str, Any]],
                  warn: Callable[[str], None] = lambda _: None,
                  connection: Mapping[str, Any] | None = None,
                  item_done: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The task's result: ``run_once`` per loop item (or once), each behind the ``when`` chain
    and retried as ``until``/``retries`` say; ``warn`` shows ansible's warnings about the loop.
    ``connection``: the play context's variables, which all but the loop's terms see
    (engine.run.local.connection_vars). Whatever goes wrong inside (a filter that raises, a
    module's own bug) fails the task with a message, as ansible fails it; the run goes on.
    ``item_done`` sees each loop item's result once it is made, as the worker sends it."""
    try:
        return _run_with_loop(task, templar, run_once, warn, connection, item_done)
    except (TemplateFailure, IncludeParseError, KeyboardInterrupt, SystemExit):  # the last: the run ends
        raise
    except Exception as exc:  # noqa: BLE001
        return _with_exception(failed_result(f"Task failed: {exc}"))


def _invalid_loop_var(task: Task, loop_var: str) -> dict[str, Any] | None:
    """The failure of a loop whose ``loop_var`` is no variable name: ``_run_loop`` makes the
    default label a template of it (``variable_name_as_template``), which validates the name
    before the first item runs; None for a valid name (or a loop with its own label)."""
    from engine.loading.frames import VARIABLE_NAME_HELP, invalid_variable_name

    message = invalid_variable_name(loop_var)
    if message is None:
        return None
    from engine.run.error_block import BEFORE_TASK_KEY, ERROR_KEY, UNKNOWN, Event

    control = task.data.get("loop_control") if isinstance(task.data, Mapping) else None
    span = (getattr(control, "value_spans", None) or {}).get("loop_var")
    written = control.get("loop_var") if isinstance(control, Mapping) else None
    # a value other than a string is converted to text (the text has no origin)
    event = Event(message, span, help=VARIABLE_NAME_HELP) if isinstance(written, str) else \
        Event(message, UNKNOWN, value=loop_var, help=VARIABLE_NAME_HELP)
    return {"failed": True, "msg": message, ERROR_KEY: [event],
            BEFORE_TASK_KEY: True}


def _with_exception(result: dict[str, Any]) -> dict[str, Any]:
    """A failed result with ansible's ``exception`` key (a loop's aggregate result has none)."""
    if result.get("failed"):
        result.setdefault("exception", NO_TRACEBACK)
    return result


def _run_with_loop(task: Task, templar: Templar, run_once: Callable[[Templar], dict[str, Any]],
                   warn: Callable[[str], None], connection: Mapping[str, Any] | None = None,
                   item_done: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    loop = loop_of(task)
    loop_templar, templar = templar, templar.child(connection) if connection else templar
    if loop is None:
        try:
            condition = false_condition(task, templar)
        except TemplateFailure as exc:
            unvalidated_no_log(task, templar, warn)
            return {**_with_exception(_failure(exc)), IGNORE_KEY: unvalidated_ignore_errors(task)}
        if condition is not None:
            unvalidated_no_log(task, templar, warn)
            return skipped_result(condition)
        try:
            return attempt(task, templar, run_once)
        except TemplateFailure as exc:
            return _with_exception(_failure(exc))
    try:
        spans = getattr(task.data, "value_spans", None) or {}
        with warning_at(spans.get(next((k for k in task.data if k == "loop" or str(k).startswith("with_")), None)),
                        warn):
            items = loop_items(loop[0], loop[1], loop_templar)
    except TemplateFailure as exc:
        if undefined_cause(exc):  # TaskExecutor keeps an undefined loop's error until when is known
            try:
                condition = false_condition(task, templar)
            except TemplateFailure:
                condition = None  # "loop error takes precedence"
            if condition is not None:
                unvalidated_no_log(task, templar, warn)
                return skipped_result(condition)
        unvalidated_no_log(task, templar, warn)
        return {**_with_exception(_loop_failure(task, exc, templar)), IGNORE_KEY: unvalidated_ignore_errors(task)}
    try:
        control = LoopControl.of(task, templar)
    except (TemplateFailure, ValueError) as exc:
        return _with_exception(failed_result(f"Invalid loop_control: {exc}"))
    if items and control.label is None and (failure := _invalid_loop_var(task, control.loop_var)) is not None:
        return _with_exception(failure)
    if items and control.loop_var in templar.variables:  # an include's loop item, a variable of that name
        warn(_loop_var_in_use(control.loop_var))
    register = task.data.get("register") if isinstance(task.data, Mapping) else None
    carried: dict[str, Any] = {}  # what earlier items left in ansible's shared task_vars
    results = []
    spans = _item_spans(loop[1], items, templar)
    for index in range(len(items)):
        scope = {**carried, **control.item_vars(items, index)}
        if control.pause and index > 0:
            time.sleep(control.pause)
        item_templar = templar.child(scope, {control.loop_var: spans[index]} if spans else None)
        try:
            condition = false_condition(task, item_templar)
        except TemplateFailure as exc:
            condition, item_result = None, _with_exception(_failure(exc))
            unvalidated_no_log(task, item_templar, warn)
        else:
            if condition is not None:
                item_result = skipped_result(condition)
                unvalidated_no_log(task, item_templar, warn)
            else:
                try:
                    item_result = attempt(task, item_templar, run_once)
                except TemplateFailure as exc:
                    item_result = _with_exception(_failure(exc))
        item_result.update(control.result_keys(scope))
        if keyword(task, "no_log") is not None:  # TaskExecutor._execute templates it per item
            item_result[NO_LOG] = no_log(task, item_templar)
        if isinstance(register, str):  # ansible registers each item's result before the label
            scope[register] = item_result
        if control.label is not None:
            try:
                item_result["_ansible_item_label"] = templar.child(scope).template(control.label)
            except TemplateFailure as exc:
                item_result.update(failed=True, msg=f"Failed to template loop_control.label: {exc}")
        else:  # the label's default is "{{ LOOP_VAR }}": the item, whatever the loop var's name
            item_result["_ansible_item_label"] = scope[control.loop_var]
        if item_done is not None:
            item_done(item_result)
        results.append(item_result)
        # TaskExecutor updates the loop's task_vars with each item's facts (set_fact, say) and
        # registered result, so the next item sees them
        if isinstance(item_result.get("ansible_facts"), Mapping):
            carried.update(item_result["ansible_facts"])
        if isinstance(register, str):
            carried[register] = item_result
        if control.break_when and all(templar.child({**scope, **carried}).evaluate(c) for c in control.break_when):
            break
    return aggregate(results)


def _item_spans(raw: Any, items: list[Any], templar: Templar) -> list[Any] | None:
    """Where each loop item is written, as ansible's Origin tag keeps it on the value: the items of
    a list written on the task (``loop: [a, b]``, ``with_items: [a, b]``) or of the one variable
    the loop names (``loop: "{{ flags }}"``), when the run took them as written."""
    from engine.span import Span

    source = raw
    if isinstance(raw, str) and templar.origin_of is not None:
        name = raw.strip()
        if name.startswith("{{") and name.endswith("}}") and name[2:-2].strip().isidentifier():
            source = templar.raw.get(name[2:-2].strip())
    spans = getattr(source, "item_spans", None)
    if not spans or len(spans) != len(items) or list(source) != items:
        return None
    return [span._replace(file=os.path.abspath(span.file)) if isinstance(span, Span) else None for span in spans]


def _loop_var_in_use(loop_var: str) -> str:
    """``TaskExecutor._run_loop``'s warning, with the origin ansible gives it (none)."""
    from engine.run.error_block import UNKNOWN, Event, format_events

    return format_events([Event(f"The loop variable {loop_var!r} is already in use.", UNKNOWN, value=loop_var,
                                help="You should set the `loop_var` value in the `loop_control` option for the task "
                                     "to something else to avoid variable collisions and unexpected behavior.")])


def registered(result: Mapping[str, Any], keep_invocation: bool = False) -> dict[str, Any]:
    """What ``register`` stores: the result without internal keys, and without the module's
    ``invocation`` at the top (a loop's item results keep theirs), as the strategy stores it;
    ``ansible_failed_result`` keeps it. Its strings are never templated again."""
    def clean(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: clean(v) for k, v in value.items() if not str(k).startswith("_ansible")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    cleaned = clean(result)
    if not keep_invocation:
        cleaned.pop("invocation", None)
    _hoist_item_warnings(cleaned)
    return untrusted(cleaned)  # type: ignore[return-value]


def _hoist_item_warnings(result: dict[str, Any]) -> None:
    """A loop's result as ``TaskExecutor.run`` builds it: the items' ``warnings`` and
    ``deprecations`` move up to the loop's result (each item's were shown with it)."""
    items = result.get("results")
    if not isinstance(items, list) or not all(isinstance(item, dict) and "ansible_loop_var" in item for item in items):
        return
    for item in items:
        for array in ("warnings", "deprecations"):
            if item.get(array):
                value = item.pop(array)
                result[array] = [*result.get(array, []), *(value if isinstance(value, list) else [value])]


def truth(value: Any, templar: Templar, default: bool = False) -> bool:
    if value is None:
        return default
    return boolean(templar.template(value))  # a keyword's value, read as ansible reads keywords


def include_item_vars(task: Task, templar: Templar) -> dict[str, Any]:
    """What IncludedFile keeps of a loop item (its special vars) to tell includes apart and
    label them: the loop var and the item's label (``loop_control.label``, else the item)."""
    from engine.flow.loops import loop_of

    variables = templar.variables
    loop_var = variables.get("ansible_loop_var")
    if not loop_var or loop_var not in variables or loop_of(task) is None:
        return {}  # (an include in a looped include's file sees its loop vars, but loops over nothing)
    label: Any = variables[loop_var]
    control = task.data.get("loop_control") if isinstance(task.data, Mapping) else None  # not inherited
    if isinstance(control, Mapping) and control.get("label") is not None:
        try:
            label = templar.template(control["label"])
        except TemplateFailure:
            pass
    return {loop_var: variables[loop_var], "ansible_loop_var": loop_var, "_ansible_item_label": label}


def templated_diff(task: Task, templar: Templar) -> bool | None:
    """The task's ``diff`` keyword when it is a template, rendered as post_validate renders it
    (the callback reads a written one itself), else None."""
    value = keyword(task, "diff")
    if not (isinstance(value, str) and "{" in value):
        return None
    try:
        return truth(value, templar)
    except TemplateFailure:
        return None

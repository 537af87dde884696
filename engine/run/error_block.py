"""The ``[ERROR]: Task failed: ...`` block ansible-core 2.19 prints before a failed result.

The default callback's ``_handle_warnings_and_exception`` shows the ``exception`` of a failed
result through ``Display._error``: the brief message (the chain of messages joined by ": "),
then, when the chain holds more than one source position, every link with its own ``Origin``
and source excerpt, separated by ``<<< caused by >>>`` (``_event_formatting``). The engine
describes a failure by a chain of :class:`Event` values: the task (``Task failed.``), what
failed in it (``Module failed.``, ``Action failed.``, ``Finalization of task args for ...``)
and the cause, each with the span of the YAML it came from when ansible knows it.

A failed result carries its chain under :data:`ERROR_KEY` when the engine knows more than the
message (templating errors, keyword errors); otherwise :func:`result_events` derives it from
the action and the message, as ``AnsibleActionCapturedError`` / ``AnsibleModuleCapturedError``
do (``_internal/_errors/_captured.py``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.span import Span
from engine.templating.errors import (
    ForeignCause,
    PluginFailure,
    SeparateFailure,
    StorageRefusal,
    cause_of,
    value_origin,
)
from engine.templating.tagged_retry import REPLAYED

ERROR_KEY = "_ansible_error_chain"
SEPARATE_KEY = "_ansible_separate_cause"
"""A loop value's plugin failure whose error ansible shows as a cause of its own: (the plugin's
failure, its error)."""
"""A failed result's own chain below ``Task failed.``: a list of :class:`Event`."""
CONTEXT_KEY = "_ansible_error_context"
"""Who reported a failure the result carries no chain for: ``action`` (failed_when, the action
plugin's own result), ``module``, or ``task`` (an exception: the message follows
``Task failed:`` directly)."""
BEFORE_TASK_KEY = "_ansible_error_before_task"
"""Marks a failed result whose chain (:data:`ERROR_KEY`) ansible raises out of the task's loop
before any item runs (an invalid ``loop_var``): no ``Task failed.`` above it."""
CAUSE_KEY = "_ansible_error_cause"
"""A failed result's Python error a plugin chained under its message (which ends with it)."""

UNKNOWN = "<unknown>"
CONTEXT_LINES, MAX_WIDTH, TRUNCATION = 2, 120, "..."

# actions whose results ansible's action plugin makes itself, without running a module
ACTION_ONLY = frozenset(
    name for short in ("debug", "assert", "fail", "set_fact", "raw", "script", "pause", "include_vars", "add_host",
                       "group_by", "set_stats", "validate_argument_spec", "meta", "include_tasks", "include_role",
                       "import_tasks", "import_role", "wait_for_connection")
    for name in (short, f"ansible.builtin.{short}", f"ansible.legacy.{short}")
)
# messages that ansible's action plugins raise (AnsibleActionFail and the like) rather than
# return: the message follows "Task failed:" directly
RAISED = re.compile(
    r"^(Unexpected AnsibleActionFail error: |Failed to get information on remote file |An error occurred while "
    r"trying to read the file |dest '.*' must be an existing dir$|chdir workdir must be an absolute path|This action "
    r"\(.*\) does not support async\.$|Could not find or access |'state' cannot be specified on a template$|"
    r"src and dest are required$|newline_sequence needs to be one of: |No key/value pairs provided, at least one is "
    r"required for this action to succeed$)"
)
# failures that the action plugin of a module-backed action returns itself, before or instead of
# running its module: "Action failed: MSG"
ACTION_MESSAGES = re.compile(r"^(can not use content with a dir as dest|src \(or content\) is required|"
                             r"dest is required|src and content are mutually exclusive)$")
# an action plugin's own arguments refused by ActionBase.validate_argument_spec (debug's msg and var)
ARGUMENT_SPEC = re.compile(r"^(parameters are mutually exclusive: |missing required arguments: |"
                           r"argument '[^']+' is of type \S+ and we were unable to convert to |"
                           r"Unsupported parameters for \(\S+\) module: )")
TASK_FAILED = "Task failed: "


def raised(result: Mapping[str, Any]) -> bool:
    """Whether ansible's action raised this failure rather than returning it: the task fails
    with it whatever its failed_when, changed_when or until say."""
    msg = result.get("msg")
    return result.get(CONTEXT_KEY) == "task" or (isinstance(msg, str) and RAISED.match(msg) is not None)
TEMPLATE_ERRORS = ("Syntax error in template", "Syntax error in expression", "Error rendering template: ")
"""How ansible words an error of the template itself rather than of a variable it reads."""


@dataclass(frozen=True)
class Event:
    """One link of an error chain: its message, where it came from and any help text."""

    msg: str
    origin: Span | str | None = None  # a span, a file, UNKNOWN (with ``value``), or None: no source context
    value: str | None = None  # shown in place of a source excerpt for an origin ansible does not know
    help: str | None = None
    alone: bool = False  # a cause chained from another error: its own segment, though it has no context

    def context(self) -> str | None:
        """``SourceContext`` as ansible renders it, or None when the event has none."""
        if isinstance(self.origin, Span):
            return source_context(self.origin)
        if isinstance(self.origin, str):  # UNKNOWN, or a file without a position (a template file)
            lines = [f"Origin: {self.origin}"]
            if self.value is not None:
                lines += ["", _shorten(self.value)]
            return "\n".join(lines)
        return None


def _shorten(value: str, width: int = MAX_WIDTH) -> str:
    import textwrap

    return textwrap.shorten(value, width=width)


def source_context(span: Span) -> str:
    """``SourceContext.from_origin``: ``Origin: FILE:LINE:COL`` and the lines up to the span's
    with a caret line under its column."""
    return annotated_lines(span.file, span.line + 1, span.col + 1)


def annotated_lines(path: str, line_num: int, col_num: int | None) -> str:
    """``SourceContext.from_origin`` of a file's line and column, or of a whole line (an INI
    inventory's variable: no column, the line underlined)."""
    import os

    origin = f"Origin: {os.path.abspath(path)}:{line_num}" + ("" if col_num is None else f":{col_num}")
    start = max(0, line_num - 1 - CONTEXT_LINES)
    try:
        with open(path, encoding="utf-8") as src:
            lines = src.read().split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        return f"{origin}\n\n(source not shown: {type(exc).__name__})"
    if len(lines) < line_num:
        return f"{origin}\n\n(source not shown: file truncated)"
    width = len(str(line_num))
    max_len = usable = MAX_WIDTH - width - 1
    annotated = []
    for number, line in enumerate(lines[start:line_num], start + 1):
        line = line.replace("\t", " ")
        if len(line) > max_len:
            line = line[:max_len - len(TRUNCATION)] + TRUNCATION
            usable = max_len - len(TRUNCATION)
        annotated.append(f"{str(number).rjust(width)}{' ' if line else ''}{line}")
    if col_num is None:
        annotated.append(f"{' ' * width} {'^' * (len(annotated[-1]) - width - 1)}")
    elif usable >= col_num >= 1:
        marker = f"column {col_num}"
        index = col_num - 1
        if index + 2 + len(marker) > max_len:
            marker = f"{' ' * (index - len(marker) - 1)}{marker} ^"
        else:
            marker = f"{' ' * index}^ {marker}"
        annotated.append(f"{' ' * width} {marker}")
    return "\n".join([origin, "", *annotated])


def _concat(left: str, right: str) -> str:
    return f"{left.rstrip('. ')}: {right}"


def brief(messages: list[str]) -> str:
    """``deduplicate_message_parts``: the messages joined by ": ", a cause already at the end
    of the message before it not repeated."""
    parts = list(reversed(messages))
    message = parts.pop(0)
    for part in parts:
        message = part if part.endswith(message) else _concat(part, message)
    return message


def problem_text(problem: Any) -> str:
    """What ``Display.error`` shows of an ``AnsibleParserError`` the engine met loading a file
    (an :class:`engine.loading.model.Problem`): its chain when the engine words it as ansible
    does, else its message where it is written."""
    chain = problem.chain or ((problem.message, problem.span, None),)
    return format_events([Event(message, UNKNOWN, value[0], help_text) if span is None and value
                          else Event(message, span, help=help_text) for message, span, help_text, *value in chain])


def format_events(events: list[Event]) -> str:
    """``format_event_verbose_message`` + ``format_event`` (without traceback) for a chain: links
    without a source context of their own fold into the link before them."""
    segments: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        messages = [event.msg]
        j = i + 1
        while j < len(events) and _folds(events[j], event):
            messages.append(events[j].msg)
            j += 1
        lines = [brief(messages)]
        context = event.context()
        if event.help and context is None and "\n" not in lines[0] and "\n" not in event.help:
            lines = [f"{lines[0]} {event.help}"]
        else:
            if context is not None:
                lines.append(context)
            if event.help:
                lines += ["", event.help]
        segments.append("\n".join(lines) + "\n")
        if j < len(events):
            segments.append("\n<<< caused by >>>\n\n")
        i = j
    if len(segments) > 1:
        segments.insert(0, brief([e.msg for e in events]) + "\n\n")
    text = "".join(segments).strip()
    return text + ("\n\n" if "\n" in text else "\n")


def _folds(event: Event, into: Event) -> bool:
    """Whether ``event`` (the cause of ``into``) collapses into it: it has no context or help
    text, or the same as ``into``. The contexts are compared as ansible compares them, as text:
    an unnamed task and its action's key start at the same line and column, so the task's
    ``Task failed.`` and the action's failure share one excerpt, whatever their spans' ends."""
    if event.alone:
        return False
    if event.origin is None and not event.help:
        return True
    return (event.context(), event.help) == (into.context(), into.help)


def result_events(result: Mapping[str, Any], action: str, source: Any) -> list[Event]:
    """The chain ansible reports for a failed result of ``action`` in the task ``source`` (an
    engine Task, or None when there is none)."""
    if "reason" in result and ("include" in result or ERROR_KEY in result) and "msg" not in result:
        # the strategy's error loading an included file (an included role's at its name)
        return list(result.get(ERROR_KEY) or [Event(str(result["reason"]))])
    task = Event("Task failed.", getattr(source, "span", None))
    chain = result.get(ERROR_KEY)
    if isinstance(chain, list) and chain:  # a chain from the task's own link on, when it has no source
        return chain if chain[0].msg == task.msg or result.get(BEFORE_TASK_KEY) else [task, *chain]
    msg = result.get("msg")
    msg = "Unknown error." if msg is None else str(msg)
    cause = result.get(CAUSE_KEY)
    if source is not None and (loop := loop_failure(source, msg.removesuffix(f": {cause}") if cause else msg,
                                                    result.get(SEPARATE_KEY))):
        return [*loop, Event(str(cause), alone=True)] if cause else loop
    context = result.get(CONTEXT_KEY)
    if msg.startswith(TASK_FAILED):  # the engine's message already is the whole chain
        return [task, Event(msg[len(TASK_FAILED):])]
    if context is None:
        context = own_context(result, action)
    if context == "module" and _failed_by_task(result):
        context = "action"
    if context == "task":
        # the template action's AnsibleFileNotFound keeps a cause of its own: not folded
        return [task, Event(msg, alone=msg.startswith("Could not find or access "))]
    return [task, Event("Action failed." if context == "action" else "Module failed."), Event(msg)]


def own_context(result: Mapping[str, Any], action: str) -> str:
    """Who reported a failure the action's result carries, the task's keywords aside: ``task``
    (an exception), ``action`` (the action plugin's own result) or ``module``."""
    msg = str(result.get("msg"))
    if RAISED.match(msg) or result.get("unreachable"):  # AnsibleConnectionFailure is raised too
        return "task"
    if action in ACTION_ONLY and ARGUMENT_SPEC.match(msg):  # validate_argument_spec raises AnsibleActionFail
        return "task"
    return "action" if action in ACTION_ONLY or ACTION_MESSAGES.match(msg) else "module"


def _failed_by_task(result: Mapping[str, Any]) -> bool:
    """Whether the task's keywords failed a result its module did not: ``failed_when`` or
    ``until`` retries running out on a result whose module did not fail (no failing return code,
    no failure the result names as the module's), or whose failure ``failed_when`` cleared; the
    module's own failure carries its error, and ansible then reports the module's result."""
    by_keywords = result.get("failed_when_result") is True or "attempts" in result
    # a condition that could not be evaluated keeps its error in place of its result
    errored = any(isinstance(result.get(f"{name}_when_result"), str) for name in ("changed", "failed"))
    module_failed = result.get(CONTEXT_KEY) == "module" or result.get("rc") not in (0, "0", None)
    # a module's failure its failed_when cleared, then until ran out: the keywords' failure
    cleared = result.get("failed_when_result") is False
    return (by_keywords or errored) and (not module_failed or cleared)


def error_text(result: Mapping[str, Any], action: str, source: Any) -> str:
    """What ``Display._error`` writes for a failed result: ``[ERROR]: `` and the formatted chain
    (ending in a blank line when it spans several lines)."""
    return "[ERROR]: " + format_events(result_events(result, action, source))


def _is_jinja_filter(plugin: str) -> bool:
    from engine.templating.templar import environment

    function = environment().filters.get(plugin.removeprefix("ansible.builtin."))
    return function is not None and str(getattr(inspect.unwrap(function), "__module__", "")) == "jinja2.filters"


def _fqcn(action: str) -> str:
    """The resolved name ansible's messages use: ``debug`` is ``ansible.builtin.debug``."""
    if action.startswith("ansible.legacy."):
        action = action[len("ansible.legacy."):]
    return action if "." in action else f"ansible.builtin.{action}"


def _spans(data: Any) -> tuple[dict[Any, Span], dict[Any, Span]]:
    return getattr(data, "key_spans", {}) or {}, getattr(data, "value_spans", {}) or {}


def finalization_failure(task: Any, template: Any, exc: Exception) -> dict[str, Any]:
    """The failed result of a task whose arguments do not template (``Task.post_validate`` of
    the args): ``Finalization of task args for 'FQCN' failed`` at the action's key, caused by
    ``Error while resolving value for 'KEY'`` at the argument's value. ``template`` templates
    one value (it raises as the whole did); the first argument that fails is the one named, in
    the sorted order of their names (``ChainTemplar.keys``), not as written."""
    from engine.templating.errors import undefined_cause

    key_spans, _ = _spans(task.data)
    action_span = key_spans.get(task.action)
    args = task.data.get(task.action) if isinstance(task.data, Mapping) else None
    _, value_spans = _spans(args)
    failing, cause, plugin, foreign = None, str(exc), None, None
    refused: StorageRefusal | None = None
    origin: Span | str | None = None
    separate: SeparateFailure | None = None
    kind = "filter"
    for key, value in sorted(task.args.items(), key=lambda item: str(item[0])):
        try:
            with REPLAYED.replaying():  # a lookup that ran for the whole does not run again
                template(value)
        except PluginFailure as each:  # a port of an ansible-core filter failed
            separate, kind = each.separate, each.kind
            failing, cause, plugin = key, str(separate or each), each.plugin if separate else None
            break
        except Exception as each:  # noqa: BLE001 - the first argument that fails, as the whole did
            # an undefined value a filter meets is ansible's own template error, not the plugin's
            failing, cause, plugin = key, str(each), None if undefined_cause(each) else failed_filter(each, value)
            if plugin is not None:
                cause = plugin_error(cause)
            # a plugin's error (AnsibleTemplatePluginError) is an AnsibleTemplateError already: met
            # through a variable, ansible gives it the outer template, not the variable's value
            origin = value_origin(each) if plugin is None and not _PLUGIN_ERROR.match(cause) else None
            foreign = cause_of(each, ForeignCause)
            refused = cause_of(each, StorageRefusal)
            if plugin is not None and _is_jinja_filter(plugin):  # a Python error of Jinja's filter: one line
                cause, plugin = f"The filter plugin {plugin!r} failed: {cause}", None
            break
    chain = [Event(f"Finalization of task args for {_fqcn(task.action)!r} failed.", action_span)]
    if failing is not None:
        from engine.loading import keywords as kw

        # free-form arguments ("include_vars: '{{ f }}.yml'"): the failing one is where the text is
        where = value_spans.get(failing) or (None if isinstance(args, Mapping) else _spans(task.data)[1].get(
            task.action)) or action_span
        # include_tasks holds its file as _raw_params, whichever way it is written
        failing = "_raw_params" if failing == "file" and task.action in kw.INCLUDE_TASKS else failing
        if plugin is not None:  # AnsibleTemplatePluginError: the plugin's failure, then its error
            own = Event(cause, alone=True) if separate is None or not (separate.has_obj or separate.help) else \
                Event(cause, UNKNOWN if separate.has_obj else None, str(separate.obj) if separate.has_obj else None,
                      separate.help, alone=True)
            chain += [Event(f"Error while resolving value for {failing!r}: The {kind} plugin {plugin!r} failed.",
                            where), own]
        elif refused and cause.startswith(TEMPLATE_ERRORS[2]):
            chain += [Event(f"Error while resolving value for {failing!r}: Error rendering template.", where),
                      Event(refused.refusal, UNKNOWN, refused.shown)]
        elif origin is not None:
            chain += [Event(f"Error while resolving value for {failing!r}.", where), Event(cause, origin)]
        else:
            chain.append(Event(f"Error while resolving value for {failing!r}: {cause}", where))
            if foreign is not None:  # a plugin's Python error: a link of its own
                chain.append(Event(str(foreign), alone=True))
    else:
        chain.append(Event(cause))
    # raised out of the task executor (post_validate): its changed_when and failed_when never run
    return {"failed": True, "changed": False, "msg": brief(["Task failed.", *(e.msg for e in chain)]),
            ERROR_KEY: chain, CONTEXT_KEY: "task"}


def conditional_failure(message: str, span: Span | None, help: str | None = None,
                        origin: Span | str | None = None, value: str | None = None) -> dict[str, Any]:
    """The failed result of a ``when`` that cannot be evaluated (``Conditional.evaluate_conditional``
    raises before the action): the error, at the condition as written; with the ``origin`` of
    the variable value it was met in, the condition's own words, caused by the error there (shown
    with ``value`` where that origin is unknown)."""
    chain = _caused(message, span, origin, value) if origin is not None else [Event(message, span, help=help)]
    return {"failed": True, "changed": False, "msg": brief(["Task failed.", message]), ERROR_KEY: chain}


def _caused(message: str, span: Span | None, origin: Span | str, value: str | None = None) -> list[Event]:
    """``PREFIX: CAUSE`` as ansible chains it: the prefix at ``span``, the cause at ``origin``."""
    prefix, _, cause = message.partition(": ")
    return [Event(f"{prefix}.", span), Event(cause, origin, value)]


def plugin_error(message: str) -> str:
    """The message of a Python error a filter raised, as ansible shows it after "The filter plugin
    'NAME' failed:": the plugin's own error, without the wording of an error of the template."""
    return message.removeprefix("Error rendering template: ")


def failed_filter(exc: BaseException, text: Any) -> str | None:
    """The ansible name of the engine filter that raised the cause of ``exc`` (a frame of its
    traceback runs the filter's code), or None; of filters sharing code, the one ``text`` uses."""
    cause = exc.__cause__
    if cause is None or not isinstance(text, str):
        return None
    from engine.templating.templar import environment

    codes = set()
    tb = cause.__traceback__
    while tb is not None:
        codes.add(tb.tb_frame.f_code)
        tb = tb.tb_next
    # the filter's own function, not a wrapper many filters share (the templar's list-making one);
    # ansible loads Jinja's own filters as ansible.builtin plugins too
    names = [name for name, func in environment().filters.items()
             if getattr(inspect.unwrap(func), "__code__", None) in codes
             and str(getattr(inspect.unwrap(func), "__module__", "")).startswith(("engine.", "jinja2.filters"))]
    used = [name for name in names if re.search(rf"\|\s*{re.escape(name)}\b", text)]
    return f"ansible.builtin.{(used or names)[0]}" if names else None


def loop_failure(task: Any, message: str, separate: tuple[str, str] | None = None) -> list[Event] | None:
    """The chain of an error of the ``loop`` value (``TaskExecutor._get_loop_items``), which
    ansible raises before the task runs: no ``Task failed``, the value's origin, help text;
    ``separate``: a plugin's failure and the error of its own it chains (:data:`SEPARATE_KEY`)."""
    if message.startswith("The lookup plugin ") and any(str(k).startswith("with_") for k in
                                                        (task.data if isinstance(task.data, Mapping) else {})):
        return [Event(message, UNKNOWN, value="invoke_lookup()")]  # a with_ loop's lookup: ansible knows no origin
    # failing in the loop's value: a plugin, or the template itself (create_template_error's wording)
    plugin = message.startswith(("The filter plugin ", "The lookup plugin ", *TEMPLATE_ERRORS))
    if not message.startswith("The `loop` value must resolve to a 'list'") and not plugin:
        return None
    _, value_spans = _spans(task.data)
    key = next((k for k in (task.data if isinstance(task.data, Mapping) else {})
                if k == "loop" or str(k).startswith("with_")), "loop")
    if plugin and separate is not None:
        return [Event(separate[0], value_spans.get(key)), Event(separate[1], alone=True)]
    if plugin:
        return [Event(message, value_spans.get(key))]
    return [Event(message, value_spans.get(key),
                  help="Provide a list of items/templates, or a template resolving to a list.")]


def failure_result(exc: Exception) -> dict[str, Any]:
    """The failed result of an error the engine raised while preparing a task, with the chain of
    events the error carries (``events``), if any, below ``Task failed.``."""
    msg = str(exc)
    result: dict[str, Any] = {"failed": True, "msg": msg, "changed": False}
    events = getattr(exc, "events", None)
    if isinstance(events, list) and events:
        result[ERROR_KEY] = events
    return result


EMBEDDED = "Jinja constant strings should not contain embedded templates."
EMBEDDED_HELP = ("Use inline expressions, for example: `msg: \"{{ lookup('env', '{{ a_var }}') }}\"` becomes "
                 "`msg: \"{{ lookup('env', a_var) }}\"`")
_PLUGIN_ERROR = re.compile(r"The (?:filter|test|lookup) plugin '[^']*' (?:failed|was not found)")
_EMBEDDED_CONSTANT = re.compile(r"""(['"])[^'"]*\{\{.*?\}\}[^'"]*\1""")


def _embedded_template_origin(data: Any) -> Span | None:
    """The span of the first value of a task written with a string constant that holds a
    template (``lookup('file', '{{ name }}')``), searched through its keywords and arguments."""
    if isinstance(data, Mapping):
        spans = getattr(data, "value_spans", {}) or {}
        pairs: list[tuple[Any, Span | None]] = [(value, spans.get(key)) for key, value in data.items()]
    elif isinstance(data, list):
        spans_list = getattr(data, "item_spans", []) or []
        pairs = [(value, spans_list[i] if i < len(spans_list) else None) for i, value in enumerate(data)]
    else:
        return None
    for value, span in pairs:
        if isinstance(value, str) and "{{" in value and _EMBEDDED_CONSTANT.search(value.split("{{", 1)[1]):
            return span
        if isinstance(value, (Mapping, list)) and (found := _embedded_template_origin(value)):
            return found
    return None


EMBEDDED_CONDITIONAL_HELP = ("Use inline expressions, for example: `when: \"{{ a_var }}\" == 42` becomes "
                             "`when: a_var == 42`")
CONDITIONALS = ("when", "changed_when", "failed_when", "until")
_ASSERT = frozenset({"assert", "ansible.builtin.assert", "ansible.legacy.assert"})


def _written(value: Any, span: Span | None) -> list[tuple[Any, Span | None]]:
    """(condition, where it is written) of a condition's value: each item of a list, else the value."""
    if not isinstance(value, list):
        return [(value, span)]
    spans = getattr(value, "item_spans", None) or []
    return [(item, spans[index] if index < len(spans) else span) for index, item in enumerate(value)]


def _conditions(data: Any, action: Any = None, args: Any = None,
                spans: Mapping[str, Any] | None = None) -> list[tuple[Any, Span | None]]:
    """Each condition written in ``data`` (a task's or a block's keywords) with where it is written:
    ``when``, then the ``that`` of an assert ``action`` (``args`` its arguments; written as a
    ``key=value`` string, at that string), then ``changed_when``, ``failed_when`` and ``until``, in
    the order TaskExecutor evaluates them; ``spans``: where the keywords are written, when ``data``
    does not know. Each keeps its origin in ansible, which its warnings show."""
    if not isinstance(data, Mapping):
        return []
    spans = spans or getattr(data, "value_spans", None) or {}
    found = _written(data.get("when"), spans.get("when"))
    if action in _ASSERT:
        written = data.get(action)
        if isinstance(written, Mapping):
            found += _written(written.get("that"), (getattr(written, "value_spans", None) or {}).get("that"))
        elif isinstance(args, Mapping):
            found += _written(args.get("that"), spans.get(action))
    return found + [pair for key in CONDITIONALS[1:] for pair in _written(data.get(key), spans.get(key))]


def _task_conditions(task: Any) -> list[tuple[Any, Span | None]]:
    return _conditions(getattr(task, "data", None), getattr(task, "action", None), getattr(task, "args", None))


def _embedded_conditional_origin(task: Any) -> Span | None:
    """The span of the first condition of a task whose expression holds a string constant with a
    template (``'{{ n }}' in out.stdout``): ansible renders it, and warns at the condition."""
    for item, span in _task_conditions(task):
        if isinstance(item, str) and _EMBEDDED_CONSTANT.search(item):
            return span
    return None


def condition_span(task: Any, conditional: str) -> Span | None:
    """Where ``conditional`` is written: a condition of the task's own (``when``, ``changed_when``,
    ``failed_when``, ``until``, an item of their lists, an assert's ``that``) or of a block around it."""
    blocks = [_conditions(getattr(s.frame, "keywords", None), spans=getattr(s.frame, "keyword_spans", None))
              for s in task.effective_when()]
    # the condition itself first (a role's when and an assert's that may be written alike), else its text
    for same in (lambda item: item is conditional, lambda item: item == conditional):
        for conditions in [_task_conditions(task), *blocks]:
            for item, span in conditions:
                if same(item):
                    return span
    return None


def embedded_warning(templar: Any) -> str:
    """ansible's warning for a string constant holding a template that a lookup's call renders: at
    the variable whose value holds it when a variable is being rendered (where it is written, with
    the excerpt and help text), else without a place (:func:`warning_text` finds it in the task)."""
    from engine.templating.lazy_variables import rendering_variable
    from engine.templating.pure_lookups import EMBEDDED_WARNING

    name = rendering_variable()
    origin_of = getattr(templar, "origin_of", None)
    origin = origin_of(name, False) if name is not None and origin_of is not None else None
    if not isinstance(origin, Span):
        return EMBEDDED_WARNING
    return format_events([Event(EMBEDDED_WARNING, origin, help=EMBEDDED_HELP)])


def warning_text(message: str, task: Any) -> str:
    """A warning as ``Display._warning`` formats it: those ansible gives a source context (a
    template embedded in a string constant, at the condition or the value that holds it) with
    their Origin, excerpt and help text, the others as they are."""
    if not message.startswith(EMBEDDED) or "\n" in message:  # or placed already (at a variable)
        return message
    data = getattr(task, "data", None)
    origin = _embedded_conditional_origin(task)
    if origin is not None:
        return format_events([Event(message, origin, help=EMBEDDED_CONDITIONAL_HELP)])
    origin = _embedded_template_origin(data)
    if origin is None:
        return message
    return format_events([Event(message, origin, help=EMBEDDED_HELP)])


def unparsable_vars_file(failure: Any) -> dict[str, Any]:
    """The failed result of an ``include_vars`` directory holding a file that does not parse:
    the action lets the file's ``AnsibleYAMLParserError`` through (a ``YamlFailure``), shown as
    the cause of ``Task failed.`` at the file's line, with its help text."""
    message = str(failure)
    return {"failed": True, "changed": False, "msg": brief(["Task failed.", message]), CONTEXT_KEY: "task",
            ERROR_KEY: [Event(message, failure.span, help=failure.help)]}

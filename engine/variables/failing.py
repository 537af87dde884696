"""Whether a task fails before the run can say otherwise: its ``failed_when`` as the plan and the
variable model decide it, and a template error ansible fails on too (a name defined nowhere)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from engine.loading import keywords as kw
from engine.values import strings

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar

U = TypeVar("U")


def failed_when(task: Task, templar: Templar, label: str) -> bool | str:
    """Whether the task's ``failed_when`` holds (all its conditions, in order), as the plan
    decides it (engine.flow.host_outcome): unknown when it reads the task's own result or what
    only the run knows; one whose name is defined nowhere fails the task, as in the run."""
    from engine.templating.templar import conditional_expression
    from engine.templating.variable_uses import names_read

    data = task.data if isinstance(task.data, Mapping) else {}
    raw = data["failed_when"]
    register = str(data.get("register") or "")
    own = f"{label}'s failed_when reads its own result, which only the run gives"
    for condition in raw if isinstance(raw, list) else [raw]:
        if isinstance(condition, str):
            read = names_read(conditional_expression(condition), expression=True)
            if read is None:
                return own
            if register and register in read:  # the other operands may decide without it
                decided = three_valued(condition, templar.child(read_as_run_time(own_result(task))), None)
                if decided is None:
                    return own
                if decided is False:
                    return False
                continue
        holding = holds(templar, condition, f"{label}'s failed_when")
        if holding is not True:
            return True if holding is None else holding
    return True


def own_result(task: Task) -> dict[str, Any]:
    """The task's registered name as its ``failed_when`` reads it: the result of this run, which
    only the run gives (not what an earlier task registered under that name)."""
    from engine.variables.layer import RuntimeValue

    data = task.data if isinstance(task.data, Mapping) else {}
    register = str(data.get("register") or "")
    return {register: RuntimeValue(f"the result of task '{task.display_name()}', which only the run gives")} \
        if register else {}


def read_as_run_time(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """``values`` to put over a templar's (Templar.child): one only the run knows (a RuntimeValue)
    fails what reads it, as a level of a task's variables does, instead of being read as an object."""
    from engine.variables.layer import Layer, is_runtime
    from engine.variables.raw import RawVariables

    if not any(is_runtime(value) for value in values.values()):
        return values
    return RawVariables([Layer("given", "given", values)], {}, None)


def holds(templar: Templar, condition: object, what: str) -> bool | str | None:
    """Whether ``condition`` holds; None when evaluating it fails the task in the run too (a name
    defined nowhere, a comparison of values that do not compare, :func:`condition_fails`); else why
    only the run decides (``what`` names the condition's place)."""
    try:
        return bool(templar.evaluate(condition))
    except Exception as exc:  # noqa: BLE001 - a condition only the run decides
        if condition_fails(exc):  # a name defined nowhere, values that do not compare...: the run fails too
            return None
        return f"{what} {condition!r} holds or not as the run decides ({exc})"


def fails_evaluating(exc: Exception) -> bool:
    """Whether an assertion that raised ``exc`` fails its task in the run too: a name defined
    nowhere on the way (not one only the run knows) is undefined for ansible as well."""
    return _plainly_undefined(exc)


def _plainly_undefined(exc: Exception) -> bool:
    from engine.templating.errors import RunTimeOnly, undefined_cause

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, RunTimeOnly):
            return False
        cause = cause.__cause__ or cause.__context__
    return undefined_cause(exc)


def condition_fails(exc: Exception) -> bool:
    """Whether a ``when`` that raised ``exc`` fails its task in the run too, as the plan takes it
    (engine.flow.host_outcome): a name defined nowhere, a non-boolean result (a ``flag=true`` of
    an INI inventory is text), a filter failing, values that do not compare; not a value only the
    run knows."""
    from engine.templating.errors import BrokenConditional, RunTimeOnly, ansible_fails_too, cause_of

    if fails_evaluating(exc):
        return True
    if cause_of(exc, RunTimeOnly) is not None:
        return False
    return ansible_fails_too(exc) or cause_of(exc, BrokenConditional) is not None or \
        "Conditionals must have a boolean result" in str(exc)


NOT_FINALIZED = kw.META | kw.INCLUDE_TASKS | kw.IMPORT_TASKS | kw.INCLUDE_ROLE | kw.IMPORT_ROLE
"""Actions whose arguments the strategy reads, not ``Task.post_validate``: meta tasks and includes
(an include's file name is its own question: engine.flow.host_outcome.include_args_need)."""


def finalized_arguments(task: Task) -> Mapping[str, Any]:
    """The arguments ansible 2.19 templates before the action runs (``Task.post_validate`` of
    ``args``, each through the action's ``finalize_task_arg``): all of them, but ``assert``'s
    ``that`` (evaluated by the action as conditions); none of a meta task or an include."""
    if task.action in NOT_FINALIZED or not isinstance(task.args, Mapping):
        return {}
    return {key: value for key, value in task.args.items() if not (key == "that" and task.action in kw.ASSERT)}


def templated_arguments(task: Task) -> bool:
    """Whether templating the task's arguments may fail on a host: one of them is a template."""
    from engine.templating.templar import is_template

    return any(is_template(text) for text in strings(finalized_arguments(task)))


RUN_CONTEXT_NAMES = frozenset({
    "ansible_connection", "ansible_module_compression", "ansible_shell_type", "ansible_shell_executable",
    "ansible_ssh_host", "ansible_host", "ansible_ssh_user", "ansible_user", "ansible_ssh_pass", "ansible_password",
    "ansible_ssh_port", "ansible_port", "ansible_ssh_pipelining", "ansible_pipelining", "ansible_ssh_timeout",
    "ansible_timeout", "ansible_ssh_private_key_file", "ansible_private_key_file", "ansible_network_os",
    "ansible_connection_user", "ansible_ssh_executable", "ansible_ssh_common_args", "ansible_sftp_extra_args",
    "ansible_scp_extra_args", "ansible_ssh_extra_args", "ansible_ssh_transfer_method", "ansible_docker_extra_args",
    "ansible_search_path"})
"""What ``TaskExecutor._execute`` adds to a task's variables before its arguments are templated: the
play context's connection settings the host's variables do not set (``PlayContext.update_vars``,
``C.MAGIC_VARIABLE_MAPPING`` less its become settings), where set by the configuration, the
command line or the connection plugin, and ``ansible_search_path``: undefined before the run is
not undefined for the task."""


def argument_failure(task: Task, templar: Templar) -> str | None:
    """Why templating ``task``'s arguments on the host whose ``templar`` it is fails the task as it
    fails it in the run (a name defined nowhere on the way, a filter failing, operands an operator
    does not take): ansible then fails the task before the action runs, whatever its
    ``failed_when`` says. None when they template, or when what they read is only the run's (the
    run's values are taken to template, as a module is taken to succeed)."""
    from engine.templating.errors import RunTimeOnly, ansible_fails_too, cause_of
    from engine.templating.variable_uses import names_read

    arguments = finalized_arguments(task)
    if not arguments:
        return None
    data = task.data if isinstance(task.data, Mapping) else {}
    # a delegated task's variables hold the delegated host's (VariableManager._get_delegated_vars)
    given = RUN_CONTEXT_NAMES | {"ansible_delegated_vars"} if data.get("delegate_to") else RUN_CONTEXT_NAMES
    for text in strings(arguments):
        read = names_read(text, expression=False)
        if read is None or any(name in given and name not in templar.raw for name in read):
            return None  # what the run's play context may define, or a template not read
    try:
        templar.template(dict(arguments))
    except Exception as exc:  # noqa: BLE001 - a value only the run knows, unless ansible fails too
        if fails_evaluating(exc) or cause_of(exc, RunTimeOnly) is None and ansible_fails_too(exc):
            return f"Finalization of task args for {task.action!r} failed: {exc}"
    return None


def three_valued(condition: Any, templar: Templar, unknown: U) -> bool | U:
    """A condition reading what only the run knows, decided as the plan decides it
    (engine.flow.conditions): ``x or flag`` holds where ``flag`` is true, the unknown operand
    taken to be a boolean; ``unknown`` where that does not decide it."""
    from engine.flow.conditions import OperandFailure, Unknown, decide, operand_failure, parse
    from engine.templating.templar import TemplateFailure, conditional_expression

    def operand(text: str) -> Any:
        try:
            return templar.value_of(text)
        except TemplateFailure as exc:
            failure = operand_failure(exc)
            if isinstance(failure, OperandFailure):
                raise failure from None
            return failure

    if not isinstance(condition, str):
        return unknown
    try:
        value = decide(parse(conditional_expression(condition)), operand)
    except OperandFailure:
        return unknown
    if isinstance(value, Unknown):
        return unknown if value.truthy is None else value.truthy
    return value if isinstance(value, bool) else unknown

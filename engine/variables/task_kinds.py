"""Which tasks' results the per-host model can know before the run, by kind: the actions whose
result's shape ansible fixes (``debug``, ``assert``, ``fail``, ``set_fact``, ``include_vars``), a
module's result whose ``changed`` its ``changed_when`` decides, and whether a failure stops the host
(ansible-core 2.19: executor/task_executor.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.loops import loop_of
from engine.loading import keywords as kw
from engine.variables.sources import INCLUDE_VARS, SET_FACT

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar

DEBUG = kw._family("debug")
ASSERT = kw._family("assert")
FAIL = kw._family("fail")
SHAPED = DEBUG | SET_FACT | ASSERT | FAIL
"""Actions whose result's shape is known: one of whose values only the run knows keeps the others."""
MODEL_RESULTS = SHAPED | INCLUDE_VARS
"""Actions whose result the model builds itself, as ansible's action plugins do."""
NO_MODULE_RESULT = MODEL_RESULTS | kw.INCLUDE_TASKS | kw.INCLUDE_ROLE
"""Actions whose result is no module's (what ``changed_when`` and ``failed_when`` decide of a module's)."""
DECIDED_FAILURE = SHAPED | INCLUDE_VARS | kw.META | kw.INCLUDE_TASKS | kw.IMPORT_TASKS | kw.INCLUDE_ROLE | \
    kw.IMPORT_ROLE | kw.CHANGES_INVENTORY | kw._family("set_stats")
"""Actions that fail only as their arguments and conditions say (the controller's own, read by the
model): a ``fail``, an ``assert``'s assertion, a file to include that does not load."""


def fails_on_its_own(task: Task) -> bool:
    """Whether ``task`` may fail in the run for a reason of its own, which only the run tells: a
    module doing its work (a command's exit code, a package missing, a host refusing), unless a
    ``failed_when`` says instead whether it failed (``TaskExecutor._execute`` replaces the
    module's ``failed`` with it). The plan and ``vars`` take such a task to succeed where a failure
    would stop the host (a host still running did not fail there); a ``rescue`` around it runs
    only if it fails, which they leave to the run."""
    data = task.data if isinstance(task.data, Mapping) else {}
    return task.action not in DECIDED_FAILURE and "failed_when" not in data


def known_shape(task: Task) -> bool:
    """Whether following ``task`` can tell more than "its result is the run's": it sets facts or
    variables, or its result's shape is fixed before the run, or it loops, or it registers a
    module's result whose ``changed`` its ``changed_when`` decides (:func:`changed_when_of`), or
    whose ``failed`` a templated ``ignore_errors`` decides (:func:`errors_stop`)."""
    from engine.templating.templar import is_template

    return task.action in MODEL_RESULTS or loop_of(task) is not None or \
        changed_when_of(task) is not None or is_template(getattr(task.effective("ignore_errors"), "value", None))


def changed_when_of(task: Task, looped: bool = False, unregistered: bool = False) -> list[Any] | None:
    """The ``changed_when`` conditions of a module task that registers its result without a loop
    or ``async``, when they do not read that result (ansible evaluates them with it): its
    ``changed`` is then theirs, known where they are; ``[True]`` for command, shell and raw
    without one (nor ``creates``/``removes``), which always report a change. None otherwise.
    ``looped``: those of a looped task, for each item's result; ``unregistered``: also of a task
    that registers nothing (its result as a rescue reads it)."""
    from engine.templating.variable_uses import names_read

    data = task.data if isinstance(task.data, Mapping) else {}
    register, raw = data.get("register"), data.get("changed_when")
    if raw is None and task.action in kw.COMMANDS and isinstance(task.args, Mapping) and \
            not {"creates", "removes"} & set(task.args):
        raw = True  # command, shell and raw always report a change (outside check mode)
    if not (isinstance(register, str) or looped or unregistered) or raw is None or \
            (loop_of(task) is not None) != looped or data.get("async") or \
            task.action in NO_MODULE_RESULT:
        return None
    conditions = raw if isinstance(raw, list) else [raw]
    for condition in conditions:
        if isinstance(condition, str):
            read = names_read(condition, True)
            if read is None or read & {str(register), "vars", "hostvars", "lookup", "query", "q"}:
                return None
    return conditions


def host_independent(task: Task) -> bool:
    """A set_fact, include_vars or debug msg without a template, a loop, a name to look up, a
    ``hash_behaviour`` of its own, facts given to another host or a templated ``changed_when``
    or ``failed_when``: what it sets and registers is the same on every host."""
    from engine.templating.templar import is_template

    data = task.data if isinstance(task.data, Mapping) else {}
    if isinstance(task.args, Mapping) and task.args.get("hash_behaviour") is not None:
        return False  # combined with the host's own values of the names it reads
    if data.get("changed_when") not in (None, True, False) or data.get("failed_when") not in (None, True, False):
        return False  # its result's `changed` (a debug's `failed`) is templated with the host's values
    if loop_of(task) is not None or data.get("delegate_facts") or not (task.action in SET_FACT | INCLUDE_VARS or
                                         (task.action in DEBUG and "var" not in (task.args or {}))):
        return False
    stack: list[Any] = [task.args]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend([*item.keys(), *item.values()])
        elif isinstance(item, list):
            stack.extend(item)
        elif is_template(item):
            return False
    return True


def failed_when_decides(task: Task) -> bool:
    """Whether the ``failed_when`` of a module task that registers its result without a loop or
    ``async`` gives its ``failed`` (where its conditions are known and do not read the result)."""
    data = task.data if isinstance(task.data, Mapping) else {}
    return "failed_when" in data and not data.get("async") and loop_of(task) is None and \
        task.action not in NO_MODULE_RESULT


def module_succeeds(task: Task, looped: bool = False, stops: bool = True) -> bool:
    """Whether a registered module result says ``failed: false`` before the run: a module is
    taken to succeed, as the plan takes it (engine.flow.host_outcome), unless a ``failed_when``
    decides (left to the run here) or it runs in the background (``async``). That holds where the
    host goes on only when the module did not fail (``stops``, :func:`errors_stop`): where its
    errors are ignored, or a ``rescue`` or ``always`` around it reads its result, whether it failed
    is the run's."""
    data = task.data if isinstance(task.data, Mapping) else {}
    return stops and "failed_when" not in data and not data.get("async") and (loop_of(task) is not None) == looped and \
        task.action not in NO_MODULE_RESULT | kw.IMPORT_TASKS | kw.IMPORT_ROLE | kw.META


def errors_stop(task: Task, templar: Templar | None, recovered: bool) -> bool:
    """Whether a failure of ``task`` stops the host there, so that a host reading its result later
    is one it did not fail: not in the ``block`` section of a block with a ``rescue`` or ``always``
    (``recovered``), and an ``ignore_errors`` (the task's, or one it inherits) known to be false on
    the host (a templated one templated with ``templar``; None: on any host)."""
    from engine.flow.run_settings import ignores_errors

    return not recovered and ignores_errors(task, templar.template if templar is not None else None) is False

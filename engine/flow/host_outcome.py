"""One task's outcome on each host of its play: ``runs``, ``skipped`` (why) or ``depends`` (on
which run-time value), from its ``run_once``, the ``when`` conditions on the way to it (in three
values, :mod:`engine.flow.conditions`) and its loop's items, against the host's variables at the
task (:mod:`engine.variables.report`). The plan (engine.flow.host_plan) puts the tasks of a
play in order around it; the task hover asks it for one task.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import nullcontext
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from engine.flow.block_names import block_name_templated
from engine.flow.conditions import OperandFailure, Unknown, decide, operand_failure, parse
from engine.flow.host_classes import by_class
from engine.flow.host_needs import INCLUDE_ITEM, HostNeeds
from engine.flow.host_reading import (
    include_loop_names,
    per_host_vars_files,
    reads_any,
    short,
    strings,
)
from engine.flow.include_items import per_include_item
from engine.flow.loops import loop_of
from engine.flow.named_readings import name_free, renamed_values
from engine.flow.outcome_log import asked
from engine.flow.outcomes import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome, alike
from engine.flow.play_host_order import run_order_unknown
from engine.flow.rebound import IDENTITY, Identities, identity
from engine.flow.removed_hosts import PLAY_LISTS, RemovedHosts
from engine.flow.run_settings import ONCE_PER_BATCH, check_mode, run_once_hosts
from engine.flow.shared_outcomes import (
    _HOST_IDENTITY,
    _SAME_ON_EVERY_HOST,
    _SharedOutcomes,
    reads_identity,
)
from engine.loading import keywords as kw
from engine.templating.errors import undefined_cause
from engine.templating.read_names import names_recorded, recording
from engine.templating.variable_uses import interpolation_only
from engine.variables.failing import own_result, read_as_run_time, templated_arguments
from engine.variables.include_vars_files import vaulted_include_without_secrets
from engine.variables.setter_classes import share_setters
from engine.variables.sources import INCLUDE_VARS

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

_NAME = attrgetter("name")
_RUNS = HostOutcome(RUNS)  # shared: most tasks run everywhere, and a plan may hold a million outcomes


def task_outcomes(plan: Plan, play_plan: PlayPlan, task: Task, conditions: list[tuple[Any, str]],
                  batches: list[list[str]], signatures: dict[tuple[Any, ...], tuple[Any, ...]],
                  hosts: list[Host] | None = None, removed: RemovedHosts | None = None) -> dict[str, HostOutcome]:
    """The task's outcome on ``hosts`` (default: the play's), from ``run_once`` in its batch, its
    conditions and its loop; ``signatures`` is shared by the play's tasks (see
    :class:`_SharedOutcomes`); ``removed``: the hosts out of ``ansible_play_hosts`` by then."""
    share_setters(plan)  # what the tasks before set, followed class by class (engine.variables.setter_classes)
    chosen = play_plan.hosts if hosts is None else hosts
    log, replay = getattr(plan, "outcome_log", None), getattr(plan, "outcome_replay", None)
    # the batches of the hosts asked (a failed host is out), where they are read: by a task run once
    # per batch and by the outcome log (most tasks: not made, each as long as the batch)
    if log or replay or task.action in ONCE_PER_BATCH or getattr(task.effective("run_once"), "value", None) is not None:
        running = set(map(_NAME, chosen))  # (no step of Python per host: a fleet's thousands, at every task)
        batches = [list(filter(running.__contains__, batch)) for batch in batches]
    once_on, once_known = run_once_hosts(play_plan, task, batches)  # (reads no batch of other tasks)
    if once_on is None and not conditions and loop_of(task) is None and task.action not in _FAILING and \
            check_mode(plan, task) is False and not (isinstance(task.data, Mapping) and "failed_when" in task.data) \
            and not block_name_templated(task) and not templated_arguments(task) and not _may_fail_on_files(task):
        return dict.fromkeys(map(_NAME, chosen), _RUNS)  # most tasks: no host-by-host work
    question = asked([host.name for host in chosen], batches, conditions) \
        if (log or replay) and not include_loop_names(play_plan.play, task) else None
    taken = replay.answer(plan, task, question) if replay is not None and question is not None else None
    if taken is not None:
        return taken
    with names_recorded() if log is not None and question is not None else nullcontext() as rendered:
        found, read = _outcomes_of(plan, play_plan, task, conditions, signatures, chosen, removed, once_on, once_known)
    if log is not None and rendered is not None:  # what each reading read, and every name a template it rendered loads
        log.record(task, question, frozenset(read | rendered), found)  # type: ignore[arg-type]
    return found


def _outcomes_of(plan: Plan, play_plan: PlayPlan, task: Task, conditions: list[tuple[Any, str]],
                 signatures: dict[tuple[Any, ...], tuple[Any, ...]], chosen: list[Host], removed: RemovedHosts | None,
                 once_on: dict[str, str] | None, once_known: bool) -> tuple[dict[str, HostOutcome], set[str]]:
    sharing = _SharedOutcomes(plan, play_plan, task, signatures, not per_host_vars_files(play_plan), _HostTask)
    sharing.removed, sharing.hosts = removed, chosen
    found: dict[str, HostOutcome] = {}
    # the host of a batch of two or more a run_once task runs on, where the batches' order is the run's
    unordered = run_order_unknown(plan, play_plan) \
        if once_on is not None and any(first != name for name, first in once_on.items()) else None
    for place, host in enumerate(chosen):
        if place == 1 and once_on is None and (by_classes := by_class(sharing, chosen, 1, conditions)) is not None:
            found.update(by_classes)  # the other hosts, class by class (engine.flow.host_classes)
            break
        first = once_on.get(host.name, host.name) if once_on is not None else host.name
        if unordered is not None:
            found[host.name] = alike(DEPENDS, f"run_once: {unordered}, so is the host it runs on")
        elif first != host.name and once_known:
            found[host.name] = alike(SKIPPED, f"{'add_host' if task.action in ONCE_PER_BATCH else 'run_once'}: "
                                              f"runs once for its batch, on {first}", True)
        elif first != host.name:
            found[host.name] = alike(DEPENDS, f"run_once or the play's strategy is templated: runs here only "
                                              f"if it does not run once (else on {first})")
        else:
            found[host.name] = sharing.outcome(host, conditions)
    return found, sharing.read




_FAILING = kw.FAIL | kw.ASSERT  # actions whose outcome is more than "runs" (_HostTask._ran)


def _may_fail_on_files(task: Task) -> bool:
    """An ``include_vars`` of a directory, which fails on a file of it without a valid extension, or
    of a file encrypted whole where ansible has no vault secrets (:meth:`_HostTask._files_failure`)."""
    if task.action not in INCLUDE_VARS or not isinstance(task.args, Mapping):
        return False
    return "dir" in task.args or vaulted_include_without_secrets(task)


# a value templated with the item of a looping include (its vars: engine.variables.report)
_INCLUDE_VALUE = "items: pick one)"



class _HostTask(HostNeeds):
    """One task on one host: its conditions and loop against the host's variables at the task."""

    def outcome(self, conditions: list[tuple[Any, str]]) -> HostOutcome:
        found = self._outcome(conditions)
        if found.outcome == DEPENDS and self._include_item is None and \
                (INCLUDE_ITEM in found.reason or _INCLUDE_VALUE in found.reason):
            return per_include_item(self, conditions) or found
        return found

    def _outcome(self, conditions: list[tuple[Any, str]]) -> HostOutcome:
        loop = loop_of(self.task)
        if loop is None:
            return self._conditions(conditions, {})
        if self._loop_scopes is None:
            before = set(self.touched)
            self._loop_scopes = self._item_scopes(loop)
            self._scopes_shared = not reads_identity(self.touched - before)
        scopes = self._loop_scopes
        if isinstance(scopes, HostOutcome):
            return self._when_before_loop(scopes, conditions) if self._loop_undefined else scopes
        outcomes = self._item_outcomes(conditions, scopes)
        for kind in (FAILS, RUNS, DEPENDS):  # ansible evaluates `when` per item
            found = next((o for o in outcomes if o.outcome == kind), None)
            if found is not None:
                return found if kind != RUNS else HostOutcome(RUNS, f"{sum(o.outcome == RUNS for o in outcomes)} "
                                                                    f"of {len(scopes)} loop items")
        return HostOutcome(SKIPPED, outcomes[0].reason + " for every loop item")

    def _when_before_loop(self, failure: HostOutcome, conditions: list[tuple[Any, str]]) -> HostOutcome:
        """``failure``, a loop that reads an undefined variable, as TaskExecutor has it: its error kept
        until the task's ``when`` is known (without the item's variables), which skips the task where
        it is false; where it holds, or fails itself, the loop's error is raised. The conditions are
        evaluated in order up to the first false one: one reading what the loop binds, reached, reads an
        undefined variable, whose error raises the loop's (one that may take an undefined value, ``is
        defined`` or ``default``, is left to the run)."""
        from engine.templating.templar import conditional_expression
        from engine.templating.variable_uses import names_read
        from engine.variables.loop_vars import loop_names

        bound = set(loop_names(self.task))
        texts = [None if isinstance(condition, bool) else conditional_expression(str(condition))
                 for condition, _origin in conditions]
        # the first condition reading what the loop binds (or what cannot be read): those before it decide first
        at = next((at for at, text in enumerate(texts) if text is not None and
                   ((read := names_read(text, expression=True)) is None or not bound.isdisjoint(read))), len(texts))
        decided = self._held(conditions[:at], {})
        if decided is not None:
            return decided if decided.outcome in (SKIPPED, DEPENDS) else failure
        if at < len(texts) and ("defined" in texts[at] or "default" in texts[at]):  # type: ignore[operator]
            condition, origin = conditions[at]
            return HostOutcome(DEPENDS, f"`{condition}` ({origin}) reads the loop's variables, undefined "
                                        f"where its loop fails ({failure.reason})")
        return failure

    def _item_scopes(self, loop: tuple[str, Any]) -> list[Mapping[str, Any]] | HostOutcome:
        """Each loop item's variables, or the outcome when the loop decides it (no items, items
        or loop_control only the run knows)."""
        items = self._loop_items(*loop)
        if isinstance(items, HostOutcome):
            return items
        if not items:
            return HostOutcome(SKIPPED, f"its loop ({loop[0]}) has no items on this host")
        control = self._loop_control()
        if control is None:
            return HostOutcome(DEPENDS, "its loop_control is known only at run time")
        return [control.item_vars(items, index) for index in range(len(items))]

    def _item_outcomes(self, conditions: list[tuple[Any, str]], scopes: list[Mapping[str, Any]]) -> list[HostOutcome]:
        """:meth:`_conditions` for each loop item, a condition of every item at once when all it
        reads is known (one rendering for the whole loop); a skipped item's reason is worded only
        for the first item, the only one shown."""
        alive = list(range(len(scopes)))
        decided: dict[int, HostOutcome] = {}
        for condition, origin in conditions:
            values = self._each(condition, [scopes[index] for index in alive])
            if values is None:  # three-valued, item by item: the items left go the whole way alone
                break
            for index, value in zip(alive, values, strict=True):
                if not value:
                    reason = self._values_of(condition, scopes[index]) if index == 0 else ""
                    decided[index] = HostOutcome(SKIPPED, f"`{condition}` is false ({origin}){reason}")
            alive = [index for index in alive if index not in decided]
            conditions = conditions[1:]
        for index in alive:
            decided[index] = self._conditions(conditions, scopes[index])
        return [decided[index] for index in range(len(scopes))]

    def _each(self, condition: Any, scopes: list[Mapping[str, Any]]) -> list[bool] | None:
        """The condition's value for every item of ``scopes``, when each is a plain boolean ansible
        would compute the same way (None when one is not: unknown names, an error)."""
        from engine.templating.templar import conditional_expression

        if isinstance(condition, bool) or not scopes:
            return [bool(condition)] * len(scopes)
        if self._needs(conditional_expression(str(condition)), scopes[0]) is not None:
            return None  # the names an item does not bind are the same for every item
        values = self._templar({}).evaluate_each(str(condition), scopes)
        return None if any(value is None for value in values) else values  # type: ignore[return-value]

    def _conditions(self, conditions: list[tuple[Any, str]], item: Mapping[str, Any]) -> HostOutcome:
        """Conditions in order, as ansible evaluates them: the first false one skips."""
        return self._held(conditions, item) or self._ran(item, "every condition holds" if conditions else "")

    def _held(self, conditions: list[tuple[Any, str]], item: Mapping[str, Any]) -> HostOutcome | None:
        """What the conditions decide (in order: the first false one skips), None where they all hold."""
        pending: list[str] = []
        for condition, origin in conditions:
            value = self._condition(condition, item)
            if isinstance(value, Unknown) and value.truthy is None:
                pending.append(f"`{condition}` ({origin}) needs {value.reason}")
            elif isinstance(value, OperandFailure):
                if pending:
                    return HostOutcome(DEPENDS, "; ".join(pending))
                return HostOutcome(FAILS, f"`{condition}` ({origin}): {value}")
            elif not (value.truthy if isinstance(value, Unknown) else value):
                return HostOutcome(SKIPPED, f"`{condition}` is false ({origin}){self._values_of(condition, item)}")
        if pending:
            return HostOutcome(DEPENDS, "; ".join(pending))
        return None

    def _ran(self, item: Mapping[str, Any], reason: str) -> HostOutcome:
        """The outcome of a task that runs: it runs, unless it is certain to fail the host (the
        ``fail`` action, an ``assert`` whose assertion is false, a ``failed_when`` that holds;
        ``failed_when`` decides for the action when it is known, the arguments' templating before
        both). Only an assertion, a ``failed_when`` or arguments that read the loop item are read
        item by item: any other task's is worked out once for all items."""
        from engine.variables.failing import finalized_arguments

        data = self.task.data if isinstance(self.task.data, Mapping) else {}
        if self.task.action in kw.ASSERT or data.get("failed_when") is not None or \
                item and reads_any(finalized_arguments(self.task), item):
            return self._ran_with(item, reason)
        found = self._ran_once.get(reason)
        if found is None:
            found = self._ran_once[reason] = self._ran_with(item, reason)
        return found

    def _ran_with(self, item: Mapping[str, Any], reason: str) -> HostOutcome:
        from engine.flow.block_names import block_name_failure

        if (failure := block_name_failure(self.task, lambda text: self._needs_value(text, item),
                                          lambda: self._templar(item))) is not None:
            return HostOutcome(FAILS, failure)
        if (failure := self._argument_failure(item)) is not None:  # before the action, whatever failed_when says
            return HostOutcome(FAILS, failure)
        args = self.task.args if isinstance(self.task.args, Mapping) else {}
        failed_when = self._failed_when(item)
        if failed_when == "absent" and (failure := self._files_failure(item)) is not None:
            return HostOutcome(FAILS, failure)
        if failed_when is True:
            return HostOutcome(FAILS, "its failed_when holds")
        if failed_when is None and self.task.action in _FAILING:
            return HostOutcome(DEPENDS, "its failed_when, which decides whether it fails, is known only at run time")
        if failed_when is False:
            pass  # a failed_when known false: the action's own failure does not count
        elif self.task.action in kw.FAIL:
            return HostOutcome(FAILS, "the fail action fails the host")
        elif self.task.action in kw.ASSERT:
            that = args.get("that")
            for assertion in that if isinstance(that, list) else [that] if isinstance(that, str) else []:
                value = self._condition(assertion, item)
                if isinstance(value, OperandFailure):  # ansible fails the task evaluating it (an undefined name)
                    return HostOutcome(FAILS, f"its assertion `{assertion}`: {value}")
                if isinstance(value, Unknown) and self._include_item is None and \
                        (INCLUDE_ITEM in value.reason or _INCLUDE_VALUE in value.reason):
                    # read item by item of the looping include around it (engine.flow.include_items)
                    return HostOutcome(DEPENDS, f"its assertion `{assertion}` needs {value.reason}")
                if isinstance(value, Unknown):
                    break  # the run tells whether it holds
                if not value:
                    return HostOutcome(FAILS, f"its assertion `{assertion}` is false{self._values_of(assertion, item)}")
        checking = check_mode(self.plan, self.task)
        if checking is not False and self.task.action not in kw.RUN_IN_CHECK_MODE:
            if checking is True and self.task.action in kw.COMMANDS and not {"creates", "removes"} & set(args):
                return HostOutcome(SKIPPED, "check mode: command and shell do not run then (ansible reports them "
                                            "skipped)")
            mode = "check mode" if checking else "check mode, if the run is in it"
            return HostOutcome(DEPENDS, f"{mode}: whether {self.task.action} runs then (its module's check mode "
                                        "support, creates/removes) is the run's to know")
        return HostOutcome(RUNS, reason)

    def _argument_failure(self, item: Mapping[str, Any]) -> str | None:
        """Why templating the task's arguments fails it on the host (engine.variables.failing), when
        all they read is known before the run."""
        from engine.variables.failing import argument_failure, finalized_arguments

        arguments = finalized_arguments(self.task)
        if not arguments or self._needs_value(arguments, item) is not None:
            return None
        key = repr(item)
        first = self._named_first
        # a reading rebound by name whose arguments only interpolate what they read: the host's other
        # values are the first host's, its name a string, the values templated with it rendered already
        # (engine.flow.named_readings.renamed_values), so they template as the first host's did
        if first is not None and first.argument_failures.get(key, "") is None and \
                all(interpolation_only(text) for text in strings(arguments)):
            return None
        found = self.argument_failures[key] = argument_failure(self.task, self._templar(item))
        return found

    def _files_failure(self, item: Mapping[str, Any]) -> str | None:
        """Why an ``include_vars`` fails on the files it finds, as ``vars`` reads them
        (engine.variables.include_vars_files), when all its arguments read is known before the run."""
        from engine.variables.failing import finalized_arguments
        from engine.variables.include_vars_files import files_failure

        if self.task.action not in INCLUDE_VARS or self._needs_value(finalized_arguments(self.task), item) is not None:
            return None
        return files_failure(self.task, self._templar(item), self.play_plan.play.basedir, self.plan.inventory.cache)

    def _failed_when(self, item: Mapping[str, Any]) -> bool | None | str:
        """The task's ``failed_when`` (its conditions in order, all holding), ``absent`` without
        one; None when only the run knows it (a registered result, most often). Failing to
        evaluate it fails the task."""
        data = self.task.data if isinstance(self.task.data, Mapping) else {}
        if data.get("failed_when") is None:
            return "absent"
        from engine.templating.templar import conditional_expression
        from engine.templating.variable_uses import names_read

        values = data["failed_when"] if isinstance(data["failed_when"], list) else [data["failed_when"]]
        unknown = False
        for condition in values:
            read = names_read(conditional_expression(str(condition)), expression=True)
            if data.get("register") and read is None:
                unknown = True  # what it reads, the task's own result among it, is not known
                continue
            # the task's own result, registered before failed_when is evaluated: the run's; the
            # other operands may decide without it (`result.rc != 1 and shards | int > 0`)
            value = self._condition(condition, {**item, **own_result(self.task)})
            if isinstance(value, OperandFailure) or isinstance(value, Unknown) and value.truthy is None:
                if isinstance(value, OperandFailure) and not unknown:
                    return True
                unknown = True
            elif not (value.truthy if isinstance(value, Unknown) else value):
                return None if unknown else False
        return None if unknown else True

    def _condition(self, condition: Any, item: Mapping[str, Any]) -> Any:
        """True, False, :class:`Unknown`, or an :class:`OperandFailure` ansible would stop on; on a
        reading rebound by name, the first host's value where that is this host's (engine.flow.rebound)."""
        if item or not isinstance(condition, str) or self._include_item is not None or recording():
            return self._evaluated(condition, item)
        first = self._named_first
        if first is not None and condition in first._conditions_read and name_free(first, condition):
            return first._conditions_read[condition]
        found = self._conditions_read[condition] = self._evaluated(condition, item)
        return found

    def _evaluated(self, condition: Any, item: Mapping[str, Any]) -> Any:
        """:meth:`_condition`, evaluated on this host."""
        from engine.templating.templar import TemplateFailure, conditional_expression

        if isinstance(condition, bool):
            return condition
        text = conditional_expression(str(condition))
        needs = self._needs(text, item)
        # every name known: the exact evaluation ansible makes; so too where a name only the run
        # gives a value may be one it certainly sets, of which the condition asks only `is defined`
        if needs is None or "defined" in text and self._certainly_set(text, item):
            if needs is None and self._identities is not None and not item and self._include_item is None and \
                    isinstance(condition, str) and self._overrides.keys() == set(IDENTITY) and not recording():
                found = self._identities.value(self._task_variables([]).templar, condition, self.host.name)
                if found is not None:
                    return found
            try:
                return self._templar(item).evaluate(condition)
            except TemplateFailure as exc:
                failure = operand_failure(exc)
                if isinstance(failure, OperandFailure):
                    return failure  # else an operand refused before the run: the others may decide
        try:
            return decide(parse(text), lambda operand: self._operand(operand, item))
        except OperandFailure as failure:
            return failure

    def _operand(self, text: str, item: Mapping[str, Any]) -> Any:
        from engine.templating.templar import TemplateFailure

        needs = self._needs(text, item)
        if needs is not None:
            return Unknown(needs)
        try:
            return self._templar(item).value_of(text)
        except TemplateFailure as exc:
            failure = operand_failure(exc)
            if isinstance(failure, Unknown):
                return failure
            raise failure from None

    def _loop_items(self, kind: str, raw: Any) -> list[Any] | HostOutcome:
        from engine.flow.loops import LoopNotAList, loop_items
        from engine.templating.templar import TemplateFailure
        from engine.variables.task_results import with_repository_lookups

        needs = self._needs_value(raw, {})
        if needs is not None:
            return HostOutcome(DEPENDS, f"its loop ({kind}) needs {needs}")
        try:
            templar = with_repository_lookups(self.task, self._templar({}), self.play_plan.play.basedir)
            return loop_items(kind, raw, templar)
        except TemplateFailure as exc:
            failure = operand_failure(exc)
            if isinstance(failure, OperandFailure) or isinstance(exc, LoopNotAList):  # ansible fails there too
                # (an undefined variable's error TaskExecutor keeps until the task's when is known)
                self._loop_undefined = not isinstance(exc, LoopNotAList) and undefined_cause(exc)
                return HostOutcome(FAILS, f"its loop ({kind}): {exc if isinstance(exc, LoopNotAList) else failure}")
            return HostOutcome(DEPENDS, f"its loop ({kind}) is known only at run time: {failure.reason}")

    def _loop_control(self) -> Any:
        """The task's LoopControl (loop_var, index_var, extended), None when the run decides it."""
        from engine.flow.loop_control import LoopControl
        from engine.templating.templar import TemplateFailure

        control = (self.task.data or {}).get("loop_control")
        # the label is templated per item, after the item ran, only to show it: no outcome reads it
        before_loop = {key: value for key, value in control.items() if key != "label"} \
            if isinstance(control, Mapping) else control
        if self._needs_value(before_loop, {}) is not None:
            return None
        try:
            return LoopControl.of(self.task, self._templar({}))
        except (TemplateFailure, TypeError, ValueError):
            return None

    def for_host(self, host: Host, identities: Identities | None = None,
                 names: frozenset[str] | None = None) -> _HostTask:
        """This reading for ``host``, which differs only by the host's name and groups (all the
        outcome read, or, with ``names``, all it read besides those, whose values are the same on
        both hosts): the variables already read are kept, those three swapped. Raises _ReadsMore
        when a value read through its template is not the same with the other name."""
        other = _HostTask(self.plan, self.play_plan, host, self.task)
        other.removed = self.removed
        other._variables, other._resolved, other._unknown = self._variables, self._resolved, self._unknown
        if names is not None:  # the first host's cached facts (the same on both) and the other's name
            other._overrides = {**self._overrides, **identity(self.plan, self.play_plan, host, self.task)}
            other._allowed = names | _HOST_IDENTITY | _SAME_ON_EVERY_HOST
            other._resolved = renamed_values(self._resolved, lambda: other._templar({}))
            other._unknown = dict(self._unknown)
            other._named_first = self
        elif identities is None:
            other._overrides = identity(self.plan, self.play_plan, host, self.task)
        else:
            other._overrides, other._identities = dict(identities.of(host)), identities
        other._rebound = True
        if self._scopes_shared:
            other._loop_scopes, other._scopes_shared = self._loop_scopes, True
            other._loop_undefined = self._loop_undefined
        return other

    def _templar(self, item: Mapping[str, Any]) -> Any:
        templar = self._task_variables([]).templar
        extra = {**self._overrides, **item}
        return templar.child(read_as_run_time(extra)) if extra else templar

    def _values_of(self, condition: Any, item: Mapping[str, Any]) -> str:
        """`: name = value (where it is set), ...` for the names the condition reads."""
        from engine.templating.templar import conditional_expression
        from engine.templating.variable_uses import names_read

        text = conditional_expression(str(condition))
        shown = []
        for name in sorted(names_read(text, expression=True) or ()):
            if name in item:
                shown.append(f"{name} = {item[name]!r} (the loop item)")
                continue
            if name in self._overrides and name not in _HOST_IDENTITY:
                origin = "less the hosts failed or ended by then" if name in PLAY_LISTS else \
                    "the item of the include" if self._include_item is not None and name in self._include_item \
                    else "cached fact"
                shown.append(f"{name} = {short(self._overrides[name])} ({origin})")
                continue
            resolved = self._resolved.get(name)
            if resolved is None or resolved.magic or name in ("hostvars", "vars"):  # too large to show
                continue
            if not resolved.definitions:
                shown.append(f"{name} is not defined")
            elif resolved.unknown:
                shown.append(f"{name}: {resolved.unknown}")
            else:
                winner = resolved.definitions[0]
                at = f", {os.path.relpath(winner.path)}" if winner.path else ""
                shown.append(f"{name} = {resolved.value!r} ({winner.label}{at})")
        return ": " + ", ".join(shown) if shown else ""


def include_args_need(plan: Plan, play_plan: PlayPlan, host: Host, task: Task) -> str | None:
    """What only the run knows that an include's arguments (its file or role, ``*_from``) read
    on ``host``, as words; None when they are known before the run."""
    args = {key: value for key, value in task.args.items() if key != "apply"} if isinstance(task.args, Mapping) \
        else task.args
    return HostNeeds(plan, play_plan, host, task)._needs_value(args, {})

"""What will run where: for every play, task and host of a launch, whether the task runs there,
is skipped (and why), or depends on values only the run knows (and which). Computed from files;
nothing is executed, no host is contacted.

The outcome of a task on a host is decided from, in order: the host's earlier failure, the tag
selection, ``run_once`` in its batch, the notifications of a handler, the ``when`` conditions on
the way to the task (an include's own included, evaluated in three values by
:mod:`engine.three_valued`), and the loop's items. A value the run sets (a registered result,
``set_fact``, a gathered fact, a lookup) is never guessed: an outcome that needs one is
``depends``, naming it. Every task that runs is taken to succeed: the plan follows no module's
failure, only the failures certain before the run (a condition ansible cannot evaluate).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import notify
from engine.loops import loop_of
from engine.model import Block
from engine.three_valued import OperandFailure, Unknown, decide, parse

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.model import Play, Task
    from engine.plan import Plan, PlayPlan
    from engine.var_report import Resolved, TaskVariables

RUNS, SKIPPED, DEPENDS, FAILS = "runs", "skipped", "depends", "fails"
# the magic variables whose values differ from host to host (the others are the play's)
_PER_HOST = frozenset({"inventory_hostname", "inventory_hostname_short", "group_names", "play_hosts",
                       "ansible_play_batch", "hostvars", "vars"})
# names whose values the run may change behind any static reading of them
_RUN_FILLED = frozenset({"hostvars", "vars"})
_NOWHERE = "defined nowhere on the way to this task"


@dataclass
class HostOutcome:
    outcome: str
    """``runs``, ``skipped``, ``depends`` (on a run-time value) or ``fails`` (ansible stops the
    host there whatever happens before)."""
    reason: str = ""


_RUNS = HostOutcome(RUNS)  # shared: most tasks run everywhere, and a plan may hold a million outcomes


@dataclass
class PlannedTask:
    task: Task
    name: str
    """As ansible prints it (the role's name before a role's task)."""
    path: str | None
    line: int | None
    handler: bool
    hosts: dict[str, HostOutcome] = field(default_factory=dict)


@dataclass
class PlannedPlay:
    name: str
    hosts: list[str]
    tasks: list[PlannedTask] = field(default_factory=list)


def plan_hosts(plan: Plan) -> list[PlannedPlay]:
    """The outcome of every task of every play on each of the play's hosts, in run order."""
    failed: dict[str, tuple[str, bool]] = {}  # a host that failed is out of the later plays too
    return [_plan_play(plan, play_plan, failed) for play_plan in plan.plays]


def _plan_play(plan: Plan, play_plan: PlayPlan, failed: dict[str, tuple[str, bool]]) -> PlannedPlay:
    from engine.var_report import play_batches
    from engine.var_sources import tasks_with_includers
    from playbook_ls.features.hover import conditions_on_the_way

    play = play_plan.play
    hosts = [host.name for host in play_plan.hosts]
    batches = play_batches(play, hosts)
    result = PlannedPlay(str(play.name or ", ".join(map(str, play.hosts))), hosts)
    selected = play_plan.selected_ids()
    notified: dict[str, list[PlannedTask]] = {}  # handler name or topic -> tasks notifying it since
    handlers = [task for block in play.handlers for task in block.tasks() if not task.implicit]
    signatures: dict[tuple[str, tuple[str, ...]], tuple[Any, ...]] = {}
    for task, includers in tasks_with_includers(play, handlers=True):
        if task.implicit:
            continue
        planned = PlannedTask(task, task.display_name(), task.span.file if task.span else None,
                              task.span.line + 1 if task.span else None, task.handler)
        if task.handler:
            notifiers = _take_notifiers(task, handlers, notified)
        elif not _selected(task, includers, selected, plan):
            tags = ", ".join(sorted(map(str, task.tag_set()))) or "none"
            planned.hosts = dict.fromkeys(hosts, HostOutcome(SKIPPED, f"not selected by the tags (its tags: {tags})"))
            result.tasks.append(planned)
            continue
        first_of_batch = _run_once_hosts(task, batches)
        conditions = conditions_on_the_way(task, includers)
        if not task.handler and first_of_batch is None and not conditions and loop_of(task) is None:
            planned.hosts = dict.fromkeys(hosts, _RUNS)  # most tasks: no host-by-host work
            for name in failed.keys() & planned.hosts.keys():
                planned.hosts[name] = _after_failure(task, failed[name])
            _note_notifications(task, planned, notified)
            result.tasks.append(planned)
            continue
        sharing = _SharedOutcomes(plan, play_plan, task, signatures)
        for host in play_plan.hosts:
            if host.name in failed:
                planned.hosts[host.name] = _after_failure(task, failed[host.name])
            elif first_of_batch is not None and host.name not in first_of_batch:
                once = next(name for batch in batches if host.name in batch for name in first_of_batch if name in batch)
                planned.hosts[host.name] = HostOutcome(SKIPPED, f"run_once: runs once for its batch, on {once}")
            elif task.handler and not (heard := _heard_on(host.name, notifiers)):
                planned.hosts[host.name] = HostOutcome(SKIPPED, _not_notified(task, notifiers))
            else:
                outcome = sharing.outcome(host, conditions)
                if task.handler and outcome.outcome == RUNS:
                    outcome = HostOutcome(DEPENDS, f"runs if {heard} reports a change on this host")
                planned.hosts[host.name] = outcome
                if outcome.outcome == FAILS:
                    effect = _failure_effect(play, task, f"{planned.name!r} ({_where(planned)})")
                    if effect is not None:
                        failed[host.name] = effect
        _note_notifications(task, planned, notified)
        result.tasks.append(planned)
    return result


def _note_notifications(task: Task, planned: PlannedTask, notified: dict[str, list[PlannedTask]]) -> None:
    if not task.handler:
        for name in notify.notifications(task):
            notified.setdefault(name, []).append(planned)


def _selected(task: Task, includers: list[Task], selected: frozenset[int], plan: Plan) -> bool:
    """Whether the tag selection keeps ``task``; a task an include loads is selected when the
    include runs, with its own tags (and the include's, which it inherits)."""
    from engine.tags import TagEvaluator, TagTemplateError, should_run

    if not includers:
        return id(task) in selected
    try:
        return should_run(TagEvaluator().evaluate(task), plan.options.selection())
    except TagTemplateError:
        return True  # ansible stops on it when the include runs; the include's outcome says so


def _failure_effect(play: Play, task: Task, name: str) -> tuple[str, bool] | None:
    """What a failure of ``task`` means for the host's later tasks: nothing when its errors are
    ignored, else (the failed task, certain that nothing after it runs there: the host is out
    of the run, later plays included). Not certain when a ``rescue`` or ``always`` section may
    take over, or the play's failure settings act on every host."""
    from engine.booleans import boolean

    ignored = getattr(task.effective("ignore_errors"), "value", None)
    try:
        if ignored is not None and boolean(ignored, strict=True):
            return None  # reported failed, and the host goes on
        uncertain = False
    except (TypeError, ValueError):
        uncertain = True
    data = play.data if isinstance(play.data, Mapping) else {}
    uncertain = (uncertain or id(task) in _recovered_tasks(play) or "any_errors_fatal" in data
                 or "max_fail_percentage" in data)
    return name, not uncertain


def _recovered_tasks(play: Play) -> frozenset[int]:
    """The tasks inside a block that has a ``rescue`` or an ``always`` section (once per play)."""
    found = play.derived.get("recovered_tasks")
    if found is None:
        inside: set[int] = set()

        def walk(items: list[Any], protected: bool) -> None:
            for item in items:
                if isinstance(item, Block):
                    guarded = protected or bool(item.rescue or item.always)
                    walk(item.block, guarded)
                    walk(item.rescue, protected)
                    walk(item.always, protected)
                else:
                    if protected:
                        inside.add(id(item))
                    for child in item.children:
                        walk([child], protected)

        walk(play.compile(), False)
        found = play.derived["recovered_tasks"] = frozenset(inside)
    return found


def _after_failure(task: Task, failure: tuple[str, bool]) -> HostOutcome:
    name, certain = failure
    if certain and not task.handler:
        return HostOutcome(SKIPPED, f"the host failed at {name}")
    if task.handler:
        return HostOutcome(DEPENDS, f"the host failed at {name}: handlers run then only with force_handlers")
    return HostOutcome(DEPENDS, f"after {name} fails on this host (ignore_errors, rescue or the play's failure "
                                "settings decide)")


def _where(planned: PlannedTask) -> str:
    return f"{os.path.relpath(planned.path)}:{planned.line}" if planned.path else "?"


def _run_once_hosts(task: Task, batches: list[list[str]]) -> set[str] | None:
    """The hosts a ``run_once`` task runs on (the first of each batch), or None without it."""
    from engine.booleans import boolean

    value = getattr(task.effective("run_once"), "value", None)
    try:
        once = value is not None and boolean(value, strict=True)
    except (TypeError, ValueError):
        return None  # templated: the run decides (the task is planned on every host)
    return {batch[0] for batch in batches if batch} if once else None


def _take_notifiers(handler: Task, handlers: list[Task], notified: dict[str, list[PlannedTask]]) -> list[PlannedTask]:
    """The tasks that notified ``handler`` since it last ran (each notification then consumed)."""
    found: list[PlannedTask] = []
    for name in list(notified):
        if handler in notify.search_handlers(handlers, name):
            found += notified.pop(name)
    return found


def _heard_on(host: str, notifiers: list[PlannedTask]) -> str:
    """The notifying tasks that run (or may) on ``host``, as words; empty when none does."""
    names = [repr(p.name) for p in notifiers if p.hosts.get(host, HostOutcome(SKIPPED)).outcome in (RUNS, DEPENDS)]
    return " or ".join(names)


def _not_notified(handler: Task, notifiers: list[PlannedTask]) -> str:
    if any("{{" in name for task in notifiers for name in notify.notifications(task.task)):
        return "notified by a templated name only the run knows"
    if not notifiers:
        return "no task notifies it"
    return "no task that notifies it runs on this host: " + ", ".join(repr(p.name) for p in notifiers)


class _SharedOutcomes:
    """A task's outcomes on the play's hosts, each computed once per distinct set of values:
    two hosts whose inventory sets the names the task's conditions and loop read (also through
    templates) in the same places to the same values see the same values, so the same outcome
    (a thousand hosts in a few groups are planned a few times, not a thousand)."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, task: Task,
                 signatures: dict[tuple[str, tuple[str, ...]], tuple[Any, ...]]) -> None:
        self.plan, self.play_plan, self.task = plan, play_plan, task
        self.names: tuple[str, ...] | None = None  # what the first host's outcome read
        self.known: dict[tuple[Any, ...], HostOutcome] = {}
        self.shared = not _per_host_vars_files(play_plan)
        self.signatures = signatures  # the play's: tasks reading the same names ask the same

    def outcome(self, host: Host, conditions: list[tuple[Any, str]]) -> HostOutcome:
        key = None
        if self.shared and self.names is not None:
            key = self._signature(host)
            if key in self.known:
                return self.known[key]
        reading = _HostTask(self.plan, self.play_plan, host, self.task)
        outcome = reading.outcome(conditions)
        if self.shared and self.names is None:
            self.names = tuple(sorted(reading.touched))
            self.shared = not (reading.touched & _PER_HOST)
            key = self._signature(host)
        if self.shared and key is not None:
            self.known[key] = outcome
        return outcome

    def _signature(self, host: Host) -> tuple[Any, ...]:
        from engine.var_report import inventory_definitions

        assert self.names is not None
        found = self.signatures.get((host.name, self.names))
        if found is None:
            found = inventory_definitions(self.plan, self.play_plan, host, self.task, list(self.names))
            self.signatures[(host.name, self.names)] = found
        return found


def _per_host_vars_files(play_plan: PlayPlan) -> bool:
    """Whether the play's vars_files name a file per host (a template)."""
    data = play_plan.play.data if isinstance(play_plan.play.data, Mapping) else {}
    return any("{{" in text for text in _strings(data.get("vars_files")))


class _HostTask:
    """One task on one host: its conditions and loop against the host's variables at the task."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, host: Host, task: Task) -> None:
        self.plan, self.play_plan, self.host, self.task = plan, play_plan, host, task
        self._variables: TaskVariables | None = None
        self._resolved: dict[str, Resolved] = {}
        self._unknown: dict[str, str | None] = {}
        self.touched: set[str] = set()
        """Every name the outcome read, also through the templates of values."""

    def outcome(self, conditions: list[tuple[Any, str]]) -> HostOutcome:
        loop = loop_of(self.task)
        if loop is None:
            return self._conditions(conditions, {})
        items = self._loop_items(*loop)
        if isinstance(items, HostOutcome):
            return items
        if not items:
            return HostOutcome(SKIPPED, f"its loop ({loop[0]}) has no items on this host")
        loop_var = self._loop_var()
        if loop_var is None:
            return HostOutcome(DEPENDS, "its loop_control.loop_var is known only at run time")
        outcomes = [self._conditions(conditions, {loop_var: item}) for item in items]
        for kind in (FAILS, RUNS, DEPENDS):  # ansible evaluates `when` per item
            found = next((o for o in outcomes if o.outcome == kind), None)
            if found is not None:
                return found if kind != RUNS else HostOutcome(RUNS, f"{sum(o.outcome == RUNS for o in outcomes)} "
                                                                    f"of {len(items)} loop items")
        return HostOutcome(SKIPPED, outcomes[0].reason + " for every loop item")

    def _conditions(self, conditions: list[tuple[Any, str]], item: Mapping[str, Any]) -> HostOutcome:
        """Conditions in order, as ansible evaluates them: the first false one skips."""
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
        return HostOutcome(RUNS, "every condition holds" if conditions else "")

    def _condition(self, condition: Any, item: Mapping[str, Any]) -> Any:
        """True, False, :class:`Unknown`, or an :class:`OperandFailure` ansible would stop on."""
        from engine.templar import TemplateFailure

        if isinstance(condition, bool):
            return condition
        text = str(condition).strip()
        if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1:
            text = text[2:-2].strip()
        if self._needs(text, item) is None:  # every name known: the exact evaluation ansible makes
            try:
                return self._templar(item).evaluate(condition)
            except TemplateFailure as exc:
                return self._failure(exc)
        try:
            return decide(parse(text), lambda operand: self._operand(operand, item))
        except OperandFailure as failure:
            return failure

    def _operand(self, text: str, item: Mapping[str, Any]) -> Any:
        from engine.templar import TemplateFailure

        needs = self._needs(text, item)
        if needs is not None:
            return Unknown(needs)
        try:
            return self._templar(item).value_of(text)
        except TemplateFailure as exc:
            failure = self._failure(exc)
            if isinstance(failure, Unknown):
                return failure
            raise failure from None

    def _failure(self, exc: Exception) -> OperandFailure | Unknown:
        """An undefined variable or a non-boolean result stops ansible too; anything else a
        static templar refuses (a lookup, a value too large) is the run's to know."""
        from engine.templar import undefined_cause

        message = str(exc)
        if undefined_cause(exc) or "Conditionals must have a boolean result" in message:
            return OperandFailure(message)
        return Unknown(message)

    def _loop_items(self, kind: str, raw: Any) -> list[Any] | HostOutcome:
        from engine.loops import loop_items
        from engine.templar import TemplateFailure

        needs = self._needs_value(raw, {})
        if needs is not None:
            return HostOutcome(DEPENDS, f"its loop ({kind}) needs {needs}")
        try:
            return loop_items(kind, raw, self._templar({}))
        except TemplateFailure as exc:
            failure = self._failure(exc)
            if isinstance(failure, OperandFailure):
                return HostOutcome(FAILS, f"its loop ({kind}): {failure}")
            return HostOutcome(DEPENDS, f"its loop ({kind}) is known only at run time: {failure.reason}")

    def _loop_var(self) -> str | None:
        from engine.loop_control import LoopControl
        from engine.templar import TemplateFailure

        if self._needs_value((self.task.data or {}).get("loop_control"), {}) is not None:
            return None
        try:
            return LoopControl.of(self.task, self._templar({})).loop_var
        except (TemplateFailure, TypeError, ValueError):
            return None

    def _templar(self, item: Mapping[str, Any]) -> Any:
        templar = self._task_variables([]).templar
        return templar.child(item) if item else templar

    def _task_variables(self, names: list[str]) -> TaskVariables:
        from engine.var_report import variables_at

        wanted = list(dict.fromkeys(name for name in names if name not in self._resolved))
        if self._variables is None or wanted:
            found = variables_at(self.plan, self.play_plan, self.host, self.task, wanted)
            self._resolved.update(found.variables)
            self._variables = self._variables or found
        return self._variables

    def _needs(self, text: str, item: Mapping[str, Any]) -> str | None:
        """What only the run knows that ``text`` (an expression) reads, as words; None if nothing."""
        from playbook_ls.rules.variable_uses import names_read

        names = names_read(text, expression=True)
        if names is None:
            return "an expression playbook-ls cannot read"
        return self._needs_names([name for name in names if name not in item])

    def _needs_value(self, value: Any, item: Mapping[str, Any]) -> str | None:
        from playbook_ls.rules.variable_uses import names_read

        names: set[str] = set()
        for text in _strings(value):
            found = names_read(text, expression=False)
            if found is None:
                return "a template playbook-ls cannot read"
            names |= found
        return self._needs_names([name for name in names if name not in item])

    def _needs_names(self, names: list[str]) -> str | None:
        self.touched.update(names)
        self._task_variables([name for name in names if name not in _RUN_FILLED])  # one lookup for all
        reasons = [reason for name in sorted(names) if (reason := self._unknown_reason(name, 0))]
        return "; ".join(reasons) or None

    def _unknown_reason(self, name: str, depth: int) -> str | None:
        """Why the run alone knows ``name`` here (also through the templates its value holds)."""
        if name in self._unknown:
            return self._unknown[name]
        if name in _RUN_FILLED:
            return f"`{name}` (the run fills it)"
        self._task_variables([name])
        resolved = self._resolved[name]
        reason: str | None = None
        if resolved.unknown == _NOWHERE:
            if name.startswith("ansible_") and self._gathers_facts():
                reason = f"`{name}` (a fact, gathered at run time)"
        elif resolved.unknown:
            reason = f"`{name}`: {resolved.unknown}"
        elif resolved.template is not None:
            self._unknown[name] = None  # a value inside itself is refused by the templar itself
            inner = self._needs_value(resolved.template, {}) if depth < 20 else "a value nested too deeply"
            reason = f"`{name}`, which needs {inner}" if inner else None
        self._unknown[name] = reason
        return reason

    def _gathers_facts(self) -> bool:
        from engine.var_sources import gathers_facts

        return gathers_facts(self.play_plan.play)

    def _values_of(self, condition: Any, item: Mapping[str, Any]) -> str:
        """`: name = value (where it is set), ...` for the names the condition reads."""
        from playbook_ls.rules.variable_uses import names_read

        text = str(condition).strip()
        if text.startswith("{{") and text.endswith("}}"):
            text = text[2:-2]
        shown = []
        for name in sorted(names_read(text, expression=True) or ()):
            if name in item:
                shown.append(f"{name} = {item[name]!r} (the loop item)")
                continue
            resolved = self._resolved.get(name)
            if resolved is None or resolved.magic:
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


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping | list) and id(item) not in seen:
            seen.add(id(item))
            stack.extend([*item.keys(), *item.values()] if isinstance(item, Mapping) else item)


def outcome_counts(planned: PlannedTask) -> dict[str, int]:
    counts: dict[str, int] = {}
    for outcome in planned.hosts.values():
        counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
    return counts


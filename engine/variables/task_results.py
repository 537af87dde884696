"""One task followed on one host before the run: its ``when`` (per loop item), the values its
``set_fact`` sets, the files its ``include_vars`` reads, and its registered result where ansible
fixes its shape before the run (ansible-core 2.19: plugins/action/debug.py, assert.py,
set_fact.py, include_vars.py, and the skipped result of executor/task_executor.py). What needs
the run is a :class:`~engine.variables.sources.RuntimeValue` naming the task."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.flow.loops import loop_of
from engine.loading import keywords as kw
from engine.span import YMap
from engine.templating.file_lookups import RepositoryLookups, repository_lookups
from engine.templating.finalize import omitted
from engine.templating.pure_lookups import PureLookups
from engine.variables.command_line import command_line
from engine.variables.failing import argument_failure, condition_fails, failed_when, three_valued
from engine.variables.include_vars_files import (
    VarsFilesFail,
    VarsFilesUnknown,
    included_vars,
    possible_names,
    with_hash_behaviour,
)
from engine.variables.loop_vars import LoopFails, loop_scopes, run_ordered_items
from engine.variables.module_result import ModuleResult
from engine.variables.order_free_loops import every_order, order_free_effects
from engine.variables.raw import RawVariables
from engine.variables.shaped_results import (
    RunDecides,
    assert_result,
    debug_result,
    failed_result,
    failed_when_applied,
    set_fact_key,
    shown_by_the_run,
    tracebacks_off,
)
from engine.variables.sources import INCLUDE_VARS, SET_FACT, Layer, RuntimeValue
from engine.variables.task_kinds import (
    ASSERT,
    DEBUG,
    FAIL,
    MODEL_RESULTS,
    SHAPED,
    changed_when_of,
    errors_stop,
    failed_when_decides,
    module_succeeds,
)

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.parsing.source import SourceCache
    from engine.templating.templar import Templar

SKIP_REASON = "Conditional result was False"


@dataclass
class Effects:
    """What one run of a task set on a host (each list in precedence order)."""

    included: list[Layer] = field(default_factory=list)
    facts: list[Layer] = field(default_factory=list)
    delegated_to: str | None = None
    """``delegate_facts``: the host its set_fact values go to instead."""
    delegated_each: dict[str, Layer] | None = None
    """``delegate_facts`` in a loop whose items name the host: each host's set_fact values."""
    changed: bool | None = None
    """Whether the run of a task whose result has a known shape (``set_fact``, ``include_vars``,
    ``debug``, ``assert``) reports a change (any item of a loop); None when only the run knows."""


def follow(task: Task, templar: Templar, basedir: str, cache: SourceCache, conditions: list[Any],
           gate: list[Any] = (), merge_hashes: bool = False,  # type: ignore[assignment]
           given: list[dict[str, Any]] | None = None, register_as: str | None = None,
           recovered: bool = False) -> Effects:
    """What ``task`` sets on the host whose ``templar`` it is given, under its own ``conditions``
    and those of the includes that load it (``gate``: when one is false, nothing is loaded);
    ``merge_hashes``: the run's ``hash_behaviour`` is ``merge``; ``given``: its loop's items'
    variables in an order of them (a loop whose order is the run's, engine.variables.order_free_loops);
    ``recovered``: it is in the ``block`` section of a block with a ``rescue`` or ``always``."""
    label = f"task '{task.display_name()}'"
    data = task.data if isinstance(task.data, Mapping) else {}
    args = task.args if isinstance(task.args, Mapping) else {}
    register = register_as or (data.get("register") if isinstance(data.get("register"), str) else None)
    templar = with_repository_lookups(task, templar, basedir)
    effects = Effects()
    loaded = _decide(list(gate), templar, label)
    if isinstance(loaded, RunDecides) and loaded.fails:
        return effects  # the include fails there: it loads nothing
    if isinstance(loaded, RunDecides):
        _all_unknown(effects, task, args, register, str(loaded), (basedir, cache, templar))
        return effects
    if loaded is not True:
        return effects
    scopes = given if given is not None else loop_scopes(task, templar)
    if isinstance(scopes, LoopFails):  # the task fails before any item: nothing set, its failure registered
        return _fails_by_loop(effects, task, register, str(scopes), label)
    if isinstance(scopes, str):
        ordered = run_ordered_items(task, templar)
        if ordered is not None:  # what it sets in every order of its items is known
            control, items, why = ordered
            found = order_free_effects(lambda order: follow(
                task, templar, basedir, cache, conditions, gate, merge_hashes,
                [control.item_vars([items[i] for i in order], at) for at in range(len(items))], register_as,
                recovered),
                every_order(items), why)
            if found is not None:
                return found
        _all_unknown(effects, task, args, register, scopes, (basedir, cache, templar))
        return effects
    facts: dict[str, Any] = {}
    results: list[Any] = []
    data = task.data if isinstance(task.data, Mapping) else {}
    stops = errors_stop(task, templar, recovered)
    # a looped set_fact with delegate_facts gives each item's values to the host that item names
    each: dict[str, dict[str, Any]] | None = {} if scopes is not None and task.action in SET_FACT and \
        data.get("delegate_facts") and data.get("delegate_to") else None
    for scope in scopes if scopes is not None else [{}]:
        # what an earlier item set that only the run knows fails what reads it (default too), as a
        # level's value does (RawVariables)
        here = templar.child(RawVariables([], {**scope, **facts})) if scope or facts else templar
        decided = _decide(conditions, here, label)
        if isinstance(decided, RunDecides) and decided.fails:
            return _fails_by_condition(effects, task, register, scopes is not None, label)
        if isinstance(decided, RunDecides):
            _all_unknown(effects, task, args, register, str(decided), (basedir, cache, templar))
            return effects
        if decided is not True:
            results.append({"changed": False, "skipped": True, "skip_reason": SKIP_REASON,
                            "false_condition": decided, **_item_keys(scope)})
            continue
        if (register or task.action in SET_FACT | INCLUDE_VARS) and argument_failure(task, here) is not None:
            # the task fails before its action: it sets nothing
            return _fails_by_condition(effects, task, register, scopes is not None, label)
        try:
            done = _run(task, args, here, basedir, cache, facts, effects, label, merge_hashes, stops)
            shown = isinstance(done, ModuleResult) and task.action in SHAPED  # some of its values the run's
            if shown and data.get("failed_when") is not None:
                raise RunDecides(f"the result of {label}, whose failed_when the run decides")
            if (isinstance(done, dict) or shown) and data.get("changed_when") is not None:
                # ansible evaluates it with what the action set (its facts, its result registered)
                after = {**scope, **facts, **(done.get("ansible_facts") or {} if task.action in INCLUDE_VARS else {})}
                done = _changed_as_told(task, done, templar.child({**after, **({register: done} if register else {})}),
                                        label)
            if isinstance(done, dict) and task.action in DEBUG | ASSERT | FAIL and data.get("failed_when") is not None:
                decided = failed_when(task, here, label)  # the result is known: its failed_when decides it
                if not isinstance(decided, bool):
                    raise RunDecides(decided)
                done = failed_when_applied(done, decided, label)
        except RunDecides as exc:
            if exc.fails and task.action in INCLUDE_VARS:  # the action fails: it sets nothing
                return _fails_by_condition(effects, task, register, scopes is not None, label)
            done = _item_result(task, scope, here, len(results), label, stops) if scope else RuntimeValue(str(exc))
            if task.action in INCLUDE_VARS:
                _all_unknown(effects, task, args, None, str(exc), (basedir, cache, here))
        results.append({**done, **_item_keys(scope)} if isinstance(done, dict) else
                       done.with_known(**_item_keys(scope)) if isinstance(done, ModuleResult) and scope else done)
        if each is not None:
            try:
                target = str(here.template(data["delegate_to"]))
            except Exception as exc:  # noqa: BLE001 - a host only the run names: where the values go is unknown
                _all_unknown(effects, task, args, register, f"delegated by {label} to a host only the run knows "
                                                            f"({exc})")
                return effects
            try:  # the names as the action templates them (a key templated from the host's name)
                names = [str(set_fact_key(name, here, label)) for name in args if name != "cacheable"]
            except RunDecides as exc:
                _all_unknown(effects, task, args, register, str(exc))
                return effects
            each.setdefault(target, {}).update({name: facts[name] for name in names if name in facts})
    effects.changed = _any_changed(results)
    if each is not None:
        effects.delegated_each = {target: _layer("set_fact / register", f"set_fact in {label} (delegate_facts)",
                                                 values, task) for target, values in each.items()}
    elif facts:
        effects.facts.append(_layer("set_fact / register", f"set_fact in {label}", facts, task))
    if register:
        effects.facts.append(_layer("set_fact / register", f"register in {label}",
                                    {register: _registered(results, scopes is not None, label, register)}, task))
    return effects


def with_repository_lookups(task: Task | None, templar: Templar, basedir: str) -> Templar:
    """``templar`` for ``task``: its lookups of the repository's files (``first_found``, ``file``,
    ``template``, ``fileglob``, as a lookup or a ``with_`` loop) read them by the task's search path,
    for its values and for its outcome alike (engine.templating.file_lookups.RepositoryLookups)."""
    if task is None or not isinstance(templar.lookups, PureLookups) or isinstance(templar.lookups, RepositoryLookups):
        return templar
    entry = task.chain[0].span if task.chain else None  # the given playbook's play, or its import_playbook
    lookups = repository_lookups(task.role.path if task.role is not None else None,
                                 task.span.file if task.span is not None else None, basedir, task.action,
                                 os.path.dirname(entry.file) if entry is not None and entry.file else "")
    return type(templar)(templar.raw, lookups, templar.task_scope, templar.bounded, templar.data,
                         templar.origin_of, templar.deprecate)


def _any_changed(results: list[Any]) -> bool | None:
    """Whether a run whose items gave ``results`` reports a change: any item's, None when an item's
    is the run's to know and none is known to change."""
    changes = [result.get("changed") if isinstance(result, dict) else result["changed"]
               if isinstance(result, ModuleResult) and result.decides("changed") else None for result in results]
    return True if True in changes else None if None in changes else False


def _item_keys(scope: Mapping[str, Any]) -> dict[str, Any]:
    """An item's loop variables in the order ansible adds them to its result."""
    if not scope:
        return {}
    order = [scope["ansible_loop_var"], "ansible_loop_var", scope.get("ansible_index_var"), "ansible_index_var",
             "ansible_loop"]
    return {name: scope[name] for name in order if name in scope}


def _item_result(task: Task, scope: Mapping[str, Any], templar: Templar, index: int, label: str,
                 stops: bool) -> Any:
    """The result of a loop item that a module runs: its loop variables (``_run_loop`` adds them)
    and, for a command or shell outside check mode, that it has no ``skipped`` (the module sets
    one only in check mode); the module's own keys are the run's. Other actions: all the run's.
    ``stops``: a failure of it stops the host (:func:`errors_stop`)."""
    if task.action in MODEL_RESULTS:
        return RuntimeValue(f"the result of item {index + 1} of {label}")
    absent: frozenset[str] = frozenset()
    known = _item_keys(scope)
    skipped = _skipped_in_check_mode(task, task.args if isinstance(task.args, Mapping) else {}, templar, label)
    if skipped is not None:
        return ModuleResult({**known, **skipped}, f"item {index + 1} of {label}", frozenset({"results"}))
    if _outside_check_mode(task, templar, label):
        if task.action in kw.COMMANDS:
            absent = frozenset({"skipped", "results"})
            if (line := command_line(task, task.args if isinstance(task.args, Mapping) else {}, templar)) is not None:
                known["cmd"] = line
        conditions = changed_when_of(task, looped=True)
        decided = _decide(conditions, templar, label) if conditions is not None else None
        if decided is not None and not isinstance(decided, RunDecides):
            known["changed"] = decided is True
        if module_succeeds(task, looped=True, stops=stops):
            known["failed"] = False
    return ModuleResult(known, f"item {index + 1} of {label}", absent)


def _registered(results: list[Any], looped: bool, label: str, register: str) -> Any:
    """What ``register`` keeps: the one result, or a loop's (``TaskExecutor._run_loop``: each
    item's result with its loop variables, under ``results``; an item a module ran is a
    :class:`ModuleResult`, and the loop's own ``changed``, ``failed`` and ``msg`` are then the run's)."""
    unknown = next((result for result in results if not isinstance(result, dict | ModuleResult)), None)
    if unknown is not None:
        return unknown
    if not looped:
        return results[0] if results else RuntimeValue(f"the result of {label} (register: {register})")
    if not results:  # TaskExecutor.run: a loop with no items runs nothing
        return {"changed": False, "skipped": True, "skipped_reason": "No items in the list", "results": []}
    ran = [result for result in results if isinstance(result, ModuleResult) and not result.shaped]
    if ran:  # _run_loop: skipped unless an item has no (or a false) skipped
        known: dict[str, Any] = {"results": results}
        if any(result.decides("skipped") and "skipped" not in result for result in ran):
            known["skipped"] = False
        if all(result.decides("changed") for result in ran):  # _run_loop: changed if an item changed
            known["changed"] = any(result["changed"] for result in ran)
        return ModuleResult(known, label)
    # TaskExecutor.run's order: changed once an item changed, failed (and its msg) once one failed,
    # then the msg of a loop that did not fail (a skipped one's wins), changed false if none did
    # (a shaped result whose values only the run knows decides its changed, failed and skipped)
    skipped = all(result.get("skipped") for result in results)
    found: dict[str, Any] = {"results": results, "skipped": skipped}
    if any(result.get("changed") for result in results):
        found["changed"] = True
    if any(result.get("failed") for result in results):
        found.update(failed=True, msg="One or more items failed")
    else:
        found["msg"] = "All items completed"
    if skipped:
        found["msg"] = "All items skipped"
    found.setdefault("changed", False)
    return found


def unknown_result(task: Task, outside_check_mode: bool = False, recovered: bool = False) -> Effects:
    """The effects of a task that only registers a module's result, on any host
    (``outside_check_mode``: the task is known not to run in check mode, where a module may be
    skipped instead; ``recovered``: as :func:`follow` takes it)."""
    effects = Effects()
    data = task.data if isinstance(task.data, Mapping) else {}
    register = data.get("register")
    if isinstance(register, str) and register:
        label = f"task '{task.display_name()}'"
        value: Any = ModuleResult({"failed": False}, label, frozenset({"results"}), uniform=True) \
            if outside_check_mode and module_succeeds(task, stops=errors_stop(task, None, recovered)) else \
            RuntimeValue(f"the result of {label} (register: {register})", uniform=True)
        effects.facts.append(_layer("set_fact / register", f"register in {label}", {register: value}, task))
    return effects


def _run_decides(why: str, fails: bool) -> RunDecides:
    decides = RunDecides(why)
    decides.fails = fails
    return decides


def _run(task: Task, args: Mapping[str, Any], templar: Templar, basedir: str, cache: SourceCache,
         facts: dict[str, Any], effects: Effects, label: str, merge_hashes: bool = False, stops: bool = True) -> Any:
    """The task's own effect on ``facts`` / ``effects``; its result where its shape is known
    (``stops``: a failure of it stops the host, :func:`errors_stop`)."""
    if task.action in SET_FACT:
        values, unknown = {}, []
        for name, raw in args.items():
            if name == "cacheable":
                continue
            name = set_fact_key(name, templar, label)
            try:
                value = templar.template(raw)
            except Exception as exc:  # noqa: BLE001 - a value only the run knows (or a failing one)
                # set whatever it is where a failure stops the host and no omit may drop it (is defined);
                # not on a host its facts are delegated to, which a failure of the sender does not stop
                delegated = isinstance(task.data, Mapping) and bool(task.data.get("delegate_facts"))
                value = RuntimeValue(f"set by {label} from what only the run knows: {exc}",
                                     defined=stops and not delegated and "omit" not in str(raw))
                unknown.append(exc.with_traceback(None))  # (its frames hold this list: a cycle)
            if not omitted(value):  # an argument templated to omit is dropped: the name is not set
                values[str(name)] = value
        facts.update(values)
        if values and "cacheable" in args:
            cached = _cached_facts(args["cacheable"], values, templar, label)
            if cached is not None:
                facts["ansible_facts"] = cached
        if unknown:
            return shown_by_the_run(unknown, label, f"the result of {label}, some of whose values only the run knows")
        return {"ansible_facts": dict(values), "failed": False, "changed": False}
    if task.action in INCLUDE_VARS:
        try:
            files, data = included_vars(task, args, templar, basedir, cache, label)
            data = with_hash_behaviour(args, data, templar, merge_hashes, label)
        except VarsFilesUnknown as exc:
            raise _run_decides(str(exc), isinstance(exc, VarsFilesFail)) from exc  # (no local of this frame holds it)
        layer = _layer("include_vars", f"include_vars in {label}", data, task, files[0] if files else None)
        effects.included.append(layer)
        return {"ansible_included_var_files": files, "ansible_facts": dict(data), "failed": False, "changed": False}
    if task.action in DEBUG:
        return debug_result(args, templar, label)
    if task.action in ASSERT:
        return assert_result(args, templar, label)
    if task.action in FAIL:
        try:
            message = templar.template(args.get("msg", "Failed as requested from task"))
        except Exception as exc:  # noqa: BLE001 - a message only the run knows: the task fails all the same
            return ModuleResult({"changed": False, "failed": True}, label, frozenset({"results", "skipped"}),
                                why=str(exc), shaped=True)
        return failed_result({"msg": message}, label)
    skipped = _skipped_in_check_mode(task, args, templar, label)
    if skipped is not None:
        return ModuleResult(skipped, label, frozenset({"results"}))
    known: dict[str, Any] = {}
    outside_check_mode = _outside_check_mode(task, templar, label)
    changed_when = changed_when_of(task)
    if changed_when is not None and outside_check_mode:
        decided = _decide(changed_when, templar, label)  # (in check mode a module may be skipped instead)
        if not isinstance(decided, RunDecides):
            known["changed"] = decided is True
    if outside_check_mode and task.action in kw.COMMANDS and loop_of(task) is None and \
            (line := command_line(task, args, templar)) is not None:
        known["cmd"] = line  # set before the command runs (engine.variables.command_line); an item's: _item_result
    if outside_check_mode and module_succeeds(task, stops=stops):
        known["failed"] = False
    elif outside_check_mode and failed_when_decides(task):  # as the plan decides it: ignore_errors read it
        decided = failed_when(task, templar, label)
        if isinstance(decided, bool):
            known["failed"] = decided
    # outside check mode, command and shell never say skipped (their module sets it in check mode only)
    absent = frozenset({"results", "skipped"}) if outside_check_mode and task.action in kw.COMMANDS \
        else frozenset({"results"})
    if known:
        return ModuleResult(known, label, absent)
    raise RunDecides(f"the result of {label} ({task.action})")


def _cached_facts(cacheable: Any, values: Mapping[str, Any], templar: Templar, label: str) -> Any:
    """``ansible_facts`` after a ``set_fact`` with ``cacheable`` (None when it is false): the
    strategy puts its values among the host's facts too (``set_host_facts``), which ``ansible_facts``
    shows without their ``ansible_`` prefix (``namespace_facts``)."""
    from engine.variables.play_context import namespace_facts

    try:
        if not boolean(templar.template(cacheable)):
            return None
        current = templar.template("{{ ansible_facts }}")
    except Exception as exc:  # noqa: BLE001 - a setting or facts only the run knows
        return RuntimeValue(f"'ansible_facts' after {label} (cacheable): {exc}")
    if not isinstance(current, Mapping):
        return RuntimeValue(f"'ansible_facts' after {label} (cacheable), from facts only the run knows")
    return {**current, **namespace_facts(values)}


def _outside_check_mode(task: Task, templar: Templar, label: str) -> bool:
    """Whether ``task`` is known not to run in check mode (where a module may be skipped instead
    of run): a ``check_mode`` of its own or inherited that is false, or none and the run's not in
    it (``ansible_check_mode`` is the run's ``--check`` whatever the task says)."""
    return _check_mode(task, templar, label) is False


def _check_mode(task: Task, templar: Templar, label: str) -> bool | None:
    """Whether ``task`` runs in check mode (None: only the run knows)."""
    own = getattr(task.effective("check_mode"), "value", None)
    if own is None:
        decided = _decide(["ansible_check_mode | default(false)"], templar, label)
        return decided if isinstance(decided, bool) else False if isinstance(decided, str) else None
    try:
        return boolean(own, strict=True)
    except (TypeError, ValueError):
        return None  # templated: the run decides


def _skipped_in_check_mode(task: Task, args: Mapping[str, Any], templar: Templar, label: str) -> dict[str, Any] | None:
    """The result a ``command`` or ``shell`` without ``creates``/``removes`` gives in check mode: the
    module skips itself (its ``changed_when`` and ``failed_when`` are not evaluated then); its
    ``cmd`` is left to the run. None where it may run."""
    if task.action not in kw.COMMANDS or "creates" in args or "removes" in args or \
            _check_mode(task, templar, label) is not True:
        return None
    return {"changed": False, "failed": False, "msg": "Command would have run if not in check mode", "rc": 0,
            "skipped": True, "start": None, "end": None, "delta": None, "stdout": "", "stderr": "",
            "stdout_lines": [], "stderr_lines": []}


def _changed_as_told(task: Task, result: Any, templar: Templar, label: str) -> Any:
    """The result of an action whose shape is known (``debug``, ``set_fact``...) with the
    ``changed`` its ``changed_when`` gives it (``TaskExecutor._execute``): unknown when the
    conditions read the task's own result or what only the run knows."""
    from engine.templating.variable_uses import names_read

    data = task.data if isinstance(task.data, Mapping) else {}
    raw = data["changed_when"]
    conditions = raw if isinstance(raw, list) else [raw]
    for condition in conditions:
        if isinstance(condition, str) and names_read(condition, True) is None:
            raise RunDecides(f"the result of {label}, whose changed_when reads what playbook-ls cannot read")
    decided = _decide(conditions, templar, label)
    if isinstance(decided, RunDecides):
        raise decided
    if isinstance(result, ModuleResult):
        return result.with_known(changed=decided is True)
    return {**result, "changed": decided is True}


def _decide(conditions: list[Any], templar: Templar, label: str) -> Any:
    """True when every condition holds, the first false one as written (ansible's
    ``false_condition``), or why only the run knows."""
    for condition in conditions:
        try:
            holds = templar.evaluate(condition)
        except Exception as exc:  # noqa: BLE001 - an operand only the run knows
            unknown = RunDecides(f"set by {label} only if its condition {condition!r} holds, which only the run knows "
                               f"({exc})")
            unknown.fails = condition_fails(exc)
            holds = unknown if unknown.fails else three_valued(condition, templar, unknown)
            if isinstance(holds, RunDecides):
                return holds
        if not holds:
            return condition
    return True


def _fails_by_condition(effects: Effects, task: Task, register: str | None, looped: bool, label: str) -> Effects:
    """What a task whose ``when`` fails it (an item's, in a loop) sets: no fact (ansible applies the
    facts of a result that did not fail only, a loop's as a whole), its failed result registered."""
    effects.facts = []
    if register:
        absent = frozenset() if looped else frozenset({"results"})
        result = ModuleResult({"changed": False, "failed": True}, label, absent)
        effects.facts.append(_layer("set_fact / register", f"register in {label}", {register: result}, task))
    effects.changed = False
    return effects


def _fails_by_loop(effects: Effects, task: Task, register: str | None, message: str, label: str) -> Effects:
    """What a task whose ``loop`` is not a list sets: nothing, and the failure ``TaskExecutor.run``
    makes of the error registered (``failed``, ``msg``, ``exception``: no ``changed``)."""
    effects.changed = False
    if register:
        result: Any = {"exception": "(traceback unavailable)", "failed": True, "msg": message} if tracebacks_off() \
            else RuntimeValue(f"the result of {label}, which fails with the traceback the run's settings show")
        effects.facts.append(_layer("set_fact / register", f"register in {label}", {register: result}, task))
    return effects


def _all_unknown(effects: Effects, task: Task, args: Mapping[str, Any], register: str | None, reason: str,
                 files: tuple[str, SourceCache, Templar] | None = None) -> None:
    if task.action in SET_FACT:
        names = {str(name): RuntimeValue(reason) for name in args if name != "cacheable"}
        effects.facts.append(_layer("set_fact / register", f"set_fact in task '{task.display_name()}'", names, task))
    if task.action in INCLUDE_VARS:  # which names it sets is the run's too: those of the files it may read, or any
        possible = possible_names(task, args, *files) if files is not None else None
        layer = _layer("include_vars", f"include_vars in task '{task.display_name()}'",
                       {name: RuntimeValue(reason) for name in possible or ()}, task)
        effects.included.append(layer if possible is not None else replace(layer, any_name=reason))
    if register:
        effects.facts.append(_layer("set_fact / register", f"register in task '{task.display_name()}'",
                                    {register: RuntimeValue(reason)}, task))


def _layer(level: str, label: str, values: Mapping[str, Any], task: Task, path: str | None = None) -> Layer:
    found = YMap()
    found.update(values)
    if task.span is not None and path is None:
        found.key_spans.update((name, task.span) for name in values)
    key_spans = getattr(values, "key_spans", None)
    if key_spans:
        found.key_spans.update(key_spans)
    return Layer(level, label, found, path or (task.span.file if task.span else None), runtime=True)

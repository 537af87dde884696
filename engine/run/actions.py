"""What a task's action does for one host: the controller's own actions (includes, ``set_fact``,
``include_vars``, inventory changes, meta tasks) and the module run in the engine.

A part of :class:`~engine.run.executor.Executor`, kept apart so that the strategy (which host runs
which task when) reads on its own; the executor's state (variables, handlers, includes, the hosts
facts go to) is used as the executor holds it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.flow.loops import loop_of
from engine.inventory.data import Host
from engine.loading import keywords as kw
from engine.loading.includes import NAME_SPANS, MissingInclude, MissingRole
from engine.loading.model import Block, Task
from engine.parsing.yaml_hints import VarsFileUnparsable
from engine.run.async_jobs import ASYNC_STATUS, NO_ASYNC, AsyncError, async_settings
from engine.run.become import become_failure, become_user, needs_sudo
from engine.run.callback import Outcome
from engine.run.environment import task_environment
from engine.run.error_block import unparsable_vars_file
from engine.run.handlers import template_notify
from engine.run.inventory_changes import CHANGES_INVENTORY, change_inventory
from engine.run.keyword_types import KeywordFailure, keyword_failure, raw_params_failure, validate_keywords
from engine.run.parent_block import template_block_name
from engine.run.task_runner import failed_result, include_item_vars, keyword, truth
from engine.run.type_warnings import warn_for_arguments
from engine.run.workdir import absolute, module_directory
from engine.templating.finalize import converted_types
from engine.templating.templar import Templar, TemplateFailure
from engine.templating.value_origins import set_fact_origins
from engine.values import untrusted
from engine.variables.manager import SET

SET_FACT, INCLUDE_VARS, META = kw._family("set_fact"), kw._family("include_vars"), kw.META
VALIDATE_SPEC, ASSERT = kw._family("validate_argument_spec"), kw._family("assert")
# the arguments of an include that name what it includes (IncludedFile keeps them apart)
_NAMING_ARGS = frozenset({"_raw_params", "file", "name", "role", "tasks_from", "vars_from", "defaults_from",
                          "handlers_from"})
MISSING_INCLUDE = "_ansible_missing_include"
"""The reason the file a (not looped) include_tasks names cannot be loaded, on its ok result."""
NO_CONDITIONAL_META = frozenset({"noop", "refresh_inventory", "reset_connection", "role_complete"})
INTERPRETER_FACT = "discovered_interpreter_python"
GATHERS = kw._family("setup", "gather_facts")


@dataclass
class HostRun:
    """One host's progress through the current play."""

    host: Host
    ended: bool = False
    failed: bool = False
    rescue_depth: list[bool] = field(default_factory=list)
    ending_role: Any = None
    """The role a ``meta: end_role`` ended: its tasks are left out up to its role_complete."""
    carried: list[Block] = field(default_factory=list)
    """What a looped include that failed on a missing file did include: the strategy marks the host
    failed, then adds them to the section it goes to."""


@dataclass
class Step:
    """What a host's program asks the strategy to do next, and what it got back."""

    task: Task
    outcome: Outcome | None = None
    blocks: list[Block] = field(default_factory=list)
    meta_skipped: bool = False
    marked: bool = False
    """The task did not run: the strategy marked the host failed before it (any_errors_fatal)."""
    marked_after: bool = False
    """The task ran, then the strategy marked the host failed (any_errors_fatal): the section it is
    in fails, as the iterator's state still holds the host there."""
    include_failed: bool = False
    """A looped include failed on a missing file after the task ran (its other files still count)."""
    included: list[tuple[tuple[str, dict[str, Any]], list[Block]]] = field(default_factory=list)
    """Per include the task made: (file or role, item vars) and the blocks it loaded."""


class TaskActions:
    """The actions of :class:`~engine.run.executor.Executor` (a mixin: it holds no state of its own)."""

    def _action(self, task: Task, run: HostRun, templar: Templar, step: Step) -> dict[str, Any]:
        action = task.action
        try:  # ansible's post_validate templates the keywords for every task it executes, includes too
            template_block_name(task, templar)
            template_notify(task, templar)
            environment = task_environment(task, templar, self.callback.warning)
            validate_keywords(task, templar)
        except TemplateFailure as exc:
            from engine.run.error_block import failure_result

            return keyword_failure(exc, self.callback.warning) if isinstance(exc, KeywordFailure) \
                else failure_result(exc)
        if (refused := raw_params_failure(task)) is not None:
            return refused
        if action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE:
            if action in kw.INCLUDE_TASKS:  # its arguments are post-validated as any task's are
                failure = _templating_failure(templar, {k: v for k, v in task.args.items() if k != "apply"})
                if failure is not None:
                    from engine.run.error_block import finalization_failure

                    return finalization_failure(task, templar.template, failure)
            try:
                blocks, result = self.includes.load(task, templar, self.context.play)
            except MissingRole as exc:  # the strategy fails the host when it loads the role
                from engine.run.error_block import ERROR_KEY, Event

                return {"changed": False, MISSING_INCLUDE: exc.reason, ERROR_KEY: [Event(exc.reason, exc.span)]}
            except MissingInclude as exc:
                if loop_of(task) is not None:  # the item is ok: the strategy fails the host once
                    # every host ran the task, when it loads the files in order (_announce_includes)
                    self.included_items.append((exc.path, include_item_vars(task, templar), exc.reason))
                    return {"changed": False, "include": exc.target}
                # the include itself ran: the strategy fails the host when it loads the file
                return {"changed": False, "include": exc.target, MISSING_INCLUDE: exc.reason}
            except TemplateFailure as exc:
                return failed_result(str(exc))
            step.blocks += blocks
            self.handlers.add(self.includes.handlers)
            # IncludeRole.get_block_list: the included role joins the play's roles (its public
            # defaults and vars, the role names), after those it imports; once for an include
            # loaded again as it was
            tops = [role for role in self.role_tree.add(blocks) if role.via == "include_role"]
            self.context.roles += self.role_tree.members(tops)
            files = [os.path.abspath(path) for path in self.includes.announce]
            if files:  # loading the file (or role) warns as loading the play does
                from engine.run.play_warnings import duplicate_key_warnings, files_of, load_time_warnings

                found = load_time_warnings((each for block in blocks for each in block.tasks()), kw.INCLUDE_TASKS,
                                           True) if action in kw.INCLUDE_TASKS else []
                known = self.includes.warnings.get(files[0], [])
                # an included file is read whole before the files it imports, a role's files in turn
                first = files[:1] if action in kw.INCLUDE_TASKS else files_of(blocks)
                duplicated = duplicate_key_warnings(first, self.variables.cache.load, set())
                later = duplicate_key_warnings(files_of(blocks), self.variables.cache.load, set(first))
                self.includes.warnings[files[0]] = list(dict.fromkeys([*duplicated, *known, *found, *later]))
            if action in kw.INCLUDE_ROLE and not result.get("failed"):
                files.append(str(result.get("include")))  # a role is named
            special = include_item_vars(task, templar)
            # IncludedFile compares the include's other arguments too (a role's public, apply...)
            others = {k: v for k, v in (result.get("include_args") or {}).items() if k not in _NAMING_ARGS}
            if others:
                special = {**special, "_include_args": repr(sorted(others.items(), key=str))}
            self.included_items += [(path, special, None) for path in files]
            step.included += [((path, special), blocks) for path in files[-1:]]
            self.includes.announce.clear()
            return result
        failed: TemplateFailure | None = None
        try:
            with converted_types() as converted:
                args = templar.template({k: v for k, v in task.args.items() if not (action in ASSERT and k == "that")})
            if action in ASSERT and "that" in task.args:
                args["that"] = _assert_conditions(task.args["that"], templar)
        except TemplateFailure as exc:
            failed = exc
        if failed is not None:  # out of the except: the arguments templated again are no context of it
            from engine.run.error_block import finalization_failure

            return finalization_failure(task, templar.template, failed)
        if converted:
            warn_for_arguments(task, templar.template, self.callback.warning)
        state = self.variables.state(run.host.name)
        try:
            data = task.data if isinstance(task.data, Mapping) else {}  # task-only keywords
            seconds, interval = async_settings(templar.template(data.get("async")),
                                               templar.template(data.get("poll")))
        except (TemplateFailure, AsyncError) as exc:
            return failed_result(str(exc))
        if seconds > 0 and action in NO_ASYNC:  # ActionBase.run, before the action does anything
            return {"failed": True, "msg": f"This action ({action}) does not support async."}
        if action in ASYNC_STATUS:
            return self.jobs.status_action(args, templar.variables.get("ansible_async_dir"), action)
        if action in SET_FACT:
            from engine.booleans import NotABoolean, boolean

            try:  # the action's boolean(), strict: raised as the task's error
                cacheable = boolean(args.pop("cacheable", False), strict=True)
            except NotABoolean as exc:
                return failed_result(f"Task failed: {exc}")
            facts = {k: untrusted(v) for k, v in args.items() if k != "_raw_params"}  # rendered, not templates
            if not facts:  # every value omitted (``x | default(omit)``): the action has nothing to set
                return failed_result("No key/value pairs provided, at least one is required for this action to succeed")
            invalid = invalid_fact_name(task, facts, templar)
            if invalid is not None:
                return invalid
            origins = set_fact_origins({k: v for k, v in task.args.items() if k in facts}, task.data,
                                       templar.variables, templar.origin_of, absolute)
            for target in self.fact_hosts or [run.host.name]:
                self.variables.state(target).nonpersistent.update(facts)
                self.variables.state(target).origins[SET].update(origins)
                if cacheable:
                    self.variables.state(target).facts.update(facts)
            return {"changed": False, "ansible_facts": facts, "_ansible_facts_cacheable": cacheable}
        if action in INCLUDE_VARS:
            try:
                result = self.includes.include_vars(task, args, state, self.context.play.basedir, templar.raw,
                                                    self.plan.inventory.data.merge_hashes)
            except VarsFileUnparsable as exc:
                return unparsable_vars_file(exc.failure)
            from engine.run.play_warnings import duplicate_key_warnings

            # the action loads each file as it runs, before the strategy reads its result
            for warning in duplicate_key_warnings(result.get("ansible_included_var_files") or [],
                                                  self.variables.cache.load, set()):
                self.callback.warning(warning)
            self.included_name_spans = result.pop(NAME_SPANS, None)
            for target in self.fact_hosts or []:
                if target != run.host.name and isinstance(result.get("ansible_facts"), Mapping):
                    self.variables.state(target).included.update(result["ansible_facts"])
            return result
        if action in CHANGES_INVENTORY:
            return change_inventory(task, args, templar)
        if action in VALIDATE_SPEC:
            from engine.run.role_arguments import run_validation

            try:
                return run_validation(task, args, templar)
            except TemplateFailure as exc:
                return failed_result(str(exc))
        try:
            user = become_user(task, templar)
        except TemplateFailure as exc:
            return failed_result(str(exc))
        if needs_sudo(user, action):  # the plan refused the keywords when sudo is there (engine.run.become)
            return become_failure(str(user))
        if seconds > 0:
            return self.jobs.run(lambda: self._module(task, args, templar, environment), run.host.name,
                                 seconds, interval, templar.variables.get("ansible_async_dir"))
        return self._module(task, args, templar, environment)

    def _module(self, task: Task, args: dict[str, Any], templar: Templar,
                environment: dict[str, str]) -> dict[str, Any]:
        from engine.run.censoring import no_log
        from engine.run.interpreter_discovery import ACTION_FIRST
        from engine.run.modules import ACTION_RESULT, BEFORE_MODULE, ModuleContext, ModuleError
        from engine.run.modules._sources import source_search_paths

        module = self.modules(task.action)
        if module is None:
            from engine.run.modules import missing_module_message

            return failed_result(f"{missing_module_message(task.action)}; run with --engine ansible to use "
                                 "ansible-playbook")
        check = keyword(task, "check_mode")
        diff = keyword(task, "diff")
        context = ModuleContext(
            check_mode=truth(check, templar) if check is not None else self.options.check,
            diff=truth(diff, templar) if diff is not None else self.options.diff,
            task_vars=templar.variables, search_paths=source_search_paths(task, self.context.play.basedir),
            render=templar.render_text, evaluate=templar.evaluate, environment=environment,
            written=task.data.get(task.action) if isinstance(task.data, Mapping) else None,
            written_span=getattr(task.data, "value_spans", {}).get(task.action), raw_vars=templar.raw,
            no_log=no_log(task, templar))
        # an action plugin that may end before its module runs discovers when the module has run
        after = task.action in ACTION_FIRST
        discovered = None if after else self._discover_interpreter(task, templar, context)
        try:
            with module_directory(self.context.play.basedir or os.getcwd()):
                result = dict(module(args, context))
        except ModuleError as exc:
            result = {**failed_result(str(exc)), **(exc.result or {})}
            if not result.pop(BEFORE_MODULE, False) and after:
                self._discover_interpreter(task, templar, context)
            return result
        except TemplateFailure as exc:
            return failed_result(str(exc))
        except Exception as exc:  # noqa: BLE001 - a module that raises fails its task, as in ansible
            return failed_result(f"Task failed: Module failed: {exc}")
        if isinstance(result.get("ansible_facts"), dict):
            gathered = bool(result["ansible_facts"].pop("_ansible_facts_gathered", False))
            for target in self.fact_hosts or [templar.variables["inventory_hostname"]]:
                state = self.variables.state(target)
                # the gather_facts action's marker, which ``gathering = smart`` looks for
                state.gathered = gathered or state.gathered
                state.facts.update(result["ansible_facts"])
        before, own = result.pop(BEFORE_MODULE, False), result.pop(ACTION_RESULT, False)
        if after and not before and not result.get("_ansible_action_skip"):
            discovered = self._discover_interpreter(task, templar, context)
        # _execute_module adds it to a module's result; the action's own result does not carry it
        if discovered is not None and not result.get("_ansible_action_skip") and not own:
            result["ansible_facts"] = {**(result.get("ansible_facts") or {}), INTERPRETER_FACT: discovered}
            if not result.get("skipped") and not result.get("failed"):  # the strategy keeps the facts of the others
                for target in self.fact_hosts or [templar.variables["inventory_hostname"]]:
                    self.variables.state(target).facts[INTERPRETER_FACT] = discovered
        return result

    def _discover_interpreter(self, task: Task, templar: Templar, context: Any) -> str | None:
        """ansible's interpreter discovery before the task's Python module runs, when the host (the
        delegated one, for a delegated task) asks for it and has not had it yet: the warnings now,
        the interpreter returned for the result's facts (None when there is none to carry: no
        discovery, or a delegated task without ``delegate_facts``, whose worker alone keeps it)."""
        from engine.run import interpreter_discovery as discovery
        from engine.run.delegation import delegate_facts

        if not discovery.runs_python(task.action, context.check_mode):
            return None
        delegated = templar.raw.get("ansible_delegated_vars")
        use = next(iter(delegated.values())) if isinstance(delegated, Mapping) and delegated else templar.variables
        facts = use.get("ansible_facts")
        # a loop's later items see what the first one found (the worker's task_vars keep it)
        key = (id(task), templar.variables.get("inventory_hostname"), *(delegated or ()))
        if isinstance(facts, Mapping) and INTERPRETER_FACT in facts or key in self.interpreters_found:
            return None
        mode = discovery.discovery_mode(use, templar.template)
        if mode is None:
            return None
        found = self.interpreters_found[key] = discovery.discover(use, mode, self.callback.warning,
                                                                   self.callback.deprecated)
        if task.action in GATHERS:  # the facts are gathered with it
            from collections import ChainMap

            context.task_vars = ChainMap({"ansible_facts": {**(facts or {}), INTERPRETER_FACT: found}},
                                         templar.variables)
        return found if not delegated or delegate_facts(task, templar) else None

    def _meta(self, task: Task, run: HostRun, templar: Templar) -> bool:
        """Do what a meta task says for this host; False when its ``when`` skipped it."""
        what = task.args.get("_raw_params")
        if what in NO_CONDITIONAL_META and what != "role_complete" and task.effective_when():
            self.callback.warning(f"{what} task does not support when conditional")
        if what not in NO_CONDITIONAL_META and not task.implicit:  # these ignore when (ansible warns)
            try:
                if task.effective_when() and not all(templar.evaluate(s.value) for s in task.effective_when()):
                    return False
            except TemplateFailure:
                return False
        if what == "end_host":
            self._finish_host(run, False)
        elif what in ("end_play", "end_batch"):
            self.end_play = self.end_play or what == "end_play"
            for other in self.runs.values():
                if not other.ended and other.host.name not in self.unreachable_hosts:
                    self._finish_host(other, False)
        elif what == "end_role" and task.role is not None:
            run.ending_role = task.role
        elif what == "role_complete" and task.implicit:
            self.role_runs.role_complete(task, run.host.name)
        elif what == "clear_host_errors":  # failed and unreachable no more, for the plays after this one
            for name in self.context.hosts_all:
                self.failed_hosts.discard(name)
                self.unreachable_hosts.discard(name)
        elif what == "clear_facts":  # VariableManager.clear_facts: the fact cache of every host of
            # the play; what set_fact set without cacheable stays
            for name in self.context.hosts_all:
                self.variables.state(name).facts.clear()
        return True


def _assert_conditions(that: Any, templar: Templar) -> Any:
    """``that`` as the assert action finalizes it (``finalize_task_arg``): its conditions are
    evaluated as written, not templated first; only a string that is wholly one template is
    rendered, and kept rendered when it gives a list of conditions."""
    if not isinstance(that, str):
        return that
    text = that.strip()
    if text.startswith("{{") and text.endswith("}}"):
        try:
            rendered = templar.template(that)
        except TemplateFailure:
            return that
        if isinstance(rendered, list):
            return rendered
    return that


def invalid_fact_name(task: Task, names: Mapping[str, Any], templar: Templar | None = None) -> dict[str, Any] | None:
    """The failure of a set_fact whose name is no variable name (``validate_variable_name``):
    the error at the name as written (a templated name's template, whose origin ansible's result
    keeps), with ansible's help text; None when every name is valid."""
    from engine.loading.frames import VARIABLE_NAME_HELP, invalid_variable_name
    from engine.run.error_block import ERROR_KEY, Event

    for name in names:
        message = invalid_variable_name(name)
        if message is None:
            continue
        written = task.data.get(task.action) if isinstance(task.data, Mapping) else None
        span = _written_key(getattr(written, "key_spans", None) or {}, name, templar)
        return {"failed": True, "changed": False, "msg": f"Task failed: {message}",
                ERROR_KEY: [Event(message, span, help=VARIABLE_NAME_HELP)]}
    return None


def _written_key(spans: Mapping[Any, Any], name: Any, templar: Templar | None) -> Any:
    """Where the argument name that gave ``name`` is written: the name itself, else the template
    that renders to it."""
    if name in spans:
        return spans[name]
    from engine.templating.jinja_environment import is_template

    for key, span in spans.items():
        if templar is not None and isinstance(key, str) and is_template(key):
            try:
                if templar.template(key) == name:
                    return span
            except Exception:  # noqa: BLE001 - a key that fails now is not the one that gave the name
                continue
    return None


def _templating_failure(templar: Any, value: Any) -> TemplateFailure | None:
    """The failure of templating ``value``, returned rather than raised: what templates again to
    say which argument failed then runs outside its handling, so that a variable first met then
    does not take the failure's place (its origin) as the context of its own."""
    try:
        templar.template(value)
    except TemplateFailure as exc:
        return exc
    return None

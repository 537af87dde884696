"""Phase 2 of a run: execute a :class:`~engine.flow.plan.Plan` on the local machine.

The linear strategy, one host after the other per task (forks 1): each host walks its blocks
in a generator that reacts to results (rescue after a failure, always in any case, included
tasks in place), and the strategy advances hosts in lockstep on the same task. Only local
connections are made; any other host is unreachable, never pretended to.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from engine.flow.loops import loop_of
from engine.flow.plan import Plan, PlayPlan
from engine.flow.role_runs import RoleRuns
from engine.inventory.data import Host
from engine.loading import keywords as kw
from engine.loading.frames import EXIT_PARSER_ERROR
from engine.loading.includes import IncludeLoader, IncludeParseError
from engine.loading.model import Block, Play, RoleInstance, Task
from engine.run.actions import INCLUDE_VARS, META, MISSING_INCLUDE, SET_FACT, VALIDATE_SPEC, HostRun, Step, TaskActions
from engine.run.async_jobs import Jobs
from engine.run.callback import HELD, Callback, Outcome
from engine.run.censoring import no_log, shown_no_log
from engine.run.delegated_runs import DelegatedRuns
from engine.run.delegation import written_delegate_to
from engine.run.error_block import condition_span, problem_text
from engine.run.failed_results import failure_kept, ignore_fields
from engine.run.file_and_command_lookups import task_context
from engine.run.free import BYPASS_HOST_LOOP, is_free, run_free
from engine.run.gathering import gather_block, gathering_policy, gathers
from engine.run.handler_runs import HandlerRuns
from engine.run.handlers import Handlers, MissingHandler, forces_handlers, play_blocks
from engine.run.host_program import HostPrograms, Program
from engine.run.includes_announced import blocks_in_include_order
from engine.run.inventory_changes import apply_inventory_changes
from engine.run.keyword_types import written_user
from engine.run.local import connection_vars, delegated_address, remote_user, ssh_refusal, unreachable_result
from engine.run.lockstep import Lockstep
from engine.run.play_roles import RoleTree, play_role_groups, play_roles
from engine.run.play_warnings import (
    frame_var_warnings,
    inventory_reserved_warnings,
    load_time_warnings,
    play_start_warnings,
    role_chain,
    role_reserved_warnings,
    stored_name_warnings,
    vars_files_warnings,
    vars_plugin_warnings,
)
from engine.run.result_judging import judge
from engine.run.run_once import task_hosts
from engine.run.task_names import failed_task, plain_name
from engine.run.task_runner import keyword, registered, run_with_loop, templated_diff
from engine.run.throttle import ThrottleError, check_throttle
from engine.run.workdir import absolute
from engine.templating.templar import Templar, TemplateFailure
from engine.variables.manager import SET, VariableManager
from engine.variables.play_context import PlayContext
from engine.variables.sources import inventory_layers

EXIT_OK, EXIT_ERROR, EXIT_FAILED_HOSTS, EXIT_UNREACHABLE = 0, 1, 2, 4
# actions ansible carries out on the controller without opening the host's connection: they work
# for a host the engine cannot reach, as they do for one ansible cannot
CONTROLLER_ACTIONS = SET_FACT | INCLUDE_VARS | META | VALIDATE_SPEC | kw.INCLUDE_TASKS | kw.INCLUDE_ROLE | \
    kw._family("debug", "assert", "fail", "set_stats", "add_host", "group_by", "pause")
# the meta actions the linear strategy runs for every host; any other runs for the first host of
# the task, once for the batch (its when evaluated for that host alone)
PER_HOST_META = frozenset({"noop", "reset_connection", "end_host", "role_complete", "flush_handlers", "end_role"})


class Executor(HostPrograms, TaskActions, DelegatedRuns, HandlerRuns):
    def __init__(self, plan: Plan, callback: Callback, modules: Callable[[str], Any] | None = None) -> None:
        from engine.parsing.source import SourceCache

        if modules is None:
            from engine.run.modules import get_module as modules
        self.plan, self.callback, self.modules = plan, callback, modules
        self.options = plan.options
        self.variables = VariableManager(plan.inventory, plan.options, SourceCache())
        self.includes = IncludeLoader(self.variables.cache, rounds=True)
        self.failed_hosts: set[str] = set()
        self.unreachable_hosts: set[str] = set()
        self.marked_hosts: list[str] = []
        self.marked_ok: set[str] = set()
        """Hosts marked failed (any_errors_fatal) that ended their play well (after a rescue):
        failed for later plays, which mark them failed from the start, not for this one."""
        self.error = False
        self.aborted = False  # the playbook stopped on an error, before the recap
        self.free = False  # the play's strategy is free (engine.run.free)
        self.max_fail: float | None = None
        self.end_play = False
        self.batch_size = 0
        self.order: list[str] = []  # the play's hosts in its order
        self.batch_order: list[str] = []  # the batch's, likewise
        self.jobs = Jobs()
        # what an include task's run warns (its templates' deprecations and warnings), held until its
        # result is known: ansible's default callback shows none of an include's ok result
        self.held: list[Callable[[], None]] | None = None
        # the files a task included on a host (with its item's vars, and why one is missing)
        self.included_items: list[tuple[str, dict[str, Any], str | None]] = []
        self.pending_includes: list[tuple[str, str, dict[str, Any], str | None]] = []
        self.included_name_spans: dict[str, Any] | None = None  # where include_vars' file names its variables
        self.warned_roles: set[int] = set()  # role uses whose reserved variable names were warned of
        self.warned_hosts: set[str] = set()  # hosts whose inventory variables' reserved names were warned of
        self.interpreters_found: dict[tuple[Any, ...], str] = {}  # per task and host: engine.run.interpreter_discovery
        self.vars_plugin_files: set[str] = set()  # group_vars/host_vars files loaded (their duplicate keys warned of)
        self.fact_hosts: list[str] | None = None
        """Where the facts of the action being run go (the host, the delegated one, the batch)."""
        self.gathering = gathering_policy()
        self.include_sequence: list[Block] | None = None
        """The blocks the last task included, in the order the strategy adds them to the play."""
        self.start_at = plan.options.start_at_task
        """``--start-at-task`` until a batch's task matches it (engine.run.start_at)."""

    def run(self) -> int:
        from engine.templating.filters.json_query import available
        from engine.templating.jinja_environment import collection_filters

        # the collection filters the engine runs where ansible-playbook finds their collection
        with collection_filters(available(getattr(self.plan.playbook.plugins, "collections", None))):
            return self._run_plays()

    def _run_plays(self) -> int:
        try:
            for play_plan in self.plan.plays:
                if not self._run_play(play_plan):
                    break
        except MissingHandler as exc:
            self.callback._print(f"[ERROR]: {exc}")
            self.error = self.aborted = True
        except IncludeParseError as exc:  # the strategy re-raises it: the run ends there, without a recap
            self.callback.error("[ERROR]: " + problem_text(exc.problem))
            return EXIT_PARSER_ERROR
        except ThrottleError as exc:  # raised out of the strategy too
            self.callback.error(f"[ERROR]: {exc}")
            return EXIT_ERROR
        if not self.aborted:
            self.callback.recap()
            if self.start_at is not None:
                from engine.run.start_at import no_match_error

                self.callback.error(no_match_error(self.start_at))
        if self.error:
            return EXIT_ERROR
        if self.unreachable_hosts:
            return EXIT_UNREACHABLE
        # the last play's iterator decides: a host marked failed that ended well there is not failed
        return EXIT_FAILED_HOSTS if self.failed_hosts - self.marked_ok else EXIT_OK

    # -- plays --------------------------------------------------------------------------------
    def _run_play(self, play_plan: PlayPlan) -> bool:
        """Run one play, batch after batch (``serial``); False when the playbook stops."""
        from engine.flow.batches import BatchError, max_fail_percentage, serial_of, serialized_batches

        play = play_plan.play
        # get_vars(play=play) selects the play's hosts for its magic variables first (warning of a
        # pattern that matches nothing), reads vars_files, then warns of reserved names
        if play_plan.dynamic and not self._select_hosts(play_plan):
            return False
        for warning in play_plan.pattern_warnings:
            self.callback.warning(warning)
        for warning in vars_files_warnings(play, self.options.extra_vars | play.vars | {
                "playbook_dir": os.path.abspath(play.basedir), "groups": self.plan.inventory.data.get_groups_dict()},
                self.variables.cache.load):
            self.callback.warning(warning)
        groups = [[role for role in group if role.via != "import_role" or role.public in (None, True)]
                  for group in play_role_groups(play, RoleTree())]
        # loading an include or import gathers its variables (its vars and its blocks') to template its name
        loaded = load_time_warnings((task for block in play.compile() for task in block.tasks()), kw.INCLUDE_TASKS)
        play_start_warnings(play, self.options.extra_vars, self.callback.warning,
                            [*(warning for group in groups for sub in ("defaults", "vars")
                               for warning in role_reserved_warnings(group, sub, self._role_file)), *loaded])
        templar = Templar(self.options.extra_vars | play.vars)
        try:
            batches = serialized_batches(play_plan.hosts, serial_of(play, templar))
            self.max_fail = max_fail_percentage(play, templar)
        except BatchError as exc:
            self.callback._print(f"[ERROR]: {exc}")
            self.error = True
            return False
        if not batches:
            self.callback.play_start(play.name)
            self.callback._print("skipping: no hosts matched")
            return True
        self.end_play = False
        for batch in batches:
            if not self._run_batch(play_plan, batch, single=len(batches) == 1):
                return False
            if self.end_play:  # AnsibleEndPlay: the play's later batches do not run
                break
        return True

    def _role_file(self, path: str) -> Any:
        return self.variables.cache.load(path).data

    def _warn_role_names(self, role: RoleInstance) -> None:
        """The reserved names of the defaults and vars a task of ``role`` sees, as the strategy
        gathers its variables (before the banner); once per role use."""
        self.warned_roles.add(id(role))
        chain = role_chain(role, self.role_tree)
        for warning in [*role_reserved_warnings(chain, "defaults", self._role_file),
                        *role_reserved_warnings(chain, "vars", self._role_file)]:
            self.callback.warning(warning)

    def _select_hosts(self, play_plan: PlayPlan) -> bool:
        """The play's hosts from the inventory as earlier plays left it (add_host, group_by),
        with ansible's warnings for a pattern that matches nothing; False on an error."""
        from engine.inventory.patterns import HostPatternError, select_hosts

        warnings: list[str] = []
        try:
            play_plan.hosts = select_hosts(self.plan.inventory.data, play_plan.play.hosts, self.options.limit,
                                           warnings=warnings, mismatch=self.plan.host_pattern_mismatch)
        except HostPatternError as exc:
            self.callback._print(f"[ERROR]: {exc}")
            self.error = True
            return False
        for warning in warnings:
            self.callback.warning(warning)
        return True

    def _run_batch(self, play_plan: PlayPlan, batch: list[Host], single: bool) -> bool:
        """Run the play on one batch of its hosts; False when the playbook stops."""
        play = play_plan.play
        self.callback.play_start(play.name)
        gone = self.failed_hosts | self.unreachable_hosts
        previously = len(self.failed_hosts) + len(self.unreachable_hosts)
        self.marked_ok -= {h.name for h in play_plan.hosts}
        hosts = [h for h in batch if h.name not in gone]
        if not hosts:  # the batch's hosts all failed or were unreachable before: the play runs nothing
            return True  # (ansible's batch is not empty, so it says nothing of hosts not matched)
        self.role_tree = RoleTree()
        roles = play_roles(play, self.role_tree)
        # the play's order is the batches' and the strategy's, not ansible_play_hosts(_all)'s
        self.order = [h.name for h in play_plan.hosts]
        self.batch_order = [h.name for h in batch]
        place = {name: index for index, name in enumerate(play_plan.hosts_all)}
        in_inventory = sorted(self.order, key=lambda name: place.get(name, len(place)))
        # a host that failed in an earlier play stays in ansible_play_hosts_all but runs nothing
        self.context = PlayContext(play, in_inventory,  # type: ignore[misc]
                                   [name for name in in_inventory if name not in gone], roles,
                                   batch=None if single and in_inventory == self.order else self.batch_order)
        self.selected = play_plan.selected_ids()
        self.handlers = Handlers(play.handlers, lambda handler: Templar(
            self.variables.hostless_vars(self.context, hosts[0], handler)), self.callback.warning)
        self.role_runs = RoleRuns()
        self.runs = {h.name: HostRun(h) for h in hosts}
        self.batch_size = len(batch)
        force = forces_handlers(play, Templar(self.options.extra_vars | play.vars), self.options.force_handlers)
        blocks = play_blocks(play, force)
        setup = self._setup_block(play, self._start_at(blocks))
        programs = {h.name: self._program(self.runs[h.name], [*setup.get(h.name, []), *blocks]) for h in hosts}
        pending = {name: next(program, None) for name, program in programs.items()}
        self.free = is_free(play)
        if self.free and not run_free(self, programs, pending, Step):
            return False
        lockstep = Lockstep([*next(iter(setup.values()), []), *blocks])
        while not self.free:
            chosen = lockstep.next(pending, self.order)
            if chosen is None:
                break
            task, group = chosen
            steps = self._run_task_for(task, group)
            if self.include_sequence is not None:  # each include once, in the order the strategy loads them
                lockstep.insert(self.include_sequence, once=False)
            else:
                lockstep.insert(block for name in group for block in steps[name].blocks)
            for name in group:  # one of them marked failed is still where the task left it (in its block)
                steps[name].marked_after = name in self.marked_hosts
                pending[name] = self._advance(programs[name], steps[name])
            for name in (name for name in self.marked_hosts if name not in group):
                waiting = pending.get(name)
                if waiting is not None:
                    pending[name] = self._advance(programs[name], Step(waiting, marked=True))
            self.marked_hosts = []
            if self._too_many_failed(group):
                return False
        # PlaybookExecutor ends the playbook when as many hosts failed in this batch as it has
        # (hosts failed earlier are in the batch too), counted in the failed and unreachable
        # hosts, which a meta clear_host_errors empties
        return len(self.failed_hosts) + len(self.unreachable_hosts) - previously != len(batch)

    def _too_many_failed(self, left: list[str]) -> bool:
        """The linear strategy's ``max_fail_percentage`` check after a task: when more of the
        batch failed than allowed, every host left fails and the playbook stops."""
        from engine.flow.batches import too_many_failed

        failed = sum(run.failed for run in self.runs.values())
        if not too_many_failed(failed, self.batch_size, self.max_fail):
            return False
        for run in self.runs.values():
            if not run.ended:
                self._finish_host(run, True)
        self.callback.no_more_hosts()
        if sum(run.failed for run in self.runs.values()) >= len(left):  # "all hosts have failed and the
            # running result is not ok"
            self.callback.no_more_hosts()
        return True

    def _start_at(self, blocks: list[Block]) -> bool | None:
        """``--start-at-task`` for this batch (engine.run.start_at): the tasks before the match
        leave the selection. True: every host runs the "Gathering Facts" task (the match is the
        play's first task); None: nothing matched, no host runs anything; False: as the play says."""
        if self.start_at is None:
            return False
        from engine.run.start_at import start

        found = start(blocks, self._peekable, self.start_at)
        if found is None:
            self.selected = frozenset()
            return None
        passed, first = found
        self.selected = self.selected - {id(task) for task in passed}
        self.start_at = None
        return first

    def _peekable(self, task: Task) -> bool:
        """What the iterator returns: the selected tasks, and the ``noop`` of an empty section that
        ``force_handlers`` makes (made for the run, so in no plan; tagged always)."""
        if task.implicit and task.args.get("_raw_params") == "noop" and id(task) not in self.selected:
            from engine.flow.tags import should_run

            return should_run(task.tag_set(), self.options.selection())
        return self._selectable(task)

    def _setup_block(self, play: Play, every: bool | None = False) -> dict[str, list[Block]]:
        """The implicit "Gathering Facts" block for each host that gathers at the start of ``play``
        (none when tag selection leaves the task out, as ``filter_tagged_tasks`` does). ``every``:
        for each host, whether it gathers or not; None: for none (engine.run.start_at)."""
        from engine.flow.tags import TagEvaluator, TagTemplateError, should_run

        if every is None:
            return {}
        block = gather_block(play)
        task = block.block[0]
        assert isinstance(task, Task)
        try:
            if not should_run(TagEvaluator().evaluate(task), self.options.selection()):
                return {}
        except TagTemplateError:
            return {}  # the play's own tasks met the same error while planning
        self.selected |= {id(task)}
        templar = Templar(self.options.extra_vars | play.vars)
        wanted: dict[str, list[Block]] = {}
        for name in self.runs:
            try:
                if every or gathers(play, self.gathering, self.variables.state(name).gathered, templar):
                    wanted[name] = [block]
            except TemplateFailure:
                wanted[name] = [block]  # ansible fails the play on this; gathering is the nearer guess
        return wanted

    def _advance(self, program: Program, step: Step) -> Task | None:
        try:
            return program.send(step)
        except StopIteration:
            return None

    def _selectable(self, task: Task) -> bool:
        if not task.dynamic:
            return id(task) in self.selected
        from engine.flow.tags import should_run
        from engine.loading.model import UNTAGGED

        # evaluate_tags: a task without tags has the tag "untagged" (--tags untagged selects it)
        return should_run(task.tag_set() or UNTAGGED, self.options.selection())

    # -- one task on a group of hosts ---------------------------------------------------------
    def _run_task_for(self, task: Task, names: list[str]) -> dict[str, Step]:
        # a role that ran on a host already is left out there, unannounced (Role.has_run)
        steps: dict[str, Step] = {name: Step(task) for name in names if self.role_runs.skips(task, name)}
        names = [name for name in names if name not in steps]
        if not names:
            return steps
        is_meta = task.action in META
        if task.role is not None and id(task.role) not in self.warned_roles:
            self._warn_role_names(task.role)
        self._reserved_name_warnings(task, names[:1])
        # the strategy templates the name for the first host, except a meta task's
        title = self._title(task, None if is_meta else names[0])
        once = not is_meta and bool(names) and self._run_once(task, names[0])
        bypass = once or task.action in BYPASS_HOST_LOOP  # the first host runs it
        if not is_meta:
            self.callback.task_start(title, handler=False)
            if keyword(task, "throttle") is not None:  # queued for the first host: converted there
                check_throttle(task, Templar(self.variables.task_vars(
                    self.context, self.runs[names[0]].host, task, self.includes.params.get(id(task)))))
        # the other hosts' get_vars come after the banner, each as the strategy reaches the host: with
        # one fork, queueing a host waits for the one before, whose result it then prints
        per_host = not bypass and (not is_meta or task.args.get("_raw_params") in PER_HOST_META)
        for index, name in enumerate(names):
            if per_host and index + 1 < len(names):
                self._reserved_name_warnings(task, [names[index + 1]])
            if is_meta and task.args.get("_raw_params") not in PER_HOST_META and name != names[0]:
                steps[name] = Step(task)  # the linear strategy runs it for the first host only
                continue
            if is_meta and not task.implicit:  # _execute_meta announces the task for each host
                self.callback.task_start(title, handler=False)
            if bypass and name != names[0]:  # the strategy sends the task to the first host only
                steps[name] = Step(task)
                continue
            steps[name] = self._run_on_host(task, self.runs[name], title, once=once)
        self.include_sequence = None
        if len(names) > 1 and any(len(step.included) > 1 for step in steps.values()):
            ordered = blocks_in_include_order(self.pending_includes, {
                name: step.included for name, step in steps.items() if step.included})
            if ordered is not None:
                for name, blocks in ordered[0].items():
                    steps[name].blocks = blocks
                self.include_sequence = ordered[1]
        for name in self._announce_includes():  # a looped include of a missing file fails its hosts
            steps[name].outcome, steps[name].include_failed = Outcome("failed"), True
            self.callback.include_failed(title, name)
        if bypass:
            self._fail_batch_after_once(names[0], steps[names[0]])
        if is_meta and task.args.get("_raw_params") == "flush_handlers":
            flushed = self._flush_handlers([n for n in names if not self.runs[n].ended and not steps[n].meta_skipped])
            for name, outcome in flushed.items():  # the flush task failed: the block's rescue runs
                steps[name].outcome = outcome
        # a failure a rescue section will handle is a failed result too
        fatal = [n for n in names if steps[n].outcome and steps[n].outcome.status == "failed"
                 and not steps[n].outcome.ignored]
        unreachable = any(steps[n].outcome and steps[n].outcome.status == "unreachable" for n in names)
        if (fatal or unreachable) and self._any_errors_fatal(task) and not self.free:  # the free strategy warns
            # the linear strategy marks every other host still running failed (not counted in the
            # recap): iterator.mark_host_failed sends one inside a block on to its rescue or always
            # section, and _failed_hosts keeps it out of later plays
            self.marked_hosts = [n for n, run in self.runs.items() if not run.ended and n not in fatal]
            for name in self.marked_hosts:
                self.runs[name].failed = True
                self.failed_hosts.add(name)
            # the hosts left when the task started include those it found unreachable: failed too
            self.failed_hosts.update(n for n in names if steps[n].outcome and steps[n].outcome.status == "unreachable")
        return steps

    def _reserved_name_warnings(self, task: Task, names: list[str]) -> None:
        """The linear strategy's ``get_vars`` of each host in turn: its inventory variables' reserved
        names (each host's first time), then those of the task's and its blocks' vars."""
        if task.implicit and task.action in META and task.args.get("_raw_params") == "flush_handlers":
            names = [name for name in names if not self.handlers.nothing_notified(name)]  # the iterator skips it
        for name in (name for name in names if name not in self.warned_hosts):
            self.warned_hosts.add(name)
            layers = inventory_layers(self.variables, self.runs[name].host, os.path.abspath(self.context.play.basedir))
            for warning in [*vars_plugin_warnings(layers, self.variables.cache.load, self.vars_plugin_files),
                            *inventory_reserved_warnings(layers)]:
                self.callback.warning(warning)
        for warning in frame_var_warnings(task.chain) if names else ():
            self.callback.warning(warning)

    def _run_once(self, task: Task, first: str) -> bool:
        from engine.run.run_once import run_once

        if keyword(task, "run_once") is None:
            return False
        variables = self.variables.task_vars(self.context, self.runs[first].host, task,
                                             self.includes.params.get(id(task)))
        return run_once(task, Templar(variables))

    def _fail_batch_after_once(self, first: str, step: Step) -> None:
        """A run_once task that failed (not ignored) fails every host of the batch: the one that
        ran it as any failure does (its rescue still runs), the others uncounted."""
        if step.outcome is None or step.outcome.status != "failed" or step.outcome.ignored:
            return
        for run in self.runs.values():
            if run.host.name != first and not run.ended:
                self._finish_host(run, True)

    def _any_errors_fatal(self, task: Task) -> bool:
        value = keyword(task, "any_errors_fatal")
        return bool(value) if value is not None else False

    def _title(self, task: Task, host: str | None = None) -> str:
        """The banner name: templated with ``host``'s variables (the strategy's first), else the play's."""
        if task.name:
            name = str(task.name)
            if host is not None and host in self.runs and ("{{" in name or "{%" in name):
                from engine.run.task_names import templated_name

                spans = getattr(task.data, "value_spans", None) or {}
                name = templated_name(name, self._templar(task, self.runs[host].host),
                                      self.callback.warning, spans.get("name"))
            else:
                try:
                    name = str(Templar(self.options.extra_vars | self.context.play.vars).template(name))
                except TemplateFailure:
                    pass
            return f"{task.role.name} : {name}" if task.role and task.action not in kw.INCLUDE_ROLE else name
        # Task.get_name / IncludeRole.get_name for a task without a name
        if task.action in kw.INCLUDE_ROLE:
            return f"{task.action} : {task.args.get('name')}"
        return f"{task.role.name} : {task.action}" if task.role else task.action

    def _templar(self, task: Task, host: Host) -> Templar:
        """The templar of ``task`` on ``host``: its variables, the run's lookups."""
        params = self.includes.params.get(id(task))
        lookups = task_context(task.role.path if task.role is not None else None,
                               absolute(task.span.file) if task.span is not None else None,
                               self.context.play.basedir, task.action,
                               lambda text, why=None: self._shown(lambda: self.callback.warning(text, task, why)),
                               getattr(self.plan.playbook.plugins, "collections", None))
        variables = self.variables.task_vars(self.context, host, task, params)
        # the task executor sets it in the task's variables, over any of that name, before the loop
        variables["ansible_search_path"] = lookups.search_path_variable()
        return Templar(variables, lookups=lookups,
                       origin_of=lambda name, follow: self.variables.origin(self.context, host, task, name,
                                                                            params, follow),
                       deprecate=lambda message, conditional: self._shown(lambda: self.callback.deprecated(
                           message, condition_span(task, conditional) if conditional is not None else None)))

    def _hold_for_item(self, item: dict[str, Any]) -> None:
        """An include loop's item keeps what its run warned: shown with the item's line when it
        is one the callback shows (skipped or failed), never with an included one."""
        if self.held:
            item[HELD], self.held = self.held, []

    def _shown(self, show: Callable[[], None]) -> None:
        """Show a warning of a task's templates now, or hold it while an include task runs."""
        if self.held is not None:
            self.held.append(show)
        else:
            show()

    def _run_on_host(self, task: Task, run: HostRun, title: str, handler: bool = False, once: bool = False) -> Step:
        step = Step(task)
        host = run.host
        templar = self._templar(task, host)
        if task.action in META:
            step.meta_skipped = not self._meta(task, run, templar)
            if step.meta_skipped:  # reported as skipped, but the strategy counts no meta result
                result = {"skipped": True, "skip_reason": f"{task.args.get('_raw_params')} conditional evaluated "
                                                          "to False", "msg": task.args.get("_raw_params")}
                self.callback.result(title, host.name, task.action, result, Outcome("skipped"), False,
                                     counted=False)
            return step
        hidden = no_log(task, templar)
        delegation = self._delegation(task, templar)
        target = delegation[0] if delegation and not delegation[2] else None
        reachable = self._delegate_is_local(target) if target else self._is_local(host, task, templar)
        unreachable = None if reachable or task.action in CONTROLLER_ACTIONS else unreachable_result(
            # a delegated task connects to the delegated host, with that host's variables
            ssh_refusal(target, keyword(task, "connection"), Templar(self._delegated_host_vars(task, run, target)))
            if target else ssh_refusal(host.name, keyword(task, "connection"), templar), target or host.name)
        address = host.address
        if target and unreachable is None:  # known before the loop: its condition sees the delegated host's vars too
            delegated = self._delegated_host_vars(task, run, target)
            templar = templar.child({"ansible_delegated_vars": {target: delegated}})
            address = delegated_address(target, delegated, templar)
        connection = None if unreachable else connection_vars(
            address, templar.raw, delegated=bool(target),
            user=remote_user(delegated if target else templar.raw, written_user(task, templar),
                             self.plan.remote_user))
        # the strategy stores a result's facts (set_fact, include_vars, a module's) only when it did not fail
        self.kept = {name: self.variables.state(name).copy() for name in {
            *task_hosts(host.name, once, self.batch_order, self.unreachable_hosts), *([target] if target else [])}}
        # a connection that fails raises out of each item's run, before any condition on the result
        self.held = [] if task.action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE else None
        # what another loop's items display comes between the lines of the items before them
        items_shown = self.held is None and loop_of(task) is not None
        if items_shown:
            self.callback.hold_for_items()
        try:
            result = run_with_loop(task, templar, (lambda scope: dict(unreachable)) if unreachable else
                                   lambda scope: self._delegated_action(task, run, scope, step, delegation, once,
                                                                        connection or {}),
                                   self.callback.warning, connection, self._hold_for_item if self.held is not None
                                   else self.callback.item_finished if items_shown else None)
        except BaseException:
            self.callback.release_held()
            raise
        finally:
            held, self.held = self.held or [], None
            self.callback.stop_holding()
        apply_inventory_changes(self.plan.inventory.data, task, result, host.name, templar)
        step.outcome = judge(task, result, templar.child(connection or {}), any(run.rescue_depth))
        for show in held if step.outcome.status not in ("ok", "changed") else ():  # v2_runner_on_ok's early
            show()  # return for a TaskInclude: the warnings its worker captured are not shown
        for name, state in self.kept.items() if step.outcome.status == "failed" else ():
            self.variables.state(name).restore(state)
        if task.action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE and isinstance(result.get("results"), list):
            step.outcome.oks = sum(1 for r in result["results"] if not r.get("skipped") and not r.get("failed")) \
                - sum(1 for entry in self.included_items if entry[2] is not None)
        if step.outcome.rescued:  # the strategy hands the failure to the rescue section
            self.variables.state(host.name).nonpersistent.update(
                ansible_failed_task=failed_task(task, title, templar),
                ansible_failed_result=failure_kept(result, hidden, ignore_fields(task, templar)))
        register = task.data.get("register") if isinstance(task.data, Mapping) else None
        if isinstance(register, str):  # run_once registers the result on every host of the batch
            for name in task_hosts(host.name, once, self.batch_order,
                                   self.unreachable_hosts):
                self.variables.state(name).nonpersistent[register] = registered(result)
                self.variables.state(name).origins[SET].pop(register, None)  # a result carries no origin
        # the strategy reads the notifications and stores facts before it shows the result (after
        # a loop's items), and registers it after
        looped, notifying = "results" in result and loop_of(task) is not None, step.outcome.status == "changed"
        fact_warnings, register_warnings = stored_name_warnings(task, result, task.action in SET_FACT,
                                                                self.included_name_spans)
        self.included_name_spans = None
        if not looped:
            if notifying:
                self.handlers.notify_result(task, host.name, result, False, templar, self.callback.warning)
            for warning in fact_warnings:
                self.callback.warning(warning)
        self.role_runs.task_done(task, host.name, step.outcome.status)
        missing = result.pop(MISSING_INCLUDE, None)
        self.callback.result(title, host.name, task.action, result, step.outcome, looped,
                             is_include=task.action in kw.INCLUDE_TASKS | kw.INCLUDE_ROLE,
                             retry_name=plain_name(task, title), no_log=shown_no_log(hidden, result),
                             # a loop's own result names the task's delegate_to as written: each item templates it
                             delegated=written_delegate_to(task) if looped else target,
                             task=task, counted=missing is None, diff=templated_diff(task, templar))
        if notifying and looped:
            self.handlers.notify_result(task, host.name, result, True, templar, self.callback.warning)
        for warning in [*(fact_warnings if looped else []), *register_warnings]:
            self.callback.warning(warning)
        if step.outcome.status == "unreachable" and not step.outcome.ignored:  # the host leaves the play
            self.unreachable_hosts.add(host.name)
            self._finish_host(run, False)
        if missing is not None and step.outcome.status != "failed":
            # the linear strategy's load of the file fails: its error, then the include's own
            # result failed with the reason (counted, whatever ignore_errors says; no rescued)
            step.outcome = Outcome("failed")
            self.callback.result(title, host.name, task.action, {**result, "failed": True, "reason": missing},
                                 step.outcome, False, task=task)
        self.pending_includes += [(host.name, *entry) for entry in self.included_items]
        self.included_items.clear()
        return step

    def _announce_includes(self) -> list[str]:
        """The included files announced once the task ran on every host (engine.run.includes_announced)."""
        from engine.run.includes_announced import announce_includes

        self.includes.next_round()
        return announce_includes(self.pending_includes, self.callback, self.includes.warnings)

"""Phase 1 of a run with the bundled engine: the launch's plan (engine.flow.plan), and what in it the
engine cannot run, found before anything runs.

As in pyinfra, planning is separate from executing: :func:`make_run_plan` also finds every module
the bundled engine lacks and every keyword it does not implement. ``playbook-ls run --dry``
prints what will run where on it (engine.flow.host_plan) and stops there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.flow.plan import Plan, PlanError, RunOptions, every_task, make_plan
from engine.loading import keywords as kw
from engine.loading.model import Play, Playbook, Problem, Sourced
from engine.parsing.source import SourceCache
from engine.run.become import become_refusal
from engine.run.local import LOCAL_CONNECTIONS
from engine.span import Span

# Actions the executor itself carries out (ansible's action plugins that act on the run).
ENGINE_ACTIONS = kw._family("set_fact", "include_vars", "meta", "include_tasks", "include_role",
                            "import_tasks", "import_role", "validate_argument_spec", "add_host", "group_by",
                            "async_status")


def make_run_plan(options: RunOptions, cache: SourceCache | None = None,
                  has_module: Callable[[str], bool] | None = None, dynamic_inventory: bool = True,
                  starts_interpreters: bool = True) -> Plan:
    """:func:`engine.flow.plan.make_plan`, with the modules and filters the engine lacks (modules by
    ``has_module``), the keywords it does not implement and the arguments, meta actions, lookups
    and tests it declines (engine.run.declines). ``starts_interpreters``: the plan is for a run
    the user asked for, so the Python each local host would run modules with (a program its
    inventory names) is started to see that it works (a dry run starts nothing of the repository's)."""
    from engine.run.declines import declined_uses
    from engine.run.filter_check import json_query_declines, lacking_filters
    from engine.run.play_warnings import duplicate_key_warnings, load_reserved_warnings, load_time_files
    from engine.run.remote_url_declines import remote_url_declines

    cache = cache or SourceCache()
    loaded: set[str] = set()

    def load_warnings(play: Play) -> list[str]:
        """A play's playbook file is loaded whole before its plays, the files of its roles and
        imports after the variables that template their names."""
        return [*duplicate_key_warnings([play.span.file] if play.span else [], cache.load, loaded),
                *load_reserved_warnings(play, options.extra_vars),
                *duplicate_key_warnings(load_time_files(play), cache.load, loaded)]

    plan = make_plan(options, cache, dynamic_inventory=dynamic_inventory, load_warnings=load_warnings,
                     load_stop=_with_loop_stop if has_module is not None else None)
    from engine.loading.module_defaults import apply_module_defaults

    apply_module_defaults(every_task(plan.playbook))  # what is declined below reads the arguments with them
    if has_module is not None:
        stopped = _with_loop_stop(plan.playbook)
        if stopped is not None:  # ansible stops loading the playbook there, in these words
            raise stopped
        tasks = list(every_task(plan.playbook))
        plan.unknown_modules = [task for task in tasks if not _known(task.action, has_module)]
        plan.unknown_filters = lacking_filters(plan.playbook, cache)
        plan.unsupported = unsupported_keywords(plan.playbook) + declined_uses(
            plan.playbook, cache, plan.inventory.sources, options.extra_vars)
        plan.unsupported += json_query_declines(plan.playbook, cache)
        plan.unsupported += remote_url_declines(plan.playbook, tasks, plan.inventory.sources, options.extra_vars)
        if starts_interpreters:
            from engine.run.interpreter_discovery import broken_interpreters

            plan.unsupported += broken_interpreters(plan)
        from engine.config import AnsibleConfig
        from engine.run.callback_declines import declined_callbacks
        from engine.run.setting_declines import declined_settings
        from engine.run.vault_declines import declined_vault

        plan.unsupported += declined_settings()
        plan.unsupported += declined_vault(_controller_directories(plan), options.extra_vars)
        plugins = plan.playbook.plugins
        plan.unsupported += declined_callbacks([*AnsibleConfig.load().callback_plugins,
                                                *(plugins.callback_paths if plugins is not None else [])])
        if options.verbosity:
            # ansible's verbose text (the config file, task paths, temporary sources, module
            # invocations, connection details) is not the engine's
            plan.unsupported.append((f"-{'v' * options.verbosity} (ansible-playbook's verbose output)", None))
    return plan


def _with_loop_stop(book: Playbook, before: Span | None = None) -> PlanError | None:
    """A ``with_`` loop whose lookup ansible cannot find, where it stops loading (engine.run.lookup_loops)."""
    from engine.loading.frames import EXIT_PARSER_ERROR
    from engine.run.lookup_loops import load_failure

    stopped = load_failure(book, before)
    return None if stopped is None else PlanError(stopped[0], EXIT_PARSER_ERROR, ansible_text=stopped[1])


# Keywords the bundled engine does not implement: running as if they were absent would be wrong
# (another host, another user, a batch size...), so a run refuses them up front.
UNSUPPORTED_KEYWORDS = frozenset({
    "become_method", "become_flags", "become_exe", "debugger", "strategy",
})
# values of those keywords that change nothing the engine does: it never starts a debugger, its
# strategy is the linear one, and become goes through sudo (engine.run.become)
HARMLESS_VALUES: dict[str, tuple[object, ...]] = {
    "debugger": ("never",),
    "become_method": ("sudo", "ansible.builtin.sudo", "ansible.legacy.sudo"),
    "strategy": ("linear", "ansible.builtin.linear", "ansible.legacy.linear",
                 "free", "ansible.builtin.free", "ansible.legacy.free"),  # engine.run.free
}


def _unsupported(keyword: str, value: object) -> bool:
    return keyword in UNSUPPORTED_KEYWORDS and value not in HARMLESS_VALUES.get(keyword, ())


def unsupported_keywords(book: Playbook) -> list[tuple[str, Span | None]]:
    """Each (keyword, where) the engine would have to ignore, once per place it is written: on a
    play, block, role entry or task (inherited or not), or ``connection`` other than local."""
    found: dict[tuple[str, str], tuple[str, Span | None]] = {}

    def note(keyword: str, span: Span | None, owner: object) -> None:
        found.setdefault((keyword, span.human() if span else f"#{id(owner)}"), (keyword, span))

    from engine.run.free import SUPPORTED, default_strategy

    for play in book.plays:
        data = play.data if isinstance(play.data, Mapping) else {}
        for keyword, value in data.items():
            if _unsupported(keyword, value):
                # a strategy is named in the message: "strategy: host_pinned"
                named = f"{keyword}: {value}" if keyword == "strategy" and isinstance(value, str) else keyword
                note(named, play.frame.keyword_spans.get(keyword) or play.span, play)
        if not data.get("strategy") and default_strategy() not in SUPPORTED:
            note(f"strategy: {default_strategy()} (DEFAULT_STRATEGY)", play.span, play)
    for task in every_task(book):
        inherited = set()
        for frame in task.chain:
            inherited |= set(frame.keywords)
            for keyword, value in frame.keywords.items():
                if _unsupported(keyword, value) or (keyword == "connection" and value not in LOCAL_CONNECTIONS):
                    note(keyword, frame.keyword_spans.get(keyword) or frame.span, frame)
        data = task.data if isinstance(task.data, Mapping) else {}
        for keyword, value in data.items():  # task-only keywords (until, retries, async...) are not inherited
            if keyword not in inherited and _unsupported(keyword, value):
                note(keyword, task.span, task)
        become = task.effective("become")
        user = task.effective("become_user")
        if isinstance(become, Sourced) and become_refusal(become.value, getattr(user, "value", None)):
            note("become", become.frame.keyword_spans.get("become") or become.frame.span, become.frame)
    return list(found.values())


def _controller_directories(plan: Plan) -> list[str]:
    """Where a run reads controller files from: each playbook's directory, each role's, each
    inventory source's (its own, or the one a file source is in)."""
    import os

    found = [os.path.dirname(os.path.abspath(plan.playbook.path))]
    found += [os.path.dirname(play.span.file) for play in plan.playbook.plays if play.span is not None]
    found += [task.role.path for task in every_task(plan.playbook) if task.role is not None and task.role.path]
    for source in plan.inventory.sources:
        if os.path.isdir(source) or os.path.isfile(source):  # not a host list ("a,b,")
            found.append(source if os.path.isdir(source) else os.path.dirname(os.path.abspath(source)))
    return found


def _known(action: str, has_module: Callable[[str], bool]) -> bool:
    return action in ENGINE_ACTIONS or has_module(action)



def unknown_module_problems(plan: Plan) -> list[Problem]:
    """What stops a run with the bundled engine: modules and filters it lacks, keywords it does
    not implement."""
    from engine.run.modules import missing_module_message

    hint = "Run with --engine ansible to use ansible-playbook."
    return [Problem("unknown-module", missing_module_message(task.action), task.span, hint)
            for task in plan.unknown_modules] + [
        Problem("unknown-filter", f"playbook-ls's engine has no filter '{name}'", span, hint)
        for name, span in plan.unknown_filters] + [
        Problem("unsupported-keyword", f"playbook-ls's engine does not implement '{keyword}'", span, hint)
        for keyword, span in plan.unsupported]

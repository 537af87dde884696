"""Task files brought in by ``import_tasks`` and ``include_tasks``: found as ansible finds them,
loaded in place (an import) or as the include's children (an include, looped over a static loop's
items), and the includes whose names need the whole play, followed once it is loaded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.actions import apply_problem
from engine.loading.context import Ctx
from engine.loading.frames import EXIT_CRASH, EXIT_ERROR, FrameLoading
from engine.loading.model import (
    Block,
    Frame,
    Play,
    Task,
)
from engine.loading.paths import path_dwim, path_dwim_relative
from engine.records import NamedTuple
from engine.span import Span, YMap
from engine.templating.load_time import (
    Unresolved,
    is_template,
    render,
    with_vars,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# import_tasks within import_tasks: ansible-core 2.19 lists a chain of 138 from a play's tasks and
# dies of Python's RecursionError (exit 250) on 139 and more, with the default recursion limit
MAX_IMPORT_DEPTH = 139
# what following an include named from values known before the run may not find
UNFOUND = frozenset({"unresolved-role", "unresolved-include", "unresolved-import"})


class PendingInclude(NamedTuple):
    """An include whose name needs variables the loader does not have yet."""

    task: Task
    ctx: Ctx
    span: Span | None
    raw: tuple[Any, ...]
    """The templates to render: the file name, or the role name and its ``*_from`` names."""
    follow: Callable[..., None]
    """Loads what the include loads, given the task, ctx, span and the rendered names."""


MAX_LOOP_COPIES = 20  # items of a looped include loaded one by one; a longer loop is loaded once


def _loop_var(ds: Any) -> str | None:
    """The loop variable of a task with a loop (``loop``, ``with_*``), else None."""
    if not isinstance(ds, Mapping) or not any(k == "loop" or str(k).startswith("with_") for k in ds):
        return None
    control = ds.get("loop_control")
    loop_var = control.get("loop_var", "item") if isinstance(control, Mapping) else "item"
    return loop_var if isinstance(loop_var, str) else None


def static_loop(ds: Any) -> tuple[str, list[Any]] | None:
    """The loop variable and items of a task whose ``loop`` (or ``with_items``/``with_list``) is a
    list written out, without templates; None otherwise (a loop only the run knows)."""
    if not isinstance(ds, Mapping):
        return None
    for key in ("loop", "with_list", "with_items"):
        if key in ds:
            items = ds[key]
            break
    else:
        return None
    if not isinstance(items, list) or not items or len(items) > MAX_LOOP_COPIES or any(
            is_template(item) or isinstance(item, (Mapping, list)) and "{{" in repr(item) for item in items):
        return None
    if key == "with_items":  # flattened one level
        items = [inner for item in items for inner in (item if isinstance(item, list) else [item])]
    loop_var = _loop_var(ds)
    return (loop_var, list(items)) if loop_var is not None and not is_template(loop_var) else None


class ImportLoading(FrameLoading):
    """Imports and includes of task files, and includes deferred to the end of their play. The task
    lists they load are :class:`~engine.loading.tasks.TaskLoading`'s (``load_blocks``)."""

    def find_task_file(self, target: str, ctx: Ctx) -> str:
        """The relative-path search of ``load_list_of_tasks`` for ``import_tasks`` / ``include_tasks``."""
        subdir = "handlers" if ctx.handler else "tasks"
        cumulative: str | None = None
        for include in reversed(ctx.includes):
            parent_dir = os.path.dirname(include)
            if cumulative is None:
                cumulative = parent_dir
            elif not os.path.isabs(cumulative):
                cumulative = os.path.join(parent_dir, cumulative)
            if ctx.role is not None and ctx.role.path:
                candidate = path_dwim_relative(ctx.basedir, os.path.join(ctx.role.path, subdir, cumulative), subdir,
                                               target)
            else:
                candidate = path_dwim_relative(ctx.basedir, ctx.basedir, cumulative, target)
            if paths.exists(candidate):
                return candidate
        if ctx.role is not None and ctx.role.path:
            return path_dwim_relative(ctx.basedir, ctx.role.path, subdir, target)
        return path_dwim(ctx.basedir, target)

    def _include_target(self, ds: YMap, args: dict[str, Any], action: str) -> str | None:
        """TaskInclude.check_options: the options an include or import of tasks takes (the others
        named in the order of ansible's set difference), then its file; its AnsibleParserError
        worded as ansible-playbook shows it (chain)."""
        if bad := list(frozenset(args).difference(("file", "_raw_params", "apply"))):
            message = f"Invalid options for {action}: {','.join(bad)}"
            self.problem("invalid-task", message, ds.span, chain=((message, ds.span, None),))
            return None
        raw = args.get("_raw_params", args.get("file"))
        if not isinstance(raw, str) or not raw:
            message = f"No file specified for {action}"
            self.problem("invalid-task", message, ds.span, f"Give the file to {action}, e.g. '{action}: setup.yml'.",
                         chain=((message, ds.span, None),))
            return None
        if message := apply_problem(args, action, kw.INCLUDE_TASKS):
            self.problem("invalid-task", message, ds.span,
                         "'apply' only works with include_tasks; tags and when on an import already apply to "
                         "the imported tasks." if message.startswith("Invalid") else "Write 'apply:' as a mapping.",
                         chain=((message, ds.span, None),))
            return None
        return raw

    def _import_tasks(self, ds: YMap, args: dict[str, Any], action: str, ctx: Ctx) -> list[Block | Task]:
        raw = self._include_target(ds, args, action)
        if raw is None:
            return []
        if "loop" in ds or any(str(k).startswith("with_") for k in ds):
            message = "You cannot use loops on 'import_tasks' statements. You should use 'include_tasks' instead."
            self.problem("invalid-task", message, ds.span, chain=((message, ds.span, None),))
            return []
        span = ds.value_spans.get(action) if isinstance(ds, YMap) else None
        target = self.render_static(raw, with_vars(ctx.variables, ds.get("vars")), span)
        if not isinstance(target, str):
            return []
        path = self.find_task_file(target, ctx)
        if not paths.isfile(path):
            self.problem("unresolved-import", f"Could not find or access '{target}'", span,
                         f"Looked for {path}; check the file name and its location.", exit_code=EXIT_ERROR)
            return []
        if paths.realpath(path) in ctx.files:
            self.problem("import-cycle", f"import cycle: {target} is already being imported", span,
                         "Remove the import that closes the cycle.", exit_code=EXIT_CRASH)
            return []
        if len(ctx.files) >= MAX_IMPORT_DEPTH:
            self.problem("import-depth", f"import_tasks nested more than {MAX_IMPORT_DEPTH} levels deep: "
                         "ansible-playbook stops here with a RecursionError (exit 250)", span,
                         "Import the files from fewer levels: a chain of imports can usually be a list.",
                         exit_code=EXIT_CRASH)
            return []
        frame = self.frame("import_tasks", f"import_tasks {target}", ds, ctx.variables)
        data = self.load_yaml(path, span)
        if not data:  # load_list_of_tasks warns and goes on (a run's display shows it once)
            self.load_warnings.append((ctx.dynamic, f"file {path} is empty and had no tasks to include"))
            return []
        if not isinstance(data, list):
            self.problem("invalid-structure", "included task files must contain a list of tasks",
                         getattr(data, "span", None), "Make the file a YAML list of tasks.")
            return []
        inner = ctx.push(frame, includes=(*ctx.includes, target), files=ctx.files + (paths.realpath(path),))
        blocks = self.load_blocks(data, inner, getattr(data, "span", None))
        if ctx.handler:  # ansible flattens imported handler blocks
            return [item for block in blocks for item in block.block]
        return list(blocks)

    def _include_tasks(self, task: Task, ds: YMap, ctx: Ctx) -> None:
        raw = self._include_target(ds, task.args, task.action)
        if raw is None:
            return
        task.include_target = raw
        apply = task.args.get("apply")
        task.apply = apply if isinstance(apply, dict) else None  # a YMap: keeps the positions
        if not self.follow_dynamic:
            return
        span = ds.value_spans.get(task.action) if isinstance(ds, YMap) else task.span
        looped = static_loop(ds)
        if looped is not None:  # the file once per item, each run with its item (a list written out)
            loop_var, items = looped
            task.children = []
            for item in items:
                frame = Frame("loop_item", f"{loop_var} {item!r} of {task.action}", task.span)
                frame.keywords["vars"] = {loop_var: item}
                item_ctx = ctx.push(frame)
                try:
                    target = render(raw, item_ctx.variables)
                except Unresolved:
                    self.defer_include(task, ctx, span, (raw,), self._follow_include_tasks)
                    task.children = []
                    return
                self._follow_include_tasks(task, item_ctx, span, str(target), append=True)
            return
        try:
            if _fact_read(raw, ctx.variables) is not None:
                raise Unresolved("a fact")  # each host's own, not a default rendered once here
            target = render(raw, ctx.variables)
        except Unresolved:  # known once the play is loaded (another role's defaults), or at run time
            self.defer_include(task, ctx, span, (raw,), self._follow_include_tasks)
            return
        before = len(self.problems)
        self._follow_include_tasks(task, ctx, span, str(target))
        if is_template(raw):
            self._unfound_as_dynamic(task, raw, str(target), span, before)

    def _follow_include_tasks(self, task: Task, ctx: Ctx, span: Span | None, target: str,
                              append: bool = False) -> None:
        """Load what the include of ``target`` runs into the task's children (after those
        already there, with ``append``: the next item of a loop)."""
        raw = task.include_target
        path = self.find_task_file(str(target), ctx)
        if not paths.isfile(path):
            self.problem("unresolved-include", f"{task.action}: could not find '{target}'", span,
                         f"Looked for {path}; ansible fails when the task runs.", fatal=False)
            return
        if paths.realpath(path) in ctx.files or len(ctx.files) >= MAX_IMPORT_DEPTH:
            return
        task.include_resolved = path
        task.include_vars = ctx.variables
        data = self.sources.load(path).data
        if not isinstance(data, list):
            return
        # Included tasks inherit from the include's parent, not from the include itself.
        apply_frame = self.frame("apply", f"apply of {task.action} {raw}", task.apply, ctx.variables) \
            if task.apply else None
        inner = ctx.push(apply_frame, dynamic=True, includes=(*ctx.includes, str(target)),
                         files=ctx.files + (paths.realpath(path),))
        problems_before = len(self.problems)
        blocks = self.load_blocks(data, inner, getattr(data, "span", None))
        task.children = [*task.children, *blocks] if append else blocks
        for found in self.problems[problems_before:]:
            found.fatal = False  # ansible only meets these at run time

    def defer_include(self, task: Task, ctx: Ctx, span: Span | None, raw: tuple[Any, ...],
                      follow: Callable[..., None]) -> None:
        """Template an include's names once the play is loaded, then ``follow`` it."""
        self._pending_includes.append(PendingInclude(task, ctx, span, raw, follow))

    def _follow_pending_includes(self, play: Play) -> None:
        """Follow the includes whose names the variables in scope while loading could not
        template, now that the play is loaded: ansible templates them when the task runs, with
        what the task sees then (every role's defaults, the play's and the roles' vars...). A
        name that still cannot be templated without a host or the run is a dynamic include."""
        if not self._pending_includes:
            return  # nothing to template: Jinja is not even imported
        from engine.templating.pure_lookups import PureLookups
        from engine.templating.templar import Templar, TemplateFailure, too_large_reason
        from engine.variables.sources import hostless_variables, tasks_with_includers

        while self._pending_includes:
            pending, self._pending_includes = self._pending_includes, []
            includers = {id(task): outer for task, outer in tasks_with_includers(play)}
            for include in pending:
                task = include.task
                try:
                    variables = hostless_variables(play, task, includers.get(id(task), []), self.extra_vars,
                                                   self.sources, self.with_magic({}, play.basedir))
                    templar = Templar(variables, PureLookups(), bounded=True)
                    fact = next((found for raw in include.raw if (found := _fact_read(raw, variables))), None)
                    if fact is not None:  # a default() would give one name for every host
                        raise TemplateFailure(f"'{fact}' is a fact: each host's (cached or gathered) may name "
                                              "another file")
                    names = [templar.template(raw) for raw in include.raw]
                except (TemplateFailure, RecursionError) as exc:
                    too_large = too_large_reason(exc)
                    reason = str(exc) if isinstance(exc, TemplateFailure) else "a value refers to itself"
                    loop_var = _loop_var(task.data)
                    undefined = re.fullmatch(r"'(\w+)' is undefined", reason)
                    if loop_var is not None and f"'{loop_var}' is undefined" in reason:
                        reason = f"'{loop_var}' is the loop's item, known when the task runs"
                    elif undefined:  # not a claim that the run fails: a host or a task may well define it
                        reason = (f"'{undefined.group(1)}' has no value before the run; the inventory, a fact "
                                  "or an earlier task may give it one")
                    self.problem("dynamic-include", f"{task.action} {include.raw[0]!r} " + (
                        f"is {too_large}" if too_large else
                        f"depends on values known only on a host or at run time ({reason})"), include.span,
                        "Its tasks are not analysed; " + ("simplify the template, or " if too_large else "") +
                        "use a static name to have them checked.", fatal=False)
                    continue
                before = len(self.problems)
                include.follow(task, include.ctx, include.span, *map(str, names))
                self._unfound_as_dynamic(task, include.raw[0], str(names[0]), include.span, before)

    def _unfound_as_dynamic(self, task: Task, raw: Any, name: str, span: Span | None, before: int) -> None:
        """A templated include name that, with the values known before the run, names nothing
        here: those values may be overridden where the playbook runs (the inventory or extra
        vars over a role's defaults), so say so (PLS116) instead of claiming it is missing."""
        if not any(p.code in UNFOUND for p in self.problems[before:]):
            return
        self.problems[before:] = [p for p in self.problems[before:] if p.code not in UNFOUND]
        self.problem("dynamic-include", f"{task.action} {raw!r} gives {name!r} with the values known before the "
                     "run (role defaults, play vars), which is not found here; the inventory or extra vars may "
                     "give another", span, "Its tasks are not analysed; use a static name to have them checked.",
                     fatal=False)


def _fact_read(raw: Any, variables: Mapping[str, Any]) -> str | None:
    """A fact an include's templated name reads that the values known while loading do not hold
    (None: none): the name is each host's, from its cached or gathered facts, even behind a
    ``default()`` that would render one name for all of them here."""
    from engine.templating.templar import is_template
    from engine.templating.variable_uses import names_read
    from engine.variables.raw import looks_like_fact

    if not is_template(raw):
        return None
    read = names_read(str(raw), False)
    # ansible_facts is each host's whatever the hostless values hold for it (the {} of no facts gathered)
    return next((name for name in sorted(read or ()) if looks_like_fact(name)
                 and (name == "ansible_facts" or name not in variables)), None)

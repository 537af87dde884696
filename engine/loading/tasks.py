"""Blocks and tasks: ansible's ``load_list_of_blocks`` and ``load_list_of_tasks``, each entry of a
task list checked and made a :class:`~engine.loading.model.Task` (or a block, or what an import
brings in, through the import and role loaders).
"""

from __future__ import annotations

from engine.loading import keywords as kw
from engine.loading.actions import ActionError, ParsedAction, parse_action
from engine.loading.context import Ctx, task_collections
from engine.loading.frames import EXIT_ERROR, VARIABLE_NAME_HELP, FrameLoading, collection_list, invalid_variable_name
from engine.loading.model import (
    Block,
    Frame,
    Task,
)
from engine.plugins.collection_search import ensure_default
from engine.span import Span, YMap, YSeq
from engine.templating.load_time import is_template

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Task-list entries one playbook may expand to. Real repositories stay far below (15,000 tasks in
# all is a large one); an editor buffer can multiply two huge files into millions, which would
# keep the resolution busy for minutes.
MAX_ENTRIES = 250_000
_KEPT_ACTIONS = 50_000
"""Task mappings whose parsed action a source cache keeps (a large repository has ~10,000)."""


def _task_class(action: str, handler: bool) -> str:
    if action in kw.INCLUDE_ROLE:
        return "IncludeRole"
    if action in kw.INCLUDE_TASKS:
        return "HandlerTaskInclude" if handler else "TaskInclude"
    return "Handler" if handler else "Task"


# the string fields of a Task without a validator of their own, in the order Base.validate checks them
_STRING_FIELDS = ("delegate_to", "name", "connection", "remote_user", "debugger", "become_method", "become_user",
                  "become_flags", "become_exe")


class TooLarge(Exception):
    """The playbook expands to more than ``limit`` (MAX_ENTRIES) task-list entries."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class TaskLoading(FrameLoading):
    """Task lists, blocks and tasks. Imports and includes of task files are
    :class:`~engine.loading.imports.ImportLoading`'s (``_import_tasks``, ``_include_tasks``), roles the
    :class:`~engine.loading.roles.RoleLoader`'s."""

    def _is_task_list(self, ds: Any, span: Span | None) -> bool:
        """True for a list; reports anything else but ``None`` (an empty section)."""
        if ds is not None and not isinstance(ds, list):
            self.problem("invalid-structure", "a task list must be a list of tasks", getattr(ds, "span", span),
                         "Make it a YAML list: each task starts with '- '.")
        return isinstance(ds, list)

    def load_blocks(self, ds: Any, ctx: Ctx, span: Span | None) -> list[Block]:
        """``load_list_of_blocks``: consecutive bare tasks share one implicit block."""
        if not self._is_task_list(ds, span):
            return []
        blocks: list[Block] = []
        pending: list[Any] = []
        pending_spans: list[Span | None] = []

        def flush() -> None:
            if pending:
                items = YSeq()
                items.extend(pending)
                items.item_spans = list(pending_spans)  # type: ignore[arg-type]
                block = Block(Frame("block", "implicit block", pending_spans[0]), implicit=True)
                block.block = self.load_tasks(items, ctx, span)
                blocks.append(block)
                pending.clear()
                pending_spans.clear()

        for index, item in enumerate(ds):
            item_span = ds.item_spans[index] if isinstance(ds, YSeq) else span
            if isinstance(item, dict) and "block" in item:
                flush()
                blocks.append(self.load_block(item, ctx))
            elif item is not None:
                pending.append(item)
                pending_spans.append(item_span)
        flush()
        if ctx.handler:
            for block in blocks:
                for task in block.tasks():
                    task.handler_block = block
        return blocks

    def load_block(self, ds: YMap, ctx: Ctx) -> Block:
        self._check_keys(ds, kw.BLOCK_KEYWORDS, "Block")
        label = f'block "{ds["name"]}"' if ds.get("name") else "block"
        frame = self.frame("block", label, ds, ctx.variables)
        if is_template(ds.get("name")):
            frame.templated_name = (ds["name"], ds.value_spans.get("name"))
        inner = ctx.push(frame)
        if "collections" in ds:
            inner = inner._replace(collections=ensure_default(collection_list(ds["collections"])))
        block = Block(frame)
        for section in ("block", "rescue", "always"):
            setattr(block, section, self.load_tasks(ds.get(section), inner, ds.value_spans.get(section)))
        return block

    def load_tasks(self, ds: Any, ctx: Ctx, span: Span | None) -> list[Block | Task]:
        """``load_list_of_tasks``: imports are expanded in place, includes stay single tasks."""
        if not self._is_task_list(ds, span):
            return []
        result: list[Block | Task] = []
        self.entries += len(ds)
        if self.entries > MAX_ENTRIES:
            raise TooLarge(MAX_ENTRIES)
        for index, item in enumerate(ds):
            item_span = ds.item_spans[index] if isinstance(ds, YSeq) and index < len(ds.item_spans) else span
            if not isinstance(item, dict):
                self.problem("invalid-structure", "a task must be a mapping", item_span,
                             "Write the task as 'name: ...' plus a module, e.g. 'ansible.builtin.debug: msg=hi'.")
                continue
            if "block" in item:
                if ctx.handler:  # a block in a handler block: load_list_of_tasks(use_handlers=True)
                    self.problem("invalid-structure", "Using a block as a handler is not supported.",
                                 getattr(item, "span", item_span), "Put the handlers of a block directly in it.")
                    continue
                result.append(self.load_block(item, ctx))
                continue
            try:
                parsed = self._parsed_action(item)
            except ActionError as exc:
                # ModuleArgsParser's AnsibleParserError, as ansible-playbook shows it (chain); a key
                # that looks like a misspelt keyword is reported as such besides
                where = getattr(item, "span", item_span)
                chain = ((str(exc), where, None),)
                if not self._misspelt_keywords(item, ctx, chain):
                    self.problem("invalid-task", str(exc), where, exc.hint or "Give the task exactly one module, "
                                 "e.g. 'ansible.builtin.debug: msg=hi'.", chain=chain)
                continue
            action = parsed.action
            # only a module key is looked up while loading, not action:; the removed include is
            # reported once, by task(), with what to write instead
            if parsed.key == action and action not in kw.REMOVED_ACTIONS:
                self._module_keys.append((action, task_collections(item, ctx), getattr(item, "span", item_span),
                                          not ctx.dynamic))
            if action in kw.IMPORT_TASKS:
                result += self._import_tasks(item, parsed.args, action, ctx)
            elif action in kw.IMPORT_ROLE or action in kw.INCLUDE_ROLE:
                result += self.roles.from_task(item, parsed.args, action, ctx)
            else:
                task = self.task(item, action, parsed.args, ctx)
                if parsed.key == "local_action":
                    task.frame.keywords["delegate_to"] = parsed.delegate_to
                result.append(task)
        return result

    def _parsed_action(self, item: dict[str, Any]) -> ParsedAction:
        """``parse_action(item)``, parsed once per mapping of the source cache (a role used by
        a hundred plays loads its task file's mappings a hundred times); its arguments a copy."""
        known = self.sources.parsed_actions.get(id(item))
        if known is None or known[0] is not item:
            if len(self.sources.parsed_actions) >= _KEPT_ACTIONS:
                self.sources.parsed_actions.clear()
            known = self.sources.parsed_actions[id(item)] = (item, parse_action(item))
        parsed = known[1]
        return ParsedAction(parsed.action, dict(parsed.args), parsed.key, parsed.delegate_to)

    def _misspelt_keywords(self, ds: Any, ctx: Ctx, chain: tuple[tuple[str, Any, None], ...] = ()) -> bool:
        """Report keys that ansible took for a second module but that look like a misspelt
        keyword ("conflicting action statements: debug, tag", ansible's ``chain``). True if there
        were any."""
        allowed = kw.HANDLER_KEYWORDS if ctx.handler else kw.TASK_KEYWORDS
        found = False
        for key in ds:
            if isinstance(key, str) and key not in allowed and "." not in key:
                keyword = kw.closest_keyword(key, allowed)
                if keyword:
                    found = True
                    self.problem("unknown-keyword",
                                 f"'{key}' is not a valid attribute for a Task; did you mean '{keyword}'?",
                                 getattr(ds, "key_spans", {}).get(key), "ansible-playbook takes it for a second "
                                 "module and stops with 'conflicting action statements'.", chain=chain)
        return found

    def task(self, ds: YMap, action: str, args: dict[str, Any], ctx: Ctx) -> Task:
        allowed = kw.HANDLER_KEYWORDS if ctx.handler else kw.TASK_KEYWORDS
        for key in ds:
            if isinstance(key, str) and key not in allowed and key != action and not key.startswith("with_") \
                    and key != "local_action":
                self.problem("unknown-keyword", f"'{key}' is not a valid attribute for a Task"
                             f"{kw.did_you_mean(key, allowed)}", ds.key_spans.get(key), fatal=False)
        if action in kw.REMOVED_ACTIONS:
            message, span = self._removed(action, ds, ctx), getattr(ds, "span", None)
            self.problem("invalid-task", message, span,
                         "Write 'include_tasks:' (loaded at run time) or 'import_tasks:' (loaded now).",
                         exit_code=EXIT_ERROR, chain=((message, span, None),))
        elif action in kw.INCLUDE_TASKS or action in kw.INCLUDE_ROLE:
            self._check_include_keywords(ds, action, ctx)
        self._check_register(ds)
        self._check_loops(ds)
        self._check_field_types(ds)
        name = ds.get("name")
        label = f'task "{name}"' if name else f"task {action}"
        frame = self.frame("task", label, ds, ctx.variables, owner=_task_class(action, ctx.handler))
        task = Task(name=name, action=action, args=args, span=getattr(ds, "span", None), chain=[*ctx.chain, frame],
                    role=ctx.role, handler=ctx.handler, dynamic=ctx.dynamic, data=ds)
        task.collections = task_collections(ds, ctx)
        if action in kw.INCLUDE_TASKS:
            self._include_tasks(task, ds, ctx)
        return task

    def _check_field_types(self, ds: YMap) -> None:
        """``Task._load_loop_control`` and ``Base.validate``: a ``loop_control`` that is no mapping,
        or a list or mapping where the task takes a string, stops the load (exit 4)."""
        spans = getattr(ds, "value_spans", {})
        control = ds.get("loop_control")
        if control is not None and not isinstance(control, dict):
            message = ("the `loop_control` value must be specified as a dictionary and cannot be a variable "
                       "itself (though it can contain variables)")
            span = spans.get("loop_control", getattr(ds, "span", None))
            self.problem("invalid-task", message, span, "Write 'loop_control:' as a mapping.",
                         chain=((message, span, None),))
            return
        for key in _STRING_FIELDS:
            value = ds.get(key)
            if isinstance(value, (list, dict)):
                tagged = "_AnsibleTaggedList" if isinstance(value, list) else "_AnsibleTaggedDict"
                message = (f"The field '{key}' is supposed to be a string type, however the incoming data structure "
                           f"is a <class 'ansible.module_utils._internal._datatag.{tagged}'>")
                span = getattr(ds, "span", None)
                self.problem("invalid-task", message, span, f"Write '{key}:' as a string.",
                             chain=((message, span, None),))
                return

    def _check_loops(self, ds: YMap) -> None:
        """``Task._preprocess_with_loop``: a ``with_*`` after another loop, or without a value, stops
        the load (an AnsibleError: exit 1), at the task."""
        looped = False
        for key, value in ds.items():
            if key == "loop":
                looped = looped or value is not None
            elif isinstance(key, str) and key.startswith("with_"):
                message = f"duplicate loop in task: {key.removeprefix('with_')}" if looped else \
                    f"you must specify a value when using {key}" if value is None else None
                if message:
                    span = getattr(ds, "span", None)
                    self.problem("invalid-task", message, span, "Give the task one loop, with its items.",
                                 exit_code=EXIT_ERROR, chain=((message, span, None),))
                    return
                looped = True

    def _check_register(self, ds: YMap) -> None:
        """``Task._validate_register``: a ``register`` that is no variable name stops the load."""
        register = ds.get("register")
        invalid = None if register is None else invalid_variable_name(register)
        if invalid:
            span = getattr(ds, "value_spans", {}).get("register", getattr(ds, "span", None))
            self.problem("invalid-task", f"Invalid 'register' specified: {invalid}", span,
                         "Register the result under a variable name: a letter or underscore, then letters, "
                         "numbers and underscores.",
                         chain=(("Invalid 'register' specified.", span, None), (invalid, span, VARIABLE_NAME_HELP)))

    def _removed(self, action: str, ds: YMap, ctx: Ctx) -> str:
        """ModuleArgsParser's error for an action ansible-core removed: its routing's tombstone, as the
        plugin loader words it, when ansible-core is found; else what it says of ``include``."""
        from engine.plugins.names import PluginRemoved

        try:
            if self.plugins is not None:
                self.plugins.resolves(action, task_collections(ds, ctx))
        except PluginRemoved as removed:
            return str(removed)
        return f"The '{action}' action plugin has been removed. Use include_tasks or import_tasks instead."

    def _check_include_keywords(self, ds: YMap, action: str, ctx: Ctx) -> None:
        """``TaskInclude.preprocess_data``: a dynamic include takes only a few keywords."""
        if action in kw.INCLUDE_ROLE:
            owner, valid = "IncludeRole", kw.VALID_INCLUDE_KEYWORDS
        elif ctx.handler:
            owner, valid = "HandlerTaskInclude", kw.VALID_INCLUDE_KEYWORDS | {"listen"}
        else:
            owner, valid = "TaskInclude", kw.VALID_INCLUDE_KEYWORDS
        for key in ds:
            if key == action or not isinstance(key, str) or key.startswith("with_") or key in valid:
                continue
            if key == "local_action":
                key = "delegate_to"  # what local_action becomes
            message, span = f"'{key}' is not a valid attribute for a {owner}", getattr(ds, "span", None)
            self.problem("invalid-task", message, span,
                         f"{action} takes only {', '.join(sorted(valid - {'action', 'args', 'loop_with'}))}; "
                         "put the other keywords on the included tasks or in 'apply:'.",
                         chain=((message, span, None),))  # Base._validate_attributes' AnsibleParserError

"""Plays: a play's keywords, variables, roles, task sections and handlers, in ansible's order, and
what is templated once the whole play is loaded (hosts, name, tags).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from functools import cache
from itertools import pairwise

from engine.loading import keywords as kw
from engine.loading.context import Ctx
from engine.loading.frames import EXIT_ERROR, FrameLoading, as_list, collection_list, flatten, undefined_hint
from engine.loading.model import (
    Block,
    Frame,
    Play,
    Problem,
    RoleInstance,
    Task,
    implicit_meta_block,
)
from engine.plugins.collection_search import ensure_default
from engine.plugins.names import PluginRemoved
from engine.span import YMap, YSeq
from engine.templating.load_time import (
    MAX_LIST_NESTING,
    Unresolved,
    as_dict,
    is_template,
    render,
    render_or,
    resolve_variables,
)
from engine.values import OMIT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.span import Span


def holds_template(value: Any, nesting: int = 0) -> bool:
    """Whether templating ``value`` (a string, or a list of them) could change it. A list nested
    deeper than templating takes (a YAML alias inside itself, ``&a [*a]``) is left to templating,
    which says so."""
    if isinstance(value, list):
        return nesting > MAX_LIST_NESTING or any(holds_template(item, nesting + 1) for item in value)
    return is_template(value)


def mark_duplicate_roles(play: Play) -> None:
    """Set ``duplicate_of`` on role uses that ansible skips because an equal role already ran."""
    first: dict[tuple[Any, ...], RoleInstance] = {}
    seen: set[int] = set()
    for task in (t for block in play.compile() for t in block.tasks()):
        role = task.role
        if role is None or id(role) in seen:
            continue
        seen.add(id(role))
        key = role.identity()
        if key in first and not role.allow_duplicates:
            role.duplicate_of = first[key]
        first.setdefault(key, role)


def _in_ansible_order(warnings: list[tuple[bool, str]], marks: list[int]) -> list[str]:
    """The load warnings of a play's sections (``marks``: where those of pre_tasks, roles, tasks,
    post_tasks and handlers start, as loaded here, and where they end) in the order Play.load_data
    loads them (by the fields' priority: roles, then handlers, pre_tasks, post_tasks, tasks), less
    those under a dynamic include (the run warns when it loads one)."""
    pre_tasks, roles, tasks, post_tasks, handlers = (warnings[a:b] for a, b in pairwise(marks))
    return [message for dynamic, message in (*roles, *handlers, *pre_tasks, *post_tasks, *tasks) if not dynamic]


class PlayLoading(FrameLoading):
    """One play at a time. Its task lists are :class:`~engine.loading.tasks.TaskLoading`'s, its pending
    includes :class:`~engine.loading.imports.ImportLoading`'s."""

    _vaulted: list[tuple[str, Span | None]] = []  # the vars_files encrypted whole of the play being loaded

    def _play(self, ds: YMap, path: str, basedir: str, outer: tuple[Frame, ...],
              outer_vars: dict[str, Any]) -> Play | None:
        self._vaulted = []
        if not self._check_keys(ds, kw.PLAY_KEYWORDS | {"user"}, "Play"):
            return None
        if "hosts" not in ds or ds["hosts"] in (None, "", []):
            self.problem("invalid-structure", "the field 'hosts' is required but was not set" if "hosts" not in ds
                         else "Hosts list cannot be empty. Please check your playbook", ds.span,
                         "Add 'hosts: <pattern>' to the play.")
            return None
        variables = {**as_dict(ds.get("vars")), **outer_vars}  # an import_playbook's vars over the play's
        variables.update(self._vars_files(ds, basedir, self.with_magic(variables, basedir)))
        variables.update(self.extra_vars)
        # vars_prompt is answered after loading (listing takes each default), so static imports
        # do not see it but the play name, hosts and tags do.
        display_vars = dict(variables)
        for prompt in as_list(ds.get("vars_prompt")):
            if isinstance(prompt, dict) and isinstance(prompt.get("name"), str):
                display_vars.setdefault(prompt["name"], prompt.get("default"))
        display_vars = {**display_vars, **self.extra_vars}
        raw_hosts = ds["hosts"]
        # ansible names an unnamed play after its hosts before templating, then templates the name
        raw_name = ds.get("name") or (",".join(map(str, raw_hosts)) if isinstance(raw_hosts, list) else raw_hosts)
        early_vars = resolve_variables(self.with_magic(display_vars, basedir))
        frame = self.frame("play", f'play "{render_or(raw_name, early_vars)}"', ds, variables)
        header_tags = frame.raw_tags + [t for f in outer for t in f.raw_tags if t not in frame.raw_tags]
        play = Play(name="", hosts=[], span=ds.span, frame=frame, playbook=path, basedir=basedir,
                    tags=header_tags, vars=variables, data=ds)
        play.vaulted_vars_files, self._vaulted = self._vaulted, []
        static_vars = resolve_variables(self.with_magic(variables, basedir))
        ctx = Ctx(chain=outer + (frame,), basedir=basedir, variables=static_vars,
                  collections=ensure_default(collection_list(ds.get("collections")), self.default_collection))
        play.flush = implicit_meta_block(ctx.chain, "flush_handlers")
        self._listed_roles_handlers = []
        marks = [len(self.load_warnings)]  # where each section's warnings start, in this order
        play.pre_tasks = self.load_blocks(ds.get("pre_tasks"), ctx, ds.value_spans.get("pre_tasks"))
        imported = {"pre_tasks": self._imported_handlers()}
        marks.append(len(self.load_warnings))
        play.roles = self._play_roles(ds, ctx)
        imported["roles"] = self._imported_handlers()
        marks.append(len(self.load_warnings))
        play.tasks = self.load_blocks(ds.get("tasks"), ctx, ds.value_spans.get("tasks"))
        imported["tasks"] = self._imported_handlers()
        marks.append(len(self.load_warnings))
        play.post_tasks = self.load_blocks(ds.get("post_tasks"), ctx, ds.value_spans.get("post_tasks"))
        imported["post_tasks"] = self._imported_handlers()
        marks.append(len(self.load_warnings))
        handler_ctx = ctx._replace(handler=True)
        # the handlers of roles: entries come first, in the order the roles were loaded, then the
        # play's own, then those import_role added while loading (TaskQueueManager:
        # play.compile_roles_handlers() + play.handlers, where Play loads its roles first, then
        # its handlers, pre_tasks, post_tasks and tasks): they run in this order
        own = self.load_blocks(ds.get("handlers"), handler_ctx, ds.value_spans.get("handlers"))
        marks.append(len(self.load_warnings))
        play.load_warnings = _in_ansible_order(self.load_warnings, marks)
        play.handlers = [*self._listed_roles_handlers, *own,
                         *(block for section in ("roles", "pre_tasks", "post_tasks", "tasks")
                           for block in imported[section])]
        self._listed_roles_handlers = []
        self._follow_pending_includes(play)
        gathered: list[Mapping[str, Any]] = []

        def play_level() -> Mapping[str, Any]:
            """What the play sees before any host (its roles' defaults and vars, vars_files...),
            gathered only when a template needs it: most plays' hosts, names and tags have none."""
            if not gathered:
                from engine.variables.sources import hostless_variables

                gathered.append(hostless_variables(play, None, [], self.extra_vars, self.sources,
                                                   self.with_magic({}, play.basedir)))
            return gathered[0]

        templated = holds_template(raw_hosts) or holds_template(raw_name)
        play_vars = resolve_variables(play_level()) if templated else {}
        # templated once the play is loaded, with every role's defaults (those of import_role too),
        # as PlaybookExecutor's post_validate does
        hosts = self.render_static(raw_hosts, play_vars, ds.value_spans.get("hosts"), after_load=True)
        play.hosts = [] if hosts is OMIT else [str(h) for h in as_list(hosts)]
        # a name joined from a list of hosts is a new string, which ansible 2.19 does not trust as a
        # template: it stays as written ("{{ g }},db"), where one from a hosts string is templated
        name = raw_name if not ds.get("name") and isinstance(raw_hosts, list) else self.render_static(
            raw_name, play_vars, ds.value_spans.get("name", ds.value_spans.get("hosts")), after_load=True)
        play.name = "" if name is None else str(name)
        frame.label = f'play "{play.name}"'
        self._template_tags(play, lambda: resolve_variables({**play_level(), "ansible_play_name": play.name}))
        mark_duplicate_roles(play)
        self._check_module_keys()
        return play

    def _imported_handlers(self) -> list[Block]:
        """The handlers loaded since the last call: those of roles: entries are kept aside
        (``_listed_roles_handlers``), those of imported roles returned."""
        loaded, self.roles.handler_blocks = self.roles.handler_blocks, []
        self._listed_roles_handlers += [block for imported, blocks in loaded if not imported for block in blocks]
        return [block for imported, blocks in loaded if imported for block in blocks]

    def _check_module_keys(self) -> None:
        """``ModuleArgsParser.parse`` with action validation: every module key must name a
        module or action plugin ansible can find."""
        pending, self._module_keys = self._module_keys, []
        if self.plugins is None:
            return
        for name, collections, span, fatal in pending:
            try:
                found = self.plugins.resolves(name, collections)
            except PluginRemoved as removed:
                self.problem("invalid-task", str(removed), span, "Use the module that replaces it.", fatal=fatal,
                             exit_code=EXIT_ERROR)
                continue
            if found is None:
                self.unchecked_modules = True
            elif not found:
                requirement, hint = self._collection_hint(name, "Check the module's name, install the collection "
                                                          "that provides it, or add the directory that holds it to "
                                                          "the library setting.")
                from engine.plugins.load_failures import load_failure  # only for a module nothing resolves

                message = (f"couldn't resolve module/action '{name}'. This often indicates a misspelling, missing "
                           "collection, or incorrect module path.")
                # ModuleArgsParser.parse's error on the task, after the loader's warning for a
                # collection it could not import (a short name routed there, or a qualified one)
                failed = load_failure(name, self.collections, "modules") if set(collections) <= {
                    "ansible.builtin", "ansible.legacy"} else None
                self.problem("invalid-task", message, span, hint, fatal=fatal, requirement=requirement,
                             chain=((message, span, None),), warnings=(failed,) if failed else ())

    def _template_tags(self, play: Play, tag_vars: Callable[[], Mapping[str, Any]]) -> None:
        """Template every frame's tags with the play-wide variables ansible uses when filtering
        (``tag_vars`` makes them, once, if a frame's tags are templated)."""
        play_wide = cache(tag_vars)
        seen: set[int] = set()
        templated = False

        def template(tasks: list[Task], variables: Callable[[], Mapping[str, Any]]) -> None:
            nonlocal templated
            for frame in (frame for task in tasks for frame in task.chain):
                if id(frame) not in seen:
                    seen.add(id(frame))
                    if any(is_template(tag) for tag in frame.raw_tags):
                        templated = True
                        self._template_frame_tags(frame, variables())

        tasks = [t for block in (*play.compile(), *play.handlers) for t in block.tasks()]
        template(tasks, play_wide)
        # A run filters what an include loads with the include's own variables (the strategy's
        # get_vars(task=include)): an included role's tags may name its includer's role. Includes
        # in what an include loads are met in their turn.
        includes = deque(task for task in tasks if task.children)
        while includes:
            include = includes.popleft()
            own = include.include_vars
            at_include = cache(lambda own=own: resolve_variables({**play_wide(), **own})) if own else play_wide
            loaded = [child for block in include.children for child in block.tasks()]
            template(loaded, at_include)
            includes.extend(task for task in loaded if task.children)
        play.templated_tags = templated

    def _template_frame_tags(self, frame: Frame, variables: Mapping[str, Any]) -> None:
        raw = frame.raw_tags
        try:
            frame.tag_values = [t for t in flatten(render(raw, variables)) if t is not None]
        except Unresolved as exc:
            frame.tag_error = Problem("unresolved-template", f"cannot template tags {raw!r}: {exc}",
                                      frame.keyword_spans.get("tags", frame.span),
                                      undefined_hint(raw, "Define the variable in play vars, vars_files or role "
                                                          "vars, or pass it with -e."),
                                      exit_code=EXIT_ERROR)

    def _play_roles(self, ds: YMap, ctx: Ctx) -> list[Block]:
        entries = ds.get("roles")
        if entries is None:
            return []
        if not isinstance(entries, list):
            self.problem("invalid-structure", "'roles' must be a list", ds.value_spans.get("roles"))
            return []
        blocks: list[Block] = []
        for index, entry in enumerate(entries):
            span = entries.item_spans[index] if isinstance(entries, YSeq) else None
            blocks += self.roles.from_entry(entry, span, ctx, via="roles")
        return blocks

    def _vars_files(self, ds: YMap, basedir: str, variables: dict[str, Any]) -> dict[str, Any]:
        if ds.get("vars_files") in (None, []):
            return {}  # most plays: the variable sources' module is not even imported
        from engine.variables.sources import vars_files_found
        from engine.vault import is_encrypted_text

        loaded: dict[str, Any] = {}
        span = ds.value_spans.get("vars_files")
        for path in vars_files_found(ds.get("vars_files"), basedir, variables):
            data = self.load_yaml(path, span)
            if is_encrypted_text(data):  # what it holds is the run's: engine.loading.vaulted_vars
                self._vaulted.append((path, span))
            loaded.update(as_dict(data))
        return loaded

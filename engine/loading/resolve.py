"""Static resolution of playbooks: plays, roles, imports and blocks into the :mod:`engine.loading.model`.

Follows ansible-core's loading (``Playbook``, ``Play``, ``helpers.load_list_of_*``,
``Role.compile``, ``IncludeRole.get_block_list``, ``PlaybookInclude``) closely enough that
the listing is identical, while recording for every task the frames it inherits from.
Nothing here executes code from the repository; templating is sandboxed and static.
Problems are collected as values on the resulting :class:`~engine.loading.model.Playbook`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from engine.config import AnsibleConfig
from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.actions import ActionError, parse_action
from engine.loading.context import Ctx, task_collections
from engine.loading.model import (
    YAML_SYNTAX_HINT,
    Block,
    Frame,
    Play,
    Playbook,
    Problem,
    RoleInstance,
    Task,
    implicit_meta_block,
)
from engine.loading.paths import path_dwim, path_dwim_relative
from engine.loading.roles import RoleLoader
from engine.plugins.collection_search import CollectionFinder, collection_roots, ensure_default, is_fqcr
from engine.plugins.names import PluginNames, PluginRemoved, plugin_names_for
from engine.records import NamedTuple
from engine.span import Span, YMap, YSeq
from engine.templating.load_time import (
    MAX_LIST_NESTING,
    Unresolved,
    as_dict,
    is_template,
    render,
    render_or,
    resolve_variables,
    with_vars,
)
from engine.values import OMIT
from engine.variables.magic import load_time_variables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.requirements import Requirement
    from engine.parsing.source import SourceCache

# ansible-playbook's exit codes for the errors we reproduce.
EXIT_ERROR = 1
EXIT_PARSER_ERROR = 4
EXIT_CRASH = 250  # ansible-playbook hits RecursionError on import cycles and reports a crash
# import_playbook within import_playbook: ansible-core 2.19 (Python's default recursion limit)
# lists a chain of 321; a play in the 322nd to 324th imported file crashes it (RecursionError,
# exit 250), and loading the 325th fails as "YAML parsing failed" (exit 4).
PLAYBOOK_IMPORT_CRASH_DEPTH = 322
PLAYBOOK_IMPORT_PARSE_DEPTH = 325
# import_tasks within import_tasks: ansible-core 2.19 lists a chain of 138 from a play's tasks and
# dies of Python's RecursionError (exit 250) on 139 and more, with the default recursion limit
MAX_IMPORT_DEPTH = 139
_FLATTEN_HINT = "Import the deepest playbooks directly from a playbook nearer the top."
# Task-list entries one playbook may expand to. Real repositories stay far below (15,000 tasks in
# all is a large one); an editor buffer can multiply two huge files into millions, which would
# keep the resolution busy for minutes.
MAX_ENTRIES = 250_000


# The class ansible names in "Vars in a <class> must be specified as a dictionary.", by frame kind.
_VARS_OWNERS = {"play": "Play", "block": "Block", "apply": "Block", "import_playbook": "PlaybookInclude",
                "import_tasks": "TaskInclude", "import_role": "IncludeRole", "roles": "RoleInclude",
                "dependency": "RoleInclude"}
# Names a variable cannot have beside non-identifiers (ansible's ``_jinja_bits.JINJA_KEYWORDS``).
JINJA_KEYWORDS = frozenset({"False", "None", "True", "false", "none", "not", "true"})


def _collection_list(value: Any) -> list[str]:
    """A ``collections:`` keyword's value as the list of names ansible validates it to."""
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value] if isinstance(value, list) else []


def _task_class(action: str, handler: bool) -> str:
    if action in kw.INCLUDE_ROLE:
        return "IncludeRole"
    if action in kw.INCLUDE_TASKS:
        return "HandlerTaskInclude" if handler else "TaskInclude"
    return "Handler" if handler else "Task"


class _TooLarge(Exception):
    """The playbook expands to more than MAX_ENTRIES task-list entries."""


Reuse = Callable[[tuple[tuple[str, int], ...]], Play | None]


def load_tags(value: Any) -> list[Any]:
    """``Taggable._load_tags``: a list stays, a string is split on commas."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [item.strip() for item in value.split(",")]
    raise TypeError("tags must be specified as a list")


def _flatten(values: list[Any]) -> list[Any]:
    flat: list[Any] = []
    for value in values:
        flat.extend(value if isinstance(value, list) else [value])
    return flat


def _hashable(tag: Any) -> bool:
    try:
        hash(tag)
    except TypeError:
        return False
    return True


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _holds_template(value: Any, nesting: int = 0) -> bool:
    """Whether templating ``value`` (a string, or a list of them) could change it. A list nested
    deeper than templating takes (a YAML alias inside itself, ``&a [*a]``) is left to templating,
    which says so."""
    if isinstance(value, list):
        return nesting > MAX_LIST_NESTING or any(_holds_template(item, nesting + 1) for item in value)
    return is_template(value)


# what following an include named from values known before the run may not find
UNFOUND = frozenset({"unresolved-role", "unresolved-include", "unresolved-import"})


class _PendingInclude(NamedTuple):
    """An include whose name needs variables the loader does not have yet."""

    task: Task
    ctx: Ctx
    span: Span | None
    raw: tuple[Any, ...]
    """The templates to render: the file name, or the role name and its ``*_from`` names."""
    follow: Callable[..., None]
    """Loads what the include loads, given the task, ctx, span and the rendered names."""


class Resolver:
    """Loads playbooks into the model. One instance may load many playbooks (files are cached)."""

    def __init__(self, sources: SourceCache | None = None, config: AnsibleConfig | None = None,
                 extra_vars: dict[str, Any] | None = None, magic: dict[str, Any] | None = None,
                 follow_dynamic: bool = True) -> None:
        """``follow_dynamic=False``: ``include_tasks`` and ``include_role`` stay single tasks
        without their content, as ``ansible-playbook --list-tasks`` loads them. Their content
        never shows in a listing, its problems are never fatal there (ansible meets them at run
        time), and following it was a fifth of listing kubespray."""
        if sources is None:
            from engine.parsing.source import SourceCache

            sources = SourceCache()
        self.sources = sources
        self.config = config or AnsibleConfig.load()
        self.extra_vars: dict[str, Any] = extra_vars or {}
        # the magic variables defined while loading (engine.variables.magic), over every other variable
        self.magic = magic if magic is not None else load_time_variables(config_file=self.config.path)
        self.problems: list[Problem] = []
        self.follow_dynamic = follow_dynamic
        self.reuse: Reuse | None = None
        self.entries = 0  # task-list entries expanded by the current load_playbook
        self.roles = RoleLoader(self)
        # the directories of the playbooks given on the command line, whose collections/ ansible
        # searches first; by default the directory of the playbook being loaded
        self.playbook_dirs: list[str] | None = None
        self._loaded_dirs: list[str] = []  # the directories of the playbook being loaded, as used
        self.collections = CollectionFinder([])
        self.default_collection: str | None = None  # set by loading a playbook of a collection
        self._finders: dict[tuple[str, ...], CollectionFinder] = {}
        self.plugins: PluginNames | None = None  # module and action names, per load_playbook
        # module keys met in the current play, checked once its roles' library/ dirs are known
        self._module_keys: list[tuple[str, tuple[str, ...], Span | None, bool]] = []
        self.unchecked_modules = False  # a name could not be checked: no ansible-core installed
        self._pending_includes: list[_PendingInclude] = []  # followed once their play is loaded
        self._listed_roles_handlers: list[Block] = []  # of the play being loaded's roles: entries

    # -- problems ---------------------------------------------------------------------------
    def problem(self, code: str, message: str, span: Span | None, hint: str = "", fatal: bool = True,
                exit_code: int = EXIT_PARSER_ERROR, requirement: Requirement | None = None,
                after_load: bool = False) -> None:
        self.problems.append(Problem(code, message, span, hint, fatal, exit_code, requirement, after_load))

    def _collection_hint(self, name: str, otherwise: str) -> tuple[Requirement | None, str]:
        """For a missing ``name``: the requirements-file entry of its collection, when ``name`` is
        fully qualified and one declares it, and the hint to install it (else ``otherwise``)."""
        from engine.loading.requirements import install_hint

        requirement = self.requirement_for("collection", name) if is_fqcr(name) else None
        return requirement, install_hint(requirement) or otherwise

    def requirement_for(self, kind: str, name: str) -> Requirement | None:
        """The requirements-file entry declaring the missing role or collection ``name`` (for a
        collection, the one a fully qualified name is in), when it is not installed here."""
        if kind == "collection":
            name = ".".join(name.split(".")[:2])
            if self.collections.collection_dir(name) is not None:
                return None  # installed: what is missing is missing from the collection itself
        from engine.loading.requirements import declared  # only for what is missing

        return declared(self.sources.load, self._loaded_dirs, kind, name)

    def load_yaml(self, path: str, span: Span | None) -> Any:
        loaded = self.sources.load(path)
        if loaded.error is not None:
            code = "yaml-syntax" if paths.exists(path) else "unresolved-import"
            unreadable = loaded.error.message.startswith("cannot read file")
            self.problem(code, loaded.error.message, loaded.error.span,
                         YAML_SYNTAX_HINT if code == "yaml-syntax" and not unreadable else "")
            return None
        return loaded.data

    # -- playbooks --------------------------------------------------------------------------
    def load_playbook(self, path: str, refresh: bool = True, reuse: Reuse | None = None) -> Playbook:
        """Load and resolve a playbook. ``refresh=False`` keeps the memoised file-system
        answers of earlier loads, for callers that load many playbooks of an unchanging tree.
        ``reuse`` maps a play's position to an earlier resolution of it that is still valid
        (none of its reads changed), which is then taken as it is."""
        self.problems = []
        self._pending_includes = []
        self.reuse = reuse
        self.entries = 0
        self.roles.uses = 0
        if refresh:
            paths.clear_cache()
        book = Playbook(path)
        playbook_dirs = self.playbook_dirs or [os.path.dirname(os.path.abspath(path))]
        self._loaded_dirs = playbook_dirs
        self.collections = self.finder(playbook_dirs)
        self.default_collection = self.collections.collection_of(path)
        self.plugins = plugin_names_for(self.collections, self.config.library, self.config.action_plugins)
        for directory in playbook_dirs:
            self.plugins.add_plugin_dirs(directory)
        try:
            book.plays = self._playbook_plays(path, (), (), {}, None, ())
        except _TooLarge:
            self.problem("invalid-structure", f"{path} expands to more than {MAX_ENTRIES:,} tasks; playbook-ls "
                         "stopped resolving it", Span(path, 0, 0, 0, 0),
                         "Check the imports: a task file imported from many places, or a very long one, "
                         "multiplies the tasks.")
        book.problems = self.problems
        book.plugins = self.plugins
        return book

    def with_magic(self, variables: Mapping[str, Any], basedir: str) -> dict[str, Any]:
        """``variables`` under the magic ones, as ``VariableManager.get_vars`` combines them last."""
        return {**variables, **self.magic, "playbook_dir": os.path.abspath(basedir)}

    def finder(self, playbook_dirs: list[str]) -> CollectionFinder:
        """The collections seen when ``playbook_dirs`` are the command line's playbooks' directories."""
        key = tuple(playbook_dirs)
        if key not in self._finders:
            roots = collection_roots(playbook_dirs, self.config.collections_path, self.config.collections_scan_sys_path)
            self._finders[key] = CollectionFinder(roots, self.config.collection_sources)
        return self._finders[key]

    def _playbook_plays(self, path: str, outer: tuple[Frame, ...], stack: tuple[str, ...],
                        outer_vars: dict[str, Any], span: Span | None,
                        position: tuple[tuple[str, int], ...]) -> list[Play]:
        real = paths.realpath(path)
        if real in stack:
            self.problem("import-cycle", f"import_playbook cycle: {path} imports itself again", span,
                         "Remove one of the import_playbook statements that form the cycle.", exit_code=EXIT_CRASH)
            return []
        if len(stack) >= PLAYBOOK_IMPORT_PARSE_DEPTH:
            self.problem("import-depth", f"YAML parsing failed: import_playbook nested more than "
                         f"{PLAYBOOK_IMPORT_PARSE_DEPTH - 1} levels deep exceeds ansible-playbook's recursion limit",
                         span, _FLATTEN_HINT)
            return []
        data = self.load_yaml(path, span)
        if data is None:
            return []
        if not isinstance(data, list):
            self.problem("invalid-structure", "A playbook must be a list of plays", getattr(data, "span", span),
                         "Start the file with '- hosts: ...'.")
            return []
        basedir = os.path.dirname(os.path.abspath(path))
        if self.plugins is not None:  # Playbook._load_playbook_data: an imported playbook's library/ too
            self.plugins.add_plugin_dirs(basedir)
        plays: list[Play] = []
        for index, entry in enumerate(data):
            entry_span = data.item_spans[index] if isinstance(data, YSeq) else span
            if not isinstance(entry, dict):
                self.problem("invalid-structure", "A playbook entry must be a mapping (a play or an import_playbook)",
                             entry_span)
                continue
            import_key = next((k for k in entry if k in kw.IMPORT_PLAYBOOK), None)
            where = position + ((real, index),)
            if import_key is not None:
                plays += self._import_playbook(entry, import_key, basedir, outer, stack + (real,), outer_vars, where)
            elif len(stack) >= PLAYBOOK_IMPORT_CRASH_DEPTH:
                self.problem("import-depth", f"a play imported {len(stack)} levels deep exceeds ansible-playbook's "
                             f"recursion limit ({PLAYBOOK_IMPORT_CRASH_DEPTH - 1} levels): it crashes",
                             entry_span, _FLATTEN_HINT, exit_code=EXIT_CRASH)
            else:
                play = self._tracked_play(entry, path, basedir, outer, outer_vars, where)
                if play is not None:
                    plays.append(play)
        return plays

    def _tracked_play(self, ds: YMap, path: str, basedir: str, outer: tuple[Frame, ...],
                      outer_vars: dict[str, Any], position: tuple[tuple[str, int], ...]) -> Play | None:
        """``_play``, or the earlier resolution ``reuse`` offers, recording reads and problems."""
        earlier = self.reuse(position) if self.reuse is not None else None
        if earlier is not None:
            self.problems += earlier.problems
            return earlier
        first_problem = len(self.problems)
        with self.sources.tracking() as read:
            play = self._play(ds, path, basedir, outer, outer_vars)
        if play is not None:
            play.position = position
            play.reads = frozenset(read).union(real for real, _index in position)
            play.problems = self.problems[first_problem:]
        return play

    def _import_playbook(self, entry: YMap, key: str, basedir: str, outer: tuple[Frame, ...],
                         stack: tuple[str, ...], outer_vars: dict[str, Any],
                         position: tuple[tuple[str, int], ...]) -> list[Play]:
        self._check_keys(entry, kw.IMPORT_PLAYBOOK_KEYWORDS | {key}, "PlaybookInclude")
        frame = self.frame("import_playbook", f"import_playbook {entry[key]}", entry, {**outer_vars})
        variables = self.with_magic({**outer_vars, **as_dict(entry.get("vars")), **self.extra_vars}, basedir)
        target = self.render_static(entry[key], variables, entry.value_spans.get(key))
        if not isinstance(target, str):
            return []
        in_collection = self.collections.find_playbook(target)
        if in_collection is not None:
            path, self.default_collection = in_collection  # ansible keeps it for what loads after, too
        else:
            path = target if os.path.isabs(target) else os.path.join(basedir, target)
            self.default_collection = self.collections.collection_of(path) or self.default_collection
        if not paths.exists(path):
            requirement, hint = self._collection_hint(target, f"Looked for {path}.")
            self.problem("unresolved-import", f"could not find the imported playbook {target!r}",
                         entry.value_spans.get(key), hint, exit_code=EXIT_ERROR, requirement=requirement)
            return []
        # PlaybookInclude: ``entry.vars | new_obj.vars``, the outer import's vars over the inner's
        play_vars = {**as_dict(entry.get("vars")), **outer_vars}
        return self._playbook_plays(path, outer + (frame,), stack, play_vars, entry.value_spans.get(key), position)

    # -- plays ------------------------------------------------------------------------------
    def _play(self, ds: YMap, path: str, basedir: str, outer: tuple[Frame, ...],
              outer_vars: dict[str, Any]) -> Play | None:
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
        for prompt in _as_list(ds.get("vars_prompt")):
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
        static_vars = resolve_variables(self.with_magic(variables, basedir))
        ctx = Ctx(chain=outer + (frame,), basedir=basedir, variables=static_vars,
                  collections=ensure_default(_collection_list(ds.get("collections")), self.default_collection))
        play.flush = implicit_meta_block(ctx.chain, "flush_handlers")
        self._listed_roles_handlers = []
        play.pre_tasks = self.load_blocks(ds.get("pre_tasks"), ctx, ds.value_spans.get("pre_tasks"))
        imported = {"pre_tasks": self._imported_handlers()}
        play.roles = self._play_roles(ds, ctx)
        imported["roles"] = self._imported_handlers()
        play.tasks = self.load_blocks(ds.get("tasks"), ctx, ds.value_spans.get("tasks"))
        imported["tasks"] = self._imported_handlers()
        play.post_tasks = self.load_blocks(ds.get("post_tasks"), ctx, ds.value_spans.get("post_tasks"))
        imported["post_tasks"] = self._imported_handlers()
        handler_ctx = ctx._replace(handler=True)
        # the handlers of roles: entries come first, in the order the roles were loaded, then the
        # play's own, then those import_role added while loading (TaskQueueManager:
        # play.compile_roles_handlers() + play.handlers, where Play loads its roles first, then
        # its handlers, pre_tasks, post_tasks and tasks): they run in this order
        own = self.load_blocks(ds.get("handlers"), handler_ctx, ds.value_spans.get("handlers"))
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

        templated = _holds_template(raw_hosts) or _holds_template(raw_name)
        play_vars = resolve_variables(play_level()) if templated else {}
        # templated once the play is loaded, with every role's defaults (those of import_role too),
        # as PlaybookExecutor's post_validate does
        hosts = self.render_static(raw_hosts, play_vars, ds.value_spans.get("hosts"), after_load=True)
        play.hosts = [] if hosts is OMIT else [str(h) for h in _as_list(hosts)]
        name = self.render_static(raw_name, play_vars, ds.value_spans.get("name", ds.value_spans.get("hosts")),
                                  after_load=True)
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

    def defer_include(self, task: Task, ctx: Ctx, span: Span | None, raw: tuple[Any, ...],
                      follow: Callable[..., None]) -> None:
        """Template an include's names once the play is loaded, then ``follow`` it."""
        self._pending_includes.append(_PendingInclude(task, ctx, span, raw, follow))

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
                self.problem("invalid-task", f"couldn't resolve module/action '{name}'. This often indicates a "
                             "misspelling, missing collection, or incorrect module path.", span, hint, fatal=fatal,
                             requirement=requirement)

    def _template_tags(self, play: Play, tag_vars: Callable[[], Mapping[str, Any]]) -> None:
        """Template every frame's tags with the play-wide variables ansible uses when filtering
        (``tag_vars`` makes them, once, if a frame's tags are templated)."""
        seen: set[int] = set()
        made: list[Mapping[str, Any]] = []

        def play_wide() -> Mapping[str, Any]:
            if not made:
                made.append(tag_vars())
            return made[0]

        def template(tasks: list[Task], variables: Callable[[], Mapping[str, Any]]) -> None:
            for frame in (frame for task in tasks for frame in task.chain):
                if id(frame) not in seen:
                    seen.add(id(frame))
                    if any(is_template(tag) for tag in frame.raw_tags):
                        self._template_frame_tags(frame, variables())

        tasks = [t for block in (*play.compile(), *play.handlers) for t in block.tasks()]
        template(tasks, play_wide)
        # A run filters what an include loads with the include's own variables (the strategy's
        # get_vars(task=include)): an included role's tags may name its includer's role. Includes
        # in what an include loads are met in their turn.
        includes = [task for task in tasks if task.children]
        while includes:
            include = includes.pop(0)
            scope: list[Mapping[str, Any]] = []

            def at_include(include: Task = include, scope: list[Mapping[str, Any]] = scope) -> Mapping[str, Any]:
                if not scope:
                    scope.append(resolve_variables({**play_wide(), **include.include_vars})
                                 if include.include_vars else play_wide())
                return scope[0]

            loaded = [child for block in include.children for child in block.tasks()]
            template(loaded, at_include)
            includes += [task for task in loaded if task.children]
        play.templated_tags = bool(made)

    def _template_frame_tags(self, frame: Frame, variables: Mapping[str, Any]) -> None:
        raw = frame.raw_tags
        try:
            frame.tag_values = [t for t in _flatten(render(raw, variables)) if t is not None]
        except Unresolved as exc:
            frame.tag_error = Problem("unresolved-template", f"cannot template tags {raw!r}: {exc}",
                                      frame.keyword_spans.get("tags", frame.span),
                                      "Define the variable in play vars, vars_files or role vars, or pass it with -e.",
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

        loaded: dict[str, Any] = {}
        for path in vars_files_found(ds.get("vars_files"), basedir, variables):
            loaded.update(as_dict(self.load_yaml(path, ds.value_spans.get("vars_files"))))
        return loaded

    # -- frames and keywords ----------------------------------------------------------------
    def _check_keys(self, ds: YMap, allowed: frozenset[str] | set[str], what: str) -> bool:
        for key in ds:
            if key not in allowed:
                self.problem("unknown-keyword", f"'{key}' is not a valid attribute for a {what}"
                             f"{kw.did_you_mean(str(key), allowed)}", ds.key_spans.get(key, ds.span),
                             "Check the spelling, or move it where it belongs.")
                return False
        return True

    def frame(self, kind: str, label: str, ds: Mapping[str, Any], variables: Mapping[str, Any],
              exclude: frozenset[str] = frozenset(), owner: str | None = None) -> Frame:
        """A frame holding the inheritable keywords (and vars) that ``ds`` sets itself."""
        frame = Frame(kind, label, getattr(ds, "span", None))
        spans = getattr(ds, "value_spans", {})
        for key, value in ds.items():
            if key in exclude or not (key in kw.INHERITED or key == "vars"):
                continue
            if key == "vars" and not self._valid_vars(value, owner or _VARS_OWNERS.get(kind, "Task"),
                                                      spans.get(key, frame.span)):
                continue
            if key == "tags":
                try:
                    value = _flatten(load_tags(value))
                except TypeError:
                    self.problem("invalid-structure", "tags must be specified as a list", spans.get(key, frame.span),
                                 "Write 'tags: [a, b]' or 'tags: a,b'.", exit_code=EXIT_ERROR)
                    value = []
                if not all(map(_hashable, value)):  # a mapping or a nested list: ansible crashes on it
                    self.problem("invalid-structure", "a tag must be a word, not a mapping or a list",
                                 spans.get(key, frame.span), "Write each tag as a plain word.", exit_code=EXIT_ERROR)
                    value = [tag for tag in value if _hashable(tag)]
            elif key == "when":
                value = _as_list(value)
            frame.keywords[key] = value
            if key in spans:
                frame.keyword_spans[key] = spans[key]
        return frame

    def _valid_vars(self, value: Any, owner: str, span: Span | None) -> bool:
        """``Base._load_vars``: a mapping of valid variable names (or nothing)."""
        if value is None:
            return True
        if not isinstance(value, dict):
            self.problem("invalid-structure", f"Vars in a {owner} must be specified as a dictionary.", span,
                         "Write 'vars:' as a mapping, 'name: value' on each line (not a list).")
            return False
        for name in value:
            if not (isinstance(name, str) and name.isidentifier() and name.isascii()
                    and name not in JINJA_KEYWORDS):
                self.problem("invalid-structure", f"Invalid variable name {str(name)!r}.", span,
                             "Variable names must start with a letter or underscore and contain only letters, "
                             "numbers and underscores.", exit_code=EXIT_ERROR)
                return False
        return True

    def render_static(self, value: Any, variables: Mapping[str, Any], span: Span | None,
                      exit_code: int = EXIT_PARSER_ERROR, after_load: bool = False) -> Any:
        """``value`` templated now; ``exit_code`` is ansible's when that fails (1 where its
        ``AnsibleUndefinedVariable`` is not turned into a parser error, as for role names);
        ``after_load``: ansible templates it only once the whole playbook is loaded."""
        if not is_template(value) and not isinstance(value, list):
            return value
        try:
            return render(value, variables)
        except Unresolved as exc:
            shown = repr(value) if len(repr(value)) <= 200 else f"{repr(value)[:200]}..."
            hint = "Simplify the template, or compute the value outside ansible and pass it with -e." \
                if exc.too_large else "Define the variable in play vars, vars_files or pass it with -e."
            self.problem("unresolved-template", f"cannot resolve {shown} statically: {exc}", span, hint,
                         exit_code=exit_code, after_load=after_load)
            return None

    # -- blocks and tasks -------------------------------------------------------------------
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
        return blocks

    def load_block(self, ds: YMap, ctx: Ctx) -> Block:
        self._check_keys(ds, kw.BLOCK_KEYWORDS, "Block")
        label = f'block "{ds["name"]}"' if ds.get("name") else "block"
        frame = self.frame("block", label, ds, ctx.variables)
        inner = ctx.push(frame)
        if "collections" in ds:
            inner = inner._replace(collections=ensure_default(_collection_list(ds["collections"])))
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
            raise _TooLarge
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
                parsed = parse_action(item)
            except ActionError as exc:
                if not self._misspelt_keywords(item, ctx):
                    self.problem("invalid-task", str(exc), getattr(item, "span", item_span),
                                 "Give the task exactly one module, e.g. 'ansible.builtin.debug: msg=hi'.")
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

    def _misspelt_keywords(self, ds: Any, ctx: Ctx) -> bool:
        """Report keys that ansible took for a second module but that look like a misspelt
        keyword ("conflicting action statements: debug, tag"). True if there were any."""
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
                                 "module and stops with 'conflicting action statements'.")
        return found

    def task(self, ds: YMap, action: str, args: dict[str, Any], ctx: Ctx) -> Task:
        allowed = kw.HANDLER_KEYWORDS if ctx.handler else kw.TASK_KEYWORDS
        for key in ds:
            if isinstance(key, str) and key not in allowed and key != action and not key.startswith("with_") \
                    and key != "local_action":
                self.problem("unknown-keyword", f"'{key}' is not a valid attribute for a Task"
                             f"{kw.did_you_mean(key, allowed)}", ds.key_spans.get(key), fatal=False)
        if action in kw.REMOVED_ACTIONS:
            self.problem("invalid-task", f"The '{action}' action plugin has been removed. Use "
                         "include_tasks or import_tasks instead.", getattr(ds, "span", None),
                         "Write 'include_tasks:' (loaded at run time) or 'import_tasks:' (loaded now).",
                         exit_code=EXIT_ERROR)
        elif action in kw.INCLUDE_TASKS or action in kw.INCLUDE_ROLE:
            self._check_include_keywords(ds, action, ctx)
        name = ds.get("name")
        label = f'task "{name}"' if name else f"task {action}"
        frame = self.frame("task", label, ds, ctx.variables, owner=_task_class(action, ctx.handler))
        task = Task(name=name, action=action, args=args, span=getattr(ds, "span", None), chain=[*ctx.chain, frame],
                    role=ctx.role, handler=ctx.handler, dynamic=ctx.dynamic, data=ds)
        task.collections = task_collections(ds, ctx)
        if action in kw.INCLUDE_TASKS:
            self._include_tasks(task, ds, ctx)
        return task

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
            self.problem("invalid-task", f"'{key}' is not a valid attribute for a {owner}",
                         getattr(ds, "span", None),
                         f"{action} takes only {', '.join(sorted(valid - {'action', 'args', 'loop_with'}))}; "
                         "put the other keywords on the included tasks or in 'apply:'.")

    # -- imports ----------------------------------------------------------------------------
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
        raw = args.get("_raw_params", args.get("file"))
        if not isinstance(raw, str) or not raw:
            self.problem("invalid-task", f"No file specified for {action}", ds.span,
                         f"Give the file to {action}, e.g. '{action}: setup.yml'.")
            return None
        return raw

    def _import_tasks(self, ds: YMap, args: dict[str, Any], action: str, ctx: Ctx) -> list[Block | Task]:
        raw = self._include_target(ds, args, action)
        if raw is None:
            return []
        if "loop" in ds or any(str(k).startswith("with_") for k in ds):
            self.problem("invalid-task", "You cannot use loops on 'import_tasks' statements. You should use "
                         "'include_tasks' instead.", ds.span)
            return []
        if args.get("apply"):
            self.problem("invalid-task", f"Invalid options for {action}: apply", ds.span,
                         "'apply' only works with include_tasks; tags and when on an import already apply to "
                         "the imported tasks.")
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
        if not data:
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


__all__ = ["Ctx", "Resolver", "load_tags"]

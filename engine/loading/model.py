"""The resolved playbook model: plays, blocks, tasks and the frames they inherit from.

Every object keeps its source span. A task's ``chain`` is the list of frames that reach it,
outermost first and ending with the task itself; effective keywords are computed from the
chain with the merge rules declared in :mod:`engine.loading.keywords`, so each value keeps its
provenance. A task file reached through two paths yields two task objects with two chains.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from engine.loading.keywords import INHERITED, Merge
from engine.records import NamedTuple
from engine.span import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

YAML_SYNTAX_HINT = "Fix the YAML so that it parses."


# Frame kinds of the static imports written in a task list: they pass keywords on to the
# tasks they bring in, but are no tasks themselves.
STATIC_IMPORTS = frozenset({"import_tasks", "import_role"})


class Problem:
    """Something wrong in the input, with where it is and what to do about it.

    ``code`` names the kind ("yaml-syntax", "unresolved-import", "import-cycle", ...);
    ``fatal`` means ansible-playbook itself would refuse to run, exiting with ``exit_code``.
    ``requirement`` (an :class:`engine.loading.requirements.Requirement`) is set when what is missing is
    declared in a requirements file and not installed: installing it is the fix. ``after_load``
    marks a problem ansible meets templating a play's own fields (``post_validate``), which it
    does only once it has loaded every play of the playbook. ``chain``, when set, is the error
    ansible-playbook prints for it, link by link: (message, where, help text) from the outermost
    error to its cause, as ``engine.run.error_block`` formats such a chain; the place is a span, a
    file without a position (``Origin: FILE``) or None, and a link without a place may end with the
    value ansible shows below ``Origin: <unknown>`` (what carries no origin).
    ``warnings`` are what ansible-playbook warns as it meets the problem, printed before its error.
    """

    __slots__ = ("code", "message", "span", "hint", "fatal", "exit_code", "requirement", "after_load", "chain",
                 "warnings")

    def __init__(self, code: str, message: str, span: Span | None, hint: str = "", fatal: bool = True,
                 exit_code: int = 4, requirement: Any = None, after_load: bool = False,
                 chain: tuple[tuple[str, Span | str | None, str | None] | tuple[str, None, str | None, str], ...] = (),
                 warnings: tuple[str, ...] = ()) -> None:
        self.code, self.message, self.span, self.hint = code, message, span, hint
        self.fatal, self.exit_code, self.requirement = fatal, exit_code, requirement
        self.after_load, self.chain, self.warnings = after_load, chain, warnings

    def __repr__(self) -> str:
        return f"Problem({self.code!r}, {str(self)!r})"

    def __str__(self) -> str:
        # a problem of no place in a file (a setting, a command-line option) names what it is about
        text = f"{self.span.human()}: {self.message}" if self.span else self.message
        return join_sentences(text, self.hint)


def join_sentences(first: str, second: str) -> str:
    """Two sentences as one message, without doubling the full stop."""
    if not second:
        return first
    return f"{first} {second}" if first.endswith((".", "?", "!", ":")) else f"{first}. {second}"


class Frame:
    """One level a task inherits from: a play, a ``roles:`` entry, an import, a block, the task.

    ``keywords`` holds the inheritable keywords the level sets itself, ``keyword_spans`` where.
    ``tag_values`` are the tags after templating with the play's variables (None: not
    templated), ``tag_error`` the problem that stopped templating them; ansible selects on
    templated tags.
    """

    __slots__ = ("kind", "label", "span", "keywords", "keyword_spans", "tag_values", "tag_error", "templated_name",
                 "item_index")

    def __init__(self, kind: str, label: str, span: Span | None) -> None:
        self.kind, self.label, self.span = kind, label, span
        self.keywords: dict[str, Any] = {}
        self.keyword_spans: dict[str, Span] = {}
        self.tag_values: list[Any] | None = None
        self.tag_error: Problem | None = None
        self.templated_name: tuple[str, Span | None] | None = None
        """A block's ``name`` holding a template, and where: ansible templates it before each task
        directly in the block runs (``Task.post_validate`` validates the task's parent block)."""
        self.item_index: int | None = None
        """A ``loop_item`` frame's item of its looping include, where the file was loaded for that
        item alone (each item names its own file); None: told by the frames' order."""

    def __repr__(self) -> str:
        return f"Frame({self.kind!r}, {self.label!r})"

    @property
    def raw_tags(self) -> list[Any]:
        """The tags as written (split on commas), which ansible prints in play headers."""
        return self.keywords.get("tags") or []

    @property
    def tags(self) -> list[Any]:
        return self.tag_values if self.tag_values is not None else self.raw_tags

    @property
    def when(self) -> list[Any]:
        return self.keywords.get("when") or []


class Sourced(NamedTuple):
    """A value with the frame it comes from."""

    value: Any
    frame: Frame

    @property
    def span(self) -> Span | None:
        return self.frame.keyword_spans.get("tags") or self.frame.span


class RoleInstance:
    """One use of a role: from ``roles:``, a meta dependency, ``import_role`` or ``include_role``.

    ``via`` says which; ``entry`` is the frame that brought it in; ``external`` marks a role
    found in an installed collection, ``collection`` names it. ``duplicate_of`` is an earlier use of the same role that
    ansible will have run already: this one's tasks are skipped at run time (they are still
    listed), unless ``allow_duplicates``.
    """

    __slots__ = ("name", "path", "via", "span", "params", "from_files", "allow_duplicates", "parent",
                 "external", "entry", "duplicate_of", "collection", "public", "run_from")

    def __init__(self, name: str, path: str | None, via: str, span: Span | None, external: bool = False,
                 collection: str | None = None) -> None:
        self.name, self.path, self.via, self.span, self.external = name, path, via, span, external
        self.collection = collection  # the collection that holds the role; its name is then fully qualified
        self.params: dict[str, Any] = {}
        self.from_files: dict[str, str] = {}
        self.allow_duplicates = False
        self.parent: RoleInstance | None = None
        self.entry: Frame | None = None
        self.duplicate_of: RoleInstance | None = None
        self.public: Any = None
        """``public:`` of the import_role / include_role that brought it in, as written (None: not given)."""
        self.run_from: tuple[str, dict[str, list[str]]] | None = None
        """For an ``include_role`` whose ``*_from`` files the run picks (engine.flow.role_from_files):
        why, and each sub-directory's files the hosts name."""

    def __repr__(self) -> str:
        return f"RoleInstance({self.name!r}, via={self.via!r})"

    def identity(self) -> tuple[Any, ...]:
        """What ansible compares to decide a role already ran (``Role._get_hash_dict``)."""
        keywords = self.entry.keywords if self.entry else {}
        if self.via in ("import_role", "include_role"):  # the role itself gets only the vars
            keywords = {"vars": keywords.get("vars")}
        return (
            self.name, self.path, repr(sorted(self.params.items(), key=str)), repr(keywords.get("when")),
            repr(keywords.get("tags")), repr(sorted(self.from_files.items())), repr(keywords.get("vars")),
            self.via in ("import_role", "include_role"),
        )


class Task:
    """A task (or handler) in one context. ``dynamic`` tasks were loaded through ``include_*``
    and are not part of the static listing; an include's ``children`` are what it would load,
    ``include_target`` the file or role as written and ``include_resolved`` where it was found.
    """

    __slots__ = ("name", "action", "args", "span", "chain", "role", "handler", "implicit", "dynamic",
                 "include_target", "include_resolved", "apply", "children", "child_handlers", "data", "collections",
                 "include_vars", "written_args", "handler_block", "_tag_cache")

    def __init__(self, name: str | None, action: str, args: dict[str, Any], span: Span | None, chain: list[Frame],
                 role: RoleInstance | None = None, handler: bool = False, dynamic: bool = False,
                 data: Any = None) -> None:
        self.name, self.action, self.args, self.span, self.chain = name, action, args, span, chain
        self.role, self.handler, self.dynamic, self.data = role, handler, dynamic, data
        self.implicit = False
        self.include_target: str | None = None
        self.include_resolved: str | None = None
        self.apply: dict[str, Any] | None = None
        self.children: list[Block] = []
        self.child_handlers: list[Block] = []
        """The handlers an ``include_role`` adds to the play's when a run includes the role
        (``IncludeRole.get_block_list``), in the order they join."""
        # the collections a short module name is looked up in (``collections:`` of the task or above)
        self.collections: tuple[str, ...] = ()
        self.include_vars: Mapping[str, Any] | None = None
        self.written_args: dict[str, Any] | None = None
        """The arguments as written when a run gave the task its ``module_defaults`` too
        (engine.run.module_defaults); None otherwise."""
        """An include's variables where it runs (its context's, its own, its include params): what
        ansible templates the tags of the tasks it loads with (``get_vars(task=include)``)."""
        self.handler_block: Block | None = None
        """A handler's top-level handler block: consecutive bare handlers share an implicit one
        (engine.flow.notify searches the blocks last first, each one's handlers in order)."""
        self._tag_cache: frozenset[Any] | None = None

    def __repr__(self) -> str:
        return f"Task({self.display_name()!r})"

    @property
    def frame(self) -> Frame:
        return self.chain[-1]

    def display_name(self) -> str:
        """What ``ansible-playbook --list-tasks`` prints for the task."""
        if not self.name:
            return self.action
        if self.role is not None and self.action not in INCLUDE_ROLE_ACTIONS:
            return f"{self.role.name} : {self.name}"
        return str(self.name)

    def effective_tags(self) -> list[Sourced]:
        """Every tag that reaches the task, with the frame it comes from, outermost first."""
        return [Sourced(tag, frame) for frame in self.chain for tag in frame.tags]

    def tag_set(self) -> frozenset[Any]:
        """The effective tags as a set. Computed once: a task's chain does not change after the
        resolver has built and templated it."""
        if self._tag_cache is None:
            self._tag_cache = frozenset(tag for frame in self.chain for tag in frame.tags)
        return self._tag_cache

    def dependency_parent_entries(self) -> list[Frame]:
        """``roles:``/dependency entries reached only through a role's dependency chain.

        ansible templates tags only on the task, its parents, their roles and the play
        (``Taggable._get_all_taggable_objects``). A role entry directly followed by another
        role entry in the chain has no block of its own among the task's parents: it is one
        of those dependency-chain roles, whose tags are left as they are.
        """
        chain = self.chain
        return [frame for frame, below in zip(chain, chain[1:], strict=False)
                if frame.kind in ROLE_ENTRY_KINDS and below.kind in ROLE_ENTRY_KINDS]

    def effective_when(self) -> list[Sourced]:
        return [Sourced(cond, frame) for frame in self.chain for cond in frame.when]

    def effective(self, keyword: str) -> Sourced | list[Sourced] | None:
        """The inherited value of ``keyword`` with provenance, per :data:`INHERITED`."""
        merge = INHERITED.get(keyword)
        if merge is None:
            value = self.frame.keywords.get(keyword)
            return None if value is None else Sourced(value, self.frame)
        if merge != Merge.REPLACE:
            return [Sourced(v, f) for f in self.chain for v in _as_list(f.keywords.get(keyword))]
        for frame in reversed(self.chain):
            if keyword in frame.keywords:
                return Sourced(frame.keywords[keyword], frame)
        return None


UNTAGGED = frozenset({"untagged"})
ROLE_ENTRY_KINDS = frozenset({"roles", "dependency"})
INCLUDE_ROLE_ACTIONS = frozenset({"include_role", "ansible.builtin.include_role", "ansible.legacy.include_role"})


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


class Block:
    """A block; bare tasks in a list are gathered into implicit blocks, as ansible does."""

    __slots__ = ("frame", "block", "rescue", "always", "implicit")

    def __init__(self, frame: Frame, implicit: bool = False) -> None:
        self.frame, self.implicit = frame, implicit
        self.block: list[Block | Task] = []
        self.rescue: list[Block | Task] = []
        self.always: list[Block | Task] = []

    def tasks(self) -> Iterator[Task]:
        for section in (self.block, self.rescue, self.always):
            for item in section:
                if isinstance(item, Block):
                    yield from item.tasks()
                else:
                    yield item


class Play:
    """A play. ``tags`` are the play's tags as written (ansible prints them untemplated in the
    play header); ``roles`` holds the compiled blocks of its ``roles:`` section.

    ``position`` says where the play sits: (playbook, entry index) for each import_playbook
    that leads to it, then its own. ``reads`` are the files resolving it read (the playbooks
    on that way included) and ``problems`` those met meanwhile: a play whose reads are
    unchanged resolves to the same play again, which lets an editor re-resolve only the plays
    an edit touches.
    """

    __slots__ = ("name", "hosts", "span", "frame", "playbook", "basedir", "tags", "vars", "pre_tasks", "roles",
                 "tasks", "post_tasks", "handlers", "data", "flush", "position", "reads", "problems", "derived",
                 "templated_tags", "load_warnings", "vaulted_vars_files", "load_reads")

    def __init__(self, name: str, hosts: list[str], span: Span | None, frame: Frame, playbook: str, basedir: str,
                 tags: list[Any], vars: dict[str, Any], data: Any = None) -> None:
        self.name, self.hosts, self.span, self.frame = name, hosts, span, frame
        self.playbook, self.basedir, self.tags, self.vars, self.data = playbook, basedir, tags, vars, data
        self.pre_tasks: list[Block] = []
        self.roles: list[Block] = []
        self.tasks: list[Block] = []
        self.post_tasks: list[Block] = []
        self.handlers: list[Block] = []
        self.flush: Block | None = None  # the implicit flush_handlers block between sections
        self.position: tuple[tuple[str, int], ...] = ()
        self.reads: frozenset[str] = frozenset()
        self.problems: list[Problem] = []
        # what analyses compute from the play once (its run order): it lives as long as the play,
        # where a cache keyed by the play's id kept every play an editor's edits replaced
        self.derived: dict[str, Any] = {}
        self.templated_tags = True
        self.load_warnings: list[str] = []
        """ansible's warnings while loading the play (an imported task file that is empty), in
        its loading order: shown before the first play runs, as the playbook is loaded whole."""
        self.vaulted_vars_files: list[tuple[str, Span | None]] = []
        """The files of its ``vars_files`` encrypted whole, read here as empty (engine.loading.vaulted_vars)."""
        self.load_reads: frozenset[str] = frozenset()
        """The variable names its load-time templates read (hosts, name, tags, import names)."""
        """Whether a level of its tasks may have templated tags; the resolver clears it when none
        has, and tag filtering then needs none of ansible's templating order."""

    def compile(self) -> list[Block]:
        """The play's blocks in execution order, implicit flush_handlers blocks included
        (``Play.compile``)."""
        flush = [self.flush] if self.flush is not None else []
        return [*self.pre_tasks, *flush, *self.roles, *self.tasks, *flush, *self.post_tasks, *flush]

    def all_tasks(self) -> Iterator[Task]:
        """Every task and handler written in the playbook (implicit meta tasks left out)."""
        for block in (*self.compile(), *self.handlers):
            yield from (task for task in block.tasks() if not task.implicit)


class Playbook:
    __slots__ = ("path", "plays", "problems", "plugins")

    def __init__(self, path: str) -> None:
        self.path = path
        self.plays: list[Play] = []
        self.problems: list[Problem] = []
        # where its module and action names were looked up (engine.plugins.names.PluginNames)
        self.plugins: Any = None

    def fatal_problems(self) -> list[Problem]:
        """The problems that stop ansible-playbook, the one it stops at first: loading any play
        of the playbook (a later play's missing role) comes before templating the first play."""
        return sorted((p for p in self.problems if p.fatal), key=lambda p: p.after_load)


def implicit_meta_block(chain: tuple[Frame, ...], what: str, role: RoleInstance | None = None) -> Block:
    """The implicit ``meta`` tasks ansible adds (flush_handlers, role_complete), tagged always.

    They are never listed, but filtering them templates inherited tags like any task.
    """
    frame = Frame("implicit", f"implicit meta: {what}", None)
    frame.keywords["tags"] = ["always"]
    task = Task(None, "meta", {"_raw_params": what}, None, [*chain, frame], role=role)
    task.implicit = True
    block = Block(Frame("block", "implicit block", None), implicit=True)
    block.block.append(task)
    return block

"""The resolved playbook model: plays, blocks, tasks and the frames they inherit from.

Every object keeps its source span. A task's ``chain`` is the list of frames that reach it,
outermost first and ending with the task itself; effective keywords are computed from the
chain with the merge rules declared in :mod:`engine.keywords`, so each value keeps its
provenance. A task file reached through two paths yields two task objects with two chains.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.keywords import INHERITED, Merge
from engine.source import Span


@dataclass(slots=True)
class Problem:
    """Something wrong in the input, with where it is and what to do about it."""

    code: str  # e.g. "yaml-syntax", "unresolved-import", "import-cycle", "unknown-keyword"
    message: str
    span: Span | None
    hint: str = ""
    fatal: bool = True  # ansible-playbook itself would refuse to run
    exit_code: int = 4  # what ansible-playbook exits with on this error

    def __str__(self) -> str:
        where = self.span.human() if self.span else "<unknown>"
        text = f"{where}: {self.message}"
        return f"{text}. {self.hint}" if self.hint else text


@dataclass(slots=True)
class Frame:
    """One level a task inherits from: a play, a ``roles:`` entry, an import, a block, the task."""

    kind: str
    label: str
    span: Span | None
    keywords: dict[str, Any] = field(default_factory=dict)
    keyword_spans: dict[str, Span] = field(default_factory=dict)
    # ``tags`` after templating with the play's variables (None: not templated yet), or the
    # problem that stopped templating them; ansible evaluates selections on templated tags.
    tag_values: list[Any] | None = None
    tag_error: Problem | None = None

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


@dataclass(slots=True)
class Sourced:
    """A value with the frame it comes from."""

    value: Any
    frame: Frame

    @property
    def span(self) -> Span | None:
        return self.frame.keyword_spans.get("tags") or self.frame.span


@dataclass(slots=True)
class RoleInstance:
    """One use of a role: from ``roles:``, a meta dependency, ``import_role`` or ``include_role``."""

    name: str
    path: str | None
    via: str  # "roles", "dependency", "import_role", "include_role"
    span: Span | None
    params: dict[str, Any] = field(default_factory=dict)
    from_files: dict[str, str] = field(default_factory=dict)
    allow_duplicates: bool = False
    parent: RoleInstance | None = None
    external: bool = False  # found in an installed collection
    entry: Frame | None = None  # the roles: entry / dependency / import_role that brought it in
    # An earlier use of the same role that ansible will have run already: this one's tasks are
    # skipped at run time (they are still listed), unless allow_duplicates.
    duplicate_of: RoleInstance | None = None

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


@dataclass(slots=True)
class Task:
    name: str | None
    action: str
    args: dict[str, Any]
    span: Span | None
    chain: list[Frame]
    role: RoleInstance | None = None
    handler: bool = False
    implicit: bool = False
    dynamic: bool = False  # loaded through include_* (not part of the static listing)
    include_target: str | None = None  # include_* / import_* file or role, as written
    include_resolved: str | None = None
    apply: dict[str, Any] | None = None
    children: list[Block] = field(default_factory=list)  # what an include_* would load
    data: Any = None

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

    def tag_set(self) -> set[Any]:
        return {tag for frame in self.chain for tag in frame.tags}

    def dependency_parent_entries(self) -> list[Frame]:
        """Entry frames of the roles this task's role is a dependency of.

        ansible templates tags only on the task, its parents, their roles and the play
        (``Taggable._get_all_taggable_objects``), not on a dependency's parent roles.
        """
        hidden: list[Frame] = []
        role = self.role
        while role is not None and role.via == "dependency" and role.parent is not None:
            role = role.parent
            if role.entry is not None and role.via in ("roles", "dependency"):
                hidden.append(role.entry)  # an import_role's frame is a parent block: not hidden
        return hidden

    def effective_when(self) -> list[Sourced]:
        return [Sourced(cond, frame) for frame in self.chain for cond in frame.when]

    def effective(self, keyword: str) -> Sourced | list[Sourced] | None:
        """The inherited value of ``keyword`` with provenance, per :data:`INHERITED`."""
        merge = INHERITED.get(keyword)
        if merge is None:
            value = self.frame.keywords.get(keyword)
            return None if value is None else Sourced(value, self.frame)
        if merge is not Merge.REPLACE:
            return [Sourced(v, f) for f in self.chain for v in _as_list(f.keywords.get(keyword))]
        for frame in reversed(self.chain):
            if keyword in frame.keywords:
                return Sourced(frame.keywords[keyword], frame)
        return None


UNTAGGED = frozenset({"untagged"})
INCLUDE_ROLE_ACTIONS = frozenset({"include_role", "ansible.builtin.include_role", "ansible.legacy.include_role"})


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


@dataclass(slots=True)
class Block:
    """A block; bare tasks in a list are gathered into implicit blocks, as ansible does."""

    frame: Frame
    block: list[Block | Task] = field(default_factory=list)
    rescue: list[Block | Task] = field(default_factory=list)
    always: list[Block | Task] = field(default_factory=list)
    implicit: bool = False

    def tasks(self) -> Iterator[Task]:
        for section in (self.block, self.rescue, self.always):
            for item in section:
                if isinstance(item, Block):
                    yield from item.tasks()
                else:
                    yield item


@dataclass(slots=True)
class Play:
    name: str
    hosts: list[str]
    span: Span | None
    frame: Frame
    playbook: str
    basedir: str
    tags: list[Any]  # play tags as written (ansible prints them untemplated in the play header)
    vars: dict[str, Any] = field(default_factory=dict)
    pre_tasks: list[Block] = field(default_factory=list)
    roles: list[Block] = field(default_factory=list)  # compiled role blocks, in ansible's order
    tasks: list[Block] = field(default_factory=list)
    post_tasks: list[Block] = field(default_factory=list)
    handlers: list[Block] = field(default_factory=list)
    data: Any = None

    def compile(self) -> list[Block]:
        """The play's blocks in execution order (ansible's ``Play.compile`` minus flush blocks)."""
        return [*self.pre_tasks, *self.roles, *self.tasks, *self.post_tasks]

    def all_tasks(self) -> Iterator[Task]:
        for block in (*self.compile(), *self.handlers):
            yield from block.tasks()


@dataclass(slots=True)
class Playbook:
    path: str
    plays: list[Play] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def fatal_problems(self) -> list[Problem]:
        return [p for p in self.problems if p.fatal]

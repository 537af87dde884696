"""What every rule shares: findings, severities, the contexts rules read, and task walking.

A rule module declares ``CODE``, ``NAME``, ``SEVERITY``, ``SCOPE`` ("playbook", "project", or
"noqa": the ``# noqa`` comments once every other finding is settled),
optionally ``OPTIONS`` (name -> default), and ``check(ctx)`` yielding :class:`Finding`.
Rules never filter themselves: the runner applies select/ignore, severities and ``# noqa``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.loading.model import Block, Frame, Play, Playbook, Task
from engine.loading.paths import display_path as display_path  # the rules' way of naming places:
from engine.loading.paths import keyword_span as keyword_span  # the engine's per-host reasons
from engine.loading.paths import where as where  # name them the same way
from engine.span import Span

if TYPE_CHECKING:
    from engine.launch.profiles import LaunchProfile


class Severity:
    """Levels in increasing order of gravity; the fail level is compared with :func:`rank`."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    ALL = ("info", "warning", "error")

    @staticmethod
    def rank(level: str) -> int:
        return Severity.ALL.index(level)


class Related(NamedTuple):
    """Another place that explains a finding, e.g. where an inherited tag is written."""

    span: Span
    message: str


class Finding:
    """One problem a rule found. ``span`` is 0-based; the runner sets ``code`` and ``severity``."""

    __slots__ = ("code", "message", "span", "related", "severity", "name")

    def __init__(self, message: str, span: Span | None, related: Iterable[Related] = (), code: str = "",
                 severity: str = "", name: str = "") -> None:
        self.message, self.span, self.related = message, span, list(related)
        self.code, self.severity, self.name = code, severity, name

    def __repr__(self) -> str:
        where = self.span.human() if self.span else "<project>"
        return f"Finding({self.code} {where}: {self.message})"

    def key(self) -> tuple[Any, ...]:
        """Identity used to drop the same finding reached from two playbooks."""
        return (self.code, self.span, self.message)

    def sort_key(self) -> tuple[Any, ...]:
        span = self.span or Span("", 0, 0, 0, 0)
        return (span.file, span.line, span.col, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code, "name": self.name, "severity": self.severity, "message": self.message,
            "span": list(self.span) if self.span else None,
            "related": [[*r.span, r.message] for r in self.related],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        span = Span(*data["span"]) if data["span"] else None
        related = [Related(Span(*r[:5]), r[5]) for r in data["related"]]
        return cls(data["message"], span, related, data["code"], data["severity"], data["name"])


# the name of the play, never written, that applies a role no playbook applies (``check``)
LONE_ROLE_PLAYBOOK = ".playbook-ls-check-"


class PlaybookContext:
    """What a playbook-scoped rule sees: one resolved playbook and the launch profiles."""

    def __init__(self, playbook: Playbook, profiles: list[LaunchProfile], options: dict[str, Any],
                 tasks: list[tuple[Play, Task]] | None = None, shared: dict[str, Any] | None = None) -> None:
        self.playbook, self.profiles, self.options = playbook, profiles, options
        self._tasks = tasks
        # what several rules derive from the same playbook (e.g. the tasks' module calls)
        self.shared: dict[str, Any] = shared if shared is not None else {}

    @property
    def callers_unknown(self) -> bool:
        """Whether this is a role no resolved playbook applies, checked in a play of its own: what
        its callers give it (tags above all) is unknown, so no claim that depends on it is made."""
        return os.path.basename(self.playbook.path).startswith(LONE_ROLE_PLAYBOOK)

    def with_options(self, options: dict[str, Any]) -> PlaybookContext:
        """The same playbook for another rule: the task walk is shared, the options are not."""
        return PlaybookContext(self.playbook, self.profiles, options, self.tasks(), self.shared)

    def tasks(self) -> list[tuple[Play, Task]]:
        """Every task and handler in execution order, included files' tasks too, once per context."""
        if self._tasks is None:
            self._tasks = [(play, task) for play in self.playbook.plays for task in play_tasks(play)]
        return self._tasks

    def applies_to(self, profile: LaunchProfile) -> bool:
        """Whether a profile launches this playbook (a profile naming no playbook launches any)."""
        target = profile_playbook(profile)
        return target is None or target == _real(self.playbook.path)

    def launching(self) -> list[LaunchProfile]:
        """The profiles that launch this playbook, in their order (those :meth:`applies_to`),
        found once for the rules of this context."""
        if "launching" not in self.shared:
            real = _real(self.playbook.path)
            self.shared["launching"] = [profile for profile, target in zip(self.profiles, _targets(self.profiles),
                                                                           strict=True)
                                        if target is None or target == real]
        return self.shared["launching"]

    def problems(self, *codes: str) -> Iterator[Any]:
        return (p for p in self.playbook.problems if p.code in codes)


class ProjectContext:
    """What a project-scoped rule sees: every tag in use, the profiles, ansible.cfg defaults."""

    def __init__(self, tags: dict[str, Span | None], profiles: list[LaunchProfile], options: dict[str, Any],
                 config_skip_tags: list[str], config_path: str | None, playbooks: dict[str, set[str]]) -> None:
        self.tags, self.profiles, self.options = tags, profiles, options
        self.config_skip_tags, self.config_path = config_skip_tags, config_path
        self.playbooks = playbooks  # real playbook path -> tags its tasks carry

    def profile_tags(self, profile: LaunchProfile) -> set[str]:
        """The tags a profile can select: its playbook's, or every checked playbook's."""
        target = profile_playbook(profile)
        if target is not None and target in self.playbooks:
            return self.playbooks[target]
        return set(self.tags)


def profile_playbook(profile: LaunchProfile) -> str | None:
    """The real path of a profile's playbook, relative to the file that defines the profile."""
    path = profile.playbook_path()
    return _real(path) if path is not None else None


_TARGETS: list[tuple[int, list[Any], list[str | None]]] = []


def _targets(profiles: list[LaunchProfile]) -> list[str | None]:
    """:func:`profile_playbook` of each profile, computed once for the same list until the files
    change: every play of every playbook asks which of the thousands of profiles an export holds
    launch it."""
    from engine.parsing.source import files_state

    now = files_state()
    if _TARGETS and _TARGETS[0][1] is profiles and len(_TARGETS[0][2]) == len(profiles) \
            and now == _TARGETS[0][0]:
        return _TARGETS[0][2]
    _TARGETS[:] = [(now, profiles, [profile_playbook(profile) for profile in profiles])]
    return _TARGETS[0][2]


_REAL: dict[str, tuple[int, str]] = {}


def _real(path: str) -> str:
    """``os.path.realpath``, reused until the files change: an AWX export holds thousands of
    profiles naming the same few playbooks, and each rule of each play asks which of them launch it."""
    import os

    from engine.parsing.source import files_state

    now = files_state()
    known = _REAL.get(path)
    if known is not None and now == known[0]:
        return known[1]
    if len(_REAL) > 4096:
        _REAL.clear()
    real = os.path.realpath(path)
    _REAL[path] = (now, real)
    return real


def play_tasks(play: Play) -> list[Task]:
    """A play's tasks and handlers in execution order, included files' tasks too."""
    return [task for block in (*play.compile(), *play.handlers) for task in walk_block(block)]


def walk_block(block: Block, into_includes: bool = True) -> Iterator[Task]:
    """Tasks of a block in order, descending into what includes would load (unless not
    ``into_includes``: then an include is one task, as ansible's strategy sees a loaded file)."""
    for section in (block.block, block.rescue, block.always):
        for item in section:
            if isinstance(item, Block):
                yield from walk_block(item, into_includes)
                continue
            if item.implicit or is_generated(item):
                continue
            yield item
            if into_includes:
                for child in item.children:
                    yield from walk_block(child)


def is_generated(task: Task) -> bool:
    """A task ansible adds that is written nowhere, such as a role's argument-spec validation
    (tagged ``always``): nothing to report on or point at. Parsed mappings always know where
    their keys are; generated ones do not."""
    return getattr(task.data, "key_spans", None) == {}


def task_anchor(task: Task) -> Span | None:
    """Where to point at a task: its ``name`` value, else its first key, else the whole task."""
    data = task.data
    spans = getattr(data, "value_spans", None)
    if spans and "name" in spans:
        return spans["name"]
    keys = getattr(data, "key_spans", None)
    if keys:
        return next(iter(keys.values()))
    return task.span


def describe_frame(frame: Frame) -> str:
    """A short phrase naming a level, e.g. 'the roles: entry "sample"' or 'the play "web"'."""
    kind = frame.kind
    if kind in ("play", "block", "task"):
        return f"the {frame.label}"
    return f"the {frame.label}" if frame.label.startswith(kind) else f"the {kind} {frame.label}"


def quote_list(items: Iterable[Any]) -> str:
    return ", ".join(f"'{item}'" for item in items)


SPECIAL_TAGS = frozenset({"all", "always", "never", "tagged", "untagged"})


class NeverExposure(NamedTuple):
    """How a ``never`` task can still be selected: ``never`` is written at ``never_frame``;
    ``inherited`` maps each tag set above that level to the frames it comes from, and
    ``own`` holds the tags written at or below it (the task's intended opt-in tags)."""

    never_frame: Frame
    inherited: dict[str, list[Frame]]
    own: frozenset[Any]


def never_exposure(task: Task) -> NeverExposure | None:
    """None unless the task is tagged ``never`` (at any level)."""
    chain = task.chain
    index = next((i for i, frame in enumerate(chain) if "never" in frame.tags), None)
    if index is None:
        return None
    inherited: dict[str, list[Frame]] = {}
    for frame in chain[:index]:
        for tag in frame.tags:
            if isinstance(tag, str) and tag not in SPECIAL_TAGS:
                inherited.setdefault(tag, []).append(frame)
    own = frozenset(tag for frame in chain[index:] for tag in frame.tags)
    return NeverExposure(chain[index], inherited, own)


def tag_origins(tag: str, frames: list[Frame]) -> str:
    """"'web' (the play "site", site.yml:3)" for a message."""
    places = "; ".join(f"{describe_frame(f)}, {where(keyword_span(f, 'tags'))}" for f in frames)
    return f"'{tag}' ({places})"


def problem_findings(ctx: PlaybookContext, *codes: str) -> Iterator[Finding]:
    """Findings for the resolver's own problems of the given kinds; what a requirements file
    declares and nobody installed is PLS123's, once per requirement."""
    from engine.loading.model import join_sentences

    for problem in ctx.problems(*codes):
        if problem.requirement is None:
            yield Finding(join_sentences(problem.message, problem.hint), problem.span)


class NoqaComment(NamedTuple):
    """A ``# noqa: CODES`` comment: where it is, the names it lists as written, and the codes of
    the findings it silenced."""

    span: Span
    names: list[str]
    used: set[str]


class NoqaContext(NamedTuple):
    """What a rule about ``# noqa`` comments sees: every such comment of the checked files, and
    the rules that ran (a comment for a rule that did not run is not unused)."""

    comments: list[NoqaComment]
    enabled: set[str]

"""One side of a review, read as ``playbook-ls plan`` reads a launch: each playbook's plays and
tasks (with their effective tags, conditions and notifications, and where each comes from),
what each tag selection lists, and, with an inventory, each task's outcome on each host.

A task is known across the two sides by its play and what ansible prints for it (``role :
name``), its action, and its place among the tasks of the play printed alike: a task whose
file or line changed is the same task moved; a task whose name changed is found again by its
body (:mod:`playbook_ls.review.compare`)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.flow.plan import Plan, RunOptions
    from engine.flow.tags import Selection
    from engine.loading.model import Task

TaskKey = tuple[str, str, str, int]
"""(play key, printed name, action, place among the play's tasks printed alike)."""


@dataclass(frozen=True)
class TaskView:
    key: TaskKey
    name: str
    action: str
    file: str | None
    """Relative to the side's root (None: an implicit task)."""
    line: int | None
    tags: tuple[str, ...]
    tag_origins: tuple[tuple[str, str], ...]
    """(tag, the level it comes from)."""
    when: tuple[tuple[str, str], ...]
    notify: tuple[str, ...]
    handler: bool
    body: str
    """A digest of what the task does (all but its name): a renamed task keeps it."""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "(implicit)"

    def keyed(self, key: TaskKey) -> TaskView:
        """The same view under ``key`` (``dataclasses.replace`` checks every field again: a
        playbook's view asks this of each of its thousands of tasks)."""
        view = object.__new__(TaskView)
        view.__dict__.update(self.__dict__)
        view.__dict__["key"] = key
        return view


@dataclass
class PlayView:
    key: str
    label: str
    """As ansible lists it: ``play #N (hosts): name``."""
    given_tasks: list[TaskView] | None
    """Its tasks' views, or None until :attr:`tasks` is first read (``entries`` describe them)."""
    handlers: list[Any]
    """The play's handler Task objects (what a notification reaches), while the side is open."""
    play: Any
    plan_play: Any = None
    entries: list[tuple[list[Any], TaskKey]] | None = None
    """Its tasks in order: each one's entry in the side's ``seen`` ([task, printed name, view or
    None]) and its key; a task is described only when a comparison asks for its view (a reading
    the old side takes from the new side, or a play it takes, is not described again)."""
    roots: tuple[str, ...] = ()
    """The side's real and given directory, then those of the side whose plays it took."""

    def keys(self) -> list[TaskKey]:
        """Its tasks' keys, in order."""
        return [key for _known, key in self.entries] if self.given_tasks is None and self.entries is not None \
            else [view.key for view in self.tasks]

    @property
    def tasks(self) -> list[TaskView]:
        if self.given_tasks is None:
            assert self.entries is not None
            self.given_tasks = _task_views(self.entries, self.roots)
        return self.given_tasks


class TaskViews(Mapping[TaskKey, TaskView]):
    """A reading's task views by key, in the order of its plays' tasks, each described when
    first asked (:meth:`task` gives the Task itself, where the reading has it)."""

    def __init__(self, plays: list[PlayView]) -> None:
        self._known: dict[TaskKey, tuple[PlayView, list[Any]] | TaskView] = {}
        self._views: dict[TaskKey, TaskView] = {}
        for play in plays:
            if play.given_tasks is None and play.entries is not None:
                self._known.update((key, (play, known)) for known, key in play.entries)
            else:
                self._known.update((view.key, view) for view in play.tasks)

    def __getitem__(self, key: TaskKey) -> TaskView:
        view = self._views.get(key)
        if view is None:
            found = self._known[key]
            view = self._views[key] = found if isinstance(found, TaskView) else _task_views([(found[1], key)],
                                                                                            found[0].roots)[0]
        return view

    def __iter__(self) -> Iterator[TaskKey]:
        return iter(self._known)

    def __len__(self) -> int:
        return len(self._known)

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def task(self, key: TaskKey) -> Any:
        """The Task of ``key`` (None for a view given whole)."""
        found = self._known[key]
        return None if isinstance(found, TaskView) else found[1][0]

    def notify(self, key: TaskKey) -> tuple[str, ...]:
        """``self[key].notify``, without describing the rest of the task."""
        from engine.flow.notify import notifications

        task = self.task(key)
        return self[key].notify if task is None else tuple(notifications(task))


@dataclass
class PlaybookView:
    path: str
    """Relative to the side's root."""
    plays: list[PlayView] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    """The files reading it read, relative to the root."""
    problem: str | None = None
    """Why the side's playbook cannot be planned (ansible-playbook stops on it too)."""
    plan: Any = None
    keys: dict[int, TaskKey] = field(default_factory=dict)
    """id(Task) -> its key, for the tasks of this reading."""
    names: frozenset[str] | None = None
    """The variable names the templates of its reading read (:mod:`playbook_ls.review.reuse`)."""
    loads_at_run: bool = False
    """Its run loads files the reading does not (an ``include_vars``, an include or a
    ``vars_files`` entry named per host): with an inventory, what its plan reads joins ``reads``."""
    _views: TaskViews | None = field(default=None, repr=False, compare=False)

    def views(self) -> TaskViews:
        """Its tasks' views by key (:class:`TaskViews`)."""
        if self._views is None:
            self._views = TaskViews(self.plays)
        return self._views


@contextmanager
def inside(root: str) -> Iterator[None]:
    """With ``root`` as the working directory, as ansible-playbook run there would have it
    (its ansible.cfg, relative inventory and playbook paths)."""
    before = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(before)


def read_playbook(root: str, path: str, options: RunOptions, cache: Any,
                  seen: dict[int, list[Any]] | None = None, partner: str | None = None) -> PlaybookView:
    """``path`` (relative to ``root``) of the side at ``root``, planned with ``options``: its
    plays and tasks, and the files it reads. The working directory must be ``root``. ``seen``
    keeps the views of tasks read before on the same side: a play shared by several playbooks
    (:mod:`engine.loading.shared_plays`) is described once, and only when its views are first
    asked for (:attr:`PlayView.tasks`). ``partner``: the root of the other side, whose plays the
    resolution may take (their tasks' files and names are told relative to it)."""
    from dataclasses import replace

    from engine.flow.plan import PlanError, make_plan
    from engine.inventory.data import InventoryError
    from engine.parsing.source import files_state
    from engine.templating.load_time import names_recorded

    view = PlaybookView(path)
    if not os.path.isfile(path):
        view.problem = "the playbook is not in this revision"
        return view
    real_root, given_root = os.path.realpath(root), os.path.abspath(root)
    roots = (real_root, given_root) if partner is None else \
        (real_root, given_root, os.path.realpath(partner), os.path.abspath(partner))
    seen = {} if seen is None else seen
    with cache.tracking() as read, names_recorded() as names:
        try:
            plan = make_plan(replace(options, playbook=path), cache, dynamic_inventory=False)
        except (PlanError, InventoryError) as exc:
            # where it stops, relative to the revision: the same problem reads the same on both sides
            view.problem = named_in(str(exc), *roots)
            plan = None
    view.names = frozenset(names)
    view.reads = files_within(read, real_root)  # also when it cannot be planned: what it read until then
    if options.inventory:  # read host by host as the plan asks for values, after the tracking above
        view.reads |= _inventory_vars_files(tuple(options.inventory), os.path.dirname(os.path.abspath(path)),
                                            real_root, files_state())
    if plan is None:
        return view
    view.plan = plan
    view.loads_at_run = loads_at_run(plan)
    counts: dict[tuple[str, ...], int] = {}
    for number, plan_play in enumerate(plan.plays):
        play = plan_play.play
        hosts = ",".join(map(str, play.hosts))
        play_key = f"{play.name}\t{hosts}"
        place = counts[(play_key,)] = counts.get((play_key,), 0) + 1
        key = f"{play_key}\t{place}"
        keyed = []
        for task in play.all_tasks():  # its tasks in execution order, then its handlers
            known = seen.get(id(task))
            if known is None or known[0] is not task:
                known = seen[id(task)] = [task, named_in(task.display_name(), *roots), None]
            alike = (key, known[1], task.action)
            counts[alike] = counts.get(alike, 0) + 1
            task_key: TaskKey = (key, known[1], task.action, counts[alike])
            view.keys[id(task)] = task_key
            keyed.append((known, task_key))
        handlers = [task for block in play.handlers for task in block.tasks() if not task.implicit]
        view.plays.append(PlayView(key, f"play #{number + 1} ({hosts}): {play.name}", None, handlers, play,
                                   plan_play, keyed, roots))
    return view


def _task_views(keyed: list[tuple[list[Any], TaskKey]], roots: tuple[str, ...]) -> list[TaskView]:
    """The views of a play's tasks (``keyed``: each task's entry in the side's ``seen``, and its
    key), each task described once per side, in the side's directory (``roots``: its real and
    given path, then the other side's whose plays it took; the tasks' file names may be relative
    to it), which must still be there."""
    views = []
    with inside(roots[1]):
        for known, task_key in keyed:
            if known[2] is None:
                known[2] = task_view(("", "", "", 0), known[0], *roots)
            views.append(known[2].keyed(task_key))
    return views


class HandlerViews(Mapping[TaskKey, TaskView]):
    """The views of the handlers of a reading's plays by key (play, printed name, action, count
    among those alike), in the order each play defines them; each described when first asked."""

    def __init__(self, view: PlaybookView) -> None:
        self._known: dict[TaskKey, tuple[Any, PlayView]] = {}
        self._views: dict[TaskKey, TaskView] = {}
        for play in view.plays:
            counts: dict[tuple[str, str], int] = {}
            for handler in play.handlers:
                name = named_in(handler.display_name(), *play.roots)
                counts[(name, handler.action)] = counts.get((name, handler.action), 0) + 1
                self._known[(play.key, name, handler.action, counts[(name, handler.action)])] = (handler, play)

    def __getitem__(self, key: TaskKey) -> TaskView:
        view = self._views.get(key)
        if view is None:
            handler, play = self._known[key]
            view = self._views[key] = _task_views([([handler, key[1], None], key)], play.roots)[0]
        return view

    def __iter__(self) -> Iterator[TaskKey]:
        return iter(self._known)

    def __len__(self) -> int:
        return len(self._known)


@lru_cache(maxsize=4096)
def named_in(name: str, *roots: str) -> str:
    """``name`` with the revision's directory (a role named by its path, ``role: "{{
    playbook_dir }}"``, prints it) relative to the revision: the same task on both sides. Kept per
    text: a fleet's outcomes repeat a few reasons thousands of times."""
    for root in roots:
        name = name.replace(root + os.sep, "").replace(root, ".")
    return name


def task_view(key: TaskKey, task: Task, root: str, *other_roots: str) -> TaskView:
    """``task``'s view on the side at ``root``; ``other_roots``: the side's given path, then the
    real and given paths of the side whose plays it took."""
    from engine.flow.notify import notifications
    from engine.parsing.source import files_state

    span = task.span
    file = _relative(span.file, (root, *other_roots[1::2]), files_state()) if span is not None and span.file else None
    return TaskView(key=key, name=named_in(task.display_name(), root, *other_roots), action=task.action,
                    file=file,
                    line=span.line + 1 if span is not None else None,
                    tags=tuple(sorted({str(tag) for tag in task.tag_set()})),
                    # Task.effective_tags and effective_when's pairs, without a Sourced for each
                    tag_origins=tuple((str(tag), frame.label) for frame in task.chain for tag in frame.tags),
                    when=tuple((str(cond), frame.label) for frame in task.chain for cond in frame.when),
                    notify=tuple(notifications(task)), handler=task.handler, body=_body(task))


@lru_cache(maxsize=4096)
def _relative(file: str, roots: tuple[str, ...], state: int) -> str:
    """``file`` relative to the first of ``roots`` (real paths) that holds it, else to the first,
    through its symlinks (asked for each task of the file), while the files are in ``state``
    (:func:`engine.parsing.source.files_state`)."""
    from engine.loading.paths import realpath

    real = realpath(os.path.abspath(file))  # the memo is kept by path: a relative one names each side's file
    return os.path.relpath(real, next((root for root in roots if real.startswith(root + os.sep)), roots[0]))


def files_within(files: list[str], real_root: str) -> set[str]:
    """``files`` (as loaded) relative to ``real_root`` (a real path), those inside it."""
    from engine.parsing.source import files_state

    state = files_state()
    return {relative for file in set(files) if (relative := within(file, real_root, state)) is not None}


@lru_cache(maxsize=8192)
def within(file: str, root: str, state: int) -> str | None:
    """``file`` relative to ``root`` through its symlinks, None when it is outside: asked for
    every file each playbook reads (the same few hundred over and over in a repository whose
    playbooks share their roles), while the files are in ``state``."""
    from engine.loading.paths import realpath  # memoised: the loader asked for the same files

    real = realpath(os.path.abspath(file))  # the memo is kept by path: a relative one names each side's file
    return os.path.relpath(real, root) if real.startswith(root + os.sep) else None


@lru_cache(maxsize=256)
def _inventory_vars_files(sources: tuple[str, ...], playbook_dir: str, root: str, state: int) -> frozenset[str]:
    """The files of the group_vars/ and host_vars/ directories beside the inventory sources and the
    playbook (relative to ``root``): a playbook planned with the inventory reads those its hosts and
    groups name, and a change to one reaches it."""
    from engine.inventory.vars_files import playbook_vars_directories, source_directories

    found = set()
    for directory in [*source_directories(sources), *playbook_vars_directories(playbook_dir)]:
        for kind in ("group_vars", "host_vars"):
            for folder, _dirs, names in os.walk(os.path.join(directory, kind)):
                for name in names:
                    relative = within(os.path.join(folder, name), root, state)
                    if relative is not None:
                        found.add(relative)
    return frozenset(found)


_BODIES: dict[int, tuple[Any, str]] = {}
"""id(task data) -> (the data, its digest): a role's task file is one parse however many plays
use the role, and its tasks' data the same objects (kept here, so that their ids stay theirs)."""


def _body(task: Task) -> str:
    data = task.data if isinstance(task.data, dict) else {}
    known = _BODIES.get(id(data))
    if known is not None and known[0] is data:
        return known[1]
    kept = {str(k): v for k, v in data.items() if k != "name"}
    text = json.dumps(kept, sort_keys=True, default=str)
    digest = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]
    if len(_BODIES) > 65536:
        _BODIES.clear()
    _BODIES[id(data)] = (data, digest)
    return digest


def listed(view: PlaybookView, selection: Selection) -> set[TaskKey]:
    """The tasks ``--list-tasks`` lists under ``selection`` (what a run with it executes, but
    for the rescue and always sections, which ansible lists neither)."""
    from engine.flow.tags import selected_tasks

    return {view.keys[id(task)] for play in view.plays for task in selected_tasks(play.play, selection)
            if id(task) in view.keys}


_LOADERS_AT_RUN = kw.INCLUDE_TASKS | kw.INCLUDE_ROLE | kw.INCLUDE_VARS


def loads_at_run(plan: Plan) -> bool:
    """Whether the run of ``plan``'s playbook loads files its reading does not: an
    ``include_vars`` (read when the task runs), an ``include_tasks``/``include_role`` (one whose name
    the reading could not follow, or whose file a host's values name), a ``vars_files`` entry each
    host names from its values."""
    from engine.flow.host_reading import per_host_vars_files

    return any(per_host_vars_files(play) or any(task.action in _LOADERS_AT_RUN for task in play.play.all_tasks())
               for play in plan.plays)


class HostOutcomes(dict[TaskKey, dict[str, tuple[str, str]]]):
    """Each task's (outcome, reason) on each host, by task key; ``loaded_at_run`` holds the views
    of the tasks an include loads at run time, which no listing has."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded_at_run: dict[TaskKey, TaskView] = {}


def host_outcomes(view: PlaybookView, plan: Plan) -> HostOutcomes:
    """Each task's outcome and reason on each host, as ``playbook-ls plan`` gives them (the
    tasks an include loads at run time keyed by their include's play, their name and action, and
    their count among those alike, in the order the run meets them)."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.outcomes import distinct

    found = HostOutcomes()
    extra: dict[tuple[str, ...], int] = {}
    for play_view, planned in zip(view.plays, plan_hosts(plan), strict=True):
        for task in planned.tasks:
            key = view.keys.get(id(task.task))
            if key is None:  # loaded by an include at run time: keyed by its include's play and name
                name = named_in(task.name, *play_view.roots)
                alike = (play_view.key, name, task.task.action)
                extra[alike] = extra.get(alike, 0) + 1
                key = (play_view.key, name, task.task.action, 1000 + extra[alike])
                found.loaded_at_run[key] = task_view(key, task.task, *play_view.roots)
            # hosts of one class share their outcome: each told once, then given to its hosts
            told = {id(outcome): (outcome.outcome, named_in(outcome.reason, *play_view.roots) if outcome.reason
                                  else outcome.reason) for outcome in distinct(task.hosts)}
            planned = dict(zip(task.hosts, map(told.__getitem__, map(id, task.hosts.values())), strict=True))
            outcomes = found.get(key)
            if outcomes is None:
                found[key] = planned
            else:  # planned again (a task a loop includes twice): its first outcome stands
                for host, pair in planned.items():
                    outcomes.setdefault(host, pair)
    return found

"""The old side's reading of a playbook taken from the new side's, when it cannot differ.

Two revisions of a change usually differ in a value or two of a variables file that every play
reads (kubespray's ``checksums.yml`` is read by each of its ~95 plays through
``kubespray_defaults``), while no play's resolution templates any of those values: the plays,
their tasks, tags, conditions and names are the same on both sides, and resolving them again
costs as much as the first time.

The rule, exact rather than hopeful: the resolution of a playbook is a function of the files it
reads, the directory listings it makes, the settings and the variables its templates read. A
playbook's reading of the new side is taken for the old side when

- no inventory is given (with one, the plan's per-host values come from each side's files);
- every changed file exists on both sides as a regular file (so every directory listing and
  existence test answers alike), and every changed file the playbook's reading read is a
  variables file: a YAML mapping on both sides under a ``vars``, ``defaults``, ``group_vars`` or
  ``host_vars`` directory (a play, a task list, a role's meta or an ansible.cfg is structure);
- none of the variable names its templates read (:class:`engine.templating.load_time.names_recorded`,
  which counts a value's own reads at every later read of it and a play shared between
  playbooks) is one those files set differently (by type and value) or one whose value names the
  revision's directory (``playbook_dir``, ``role_path``...), and every template's names could be
  told (no run-time templar, which can name variables by computed strings);
- the new side's reading stopped on no problem.

Up to the first input that differs, the old side's resolution makes the same reads in the same
order as the new side's did; the rule says no input it makes differs, so it never diverges.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.flow.host_reading import per_host_vars_files
from engine.loading import keywords as kw
from engine.parsing.source import files_state
from engine.templating.read_names import READS_ALL
from playbook_ls.review.sides import within

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from engine.parsing.source import SourceCache
    from playbook_ls.review.revisions import Side
    from playbook_ls.review.sides import PlaybookView

VARIABLES_DIRECTORIES = frozenset({"vars", "defaults", "group_vars", "host_vars"})
ROOTED_NAMES = frozenset({"playbook_dir", "role_path", "inventory_dir", "inventory_file", "ansible_config_file",
                          "ansible_search_path", "ansible_role_path"})
"""Variables whose value names the directory a side is written to: different on the two sides."""


def differing_names(old: Side, new: Side, changed: set[str], inventory: list[str],
                    caches: Mapping[str, SourceCache]) -> set[str] | None:
    """The variable names the change sets differently, when a reading can be taken from one side
    for the other at all (else None): no inventory, every changed file on both sides, each one
    a variables file or marked as more (see :func:`reusable`). Each side's files are loaded with
    its own cache (``caches`` by side root): the new side's reading parsed them already, and a
    reading of the old side that is not taken finds them parsed."""
    if inventory:
        return None
    return names_set_differently(old, new, changed, caches)


def names_set_differently(old: Side, new: Side, changed: set[str],
                          caches: Mapping[str, SourceCache]) -> set[str] | None:
    """:func:`differing_names` whether or not an inventory is given."""
    names: set[str] = set()
    for path in changed:
        files = [os.path.join(one.root, path) for one in (old, new)]
        if not all(os.path.isfile(file) and not os.path.islink(file) for file in files):
            return None  # an added, removed or linked file changes what a listing or a test finds
        if not _variables_path(path):
            names.add(_STRUCTURE + path)  # a reading that reads it cannot be taken
            continue
        sides = [caches[one.root].load(file) for one, file in zip((old, new), files, strict=True)]
        if any(loaded.error is not None or not isinstance(loaded.data, dict) for loaded in sides):
            names.add(_STRUCTURE + path)
            continue
        before, after = sides[0].data, sides[1].data
        names |= {str(key) for key in before.keys() | after.keys()
                  if key not in before or key not in after or not same_value(before[key], after[key])}
    return names


_STRUCTURE = "\0file:"
"""Marks, among the differing names, a changed file a reading reads as more than variables."""


def reusable(view: PlaybookView, names: set[str], changed: set[str]) -> bool:
    """Whether the old side's reading of ``view``'s playbook is ``view`` (the new side's)."""
    if view.problem is not None or view.plan is None or view.names is None:
        return False
    if any(_STRUCTURE + path in names for path in view.reads & changed):
        return False
    return _loads_alike(view, names)


def partner_plays(old: Side, new: Side, changed: set[str], caches: Mapping[str, SourceCache]) -> Any:
    """The new side's plays for the old side's resolvers to take (an
    :class:`engine.loading.shared_plays.PartnerPlays`), or None when the change removes a file a
    play's resolution may have looked for, or adds or removes a plugin.

    A play resolves alike on both sides when each changed playbook that leads to it (its own
    file, an import above it) holds the same entry at its place (:class:`_SameEntries`), every
    changed file it read is a variables file none of whose differing
    names its templates read, and it read no name that names the revision's directory: up to the
    first input that differs, the old side's resolution would read the same files in the same
    order, and none differs. Its key (engine.loading.shared_plays) holds the rest of its context:
    the import levels above it, the variables they pass, the settings, the plugin directories."""
    from engine.loading.shared_plays import PartnerPlays

    kept = {path for path in changed if all(os.path.lexists(os.path.join(one.root, path)) for one in (old, new))}
    # a file only the new side has was read by every resolution there that looked for it (the
    # loader reads what it finds); one only the old side has may have been looked for in vain,
    # which is not recorded; a plugin is found without being read
    removed = {path for path in changed - kept if os.path.lexists(os.path.join(old.root, path))}
    if any(may_change_the_run(path) for path in removed) or any(path.endswith(".py") for path in changed - kept):
        return None
    if any(_read_as_no_play(path) for path in changed):
        return None  # the settings, or a host's variables, which the resolvers read as no play's file
    names = names_set_differently(old, new, kept, caches)
    store = caches[new.root].shared_plays
    if names is None or store is None:
        return None
    here, there = ((os.path.realpath(one.root), os.path.abspath(one.root)) for one in (old, new))
    state = files_state()
    entries = _SameEntries(old.root, new.root, caches)

    def usable(shared: Any, position: tuple[tuple[str, int], ...]) -> bool:
        if READS_ALL in shared.names or shared.names & ROOTED_NAMES or shared.names & names:
            return False
        for real, index in position:  # the playbooks on its way: a changed one must hold the same entry there
            relative = within(real, here[0], state)
            if relative in changed and not entries.same(relative, index):
                return False
        for file in shared.reads:
            relative = within(file, there[0], state)
            if relative in changed and (relative not in kept or not _variables_path(relative)
                                        or _STRUCTURE + relative in names):
                return False
        return True

    return PartnerPlays(store, here, there, usable)


class _SameEntries:
    """Whether a changed playbook holds the same entry (a play, an ``import_playbook``) at the
    same place on both sides, by its data (:func:`same_value`, whatever YAML aliases it through):
    a change elsewhere in the file, a line added above it, leaves the entry's resolution alike.
    Only its lines differ, and a task taken with the play is told at the new side's line, as the
    review tells a task both sides have."""

    def __init__(self, old_root: str, new_root: str, caches: Mapping[str, SourceCache]) -> None:
        self.roots, self.caches = (old_root, new_root), caches
        self._data: dict[str, list[Any]] = {}
        self._known: dict[tuple[str, int], bool] = {}

    def same(self, path: str, index: int) -> bool:
        known = self._known.get((path, index))
        if known is None:
            data = self._data.get(path)
            if data is None:
                data = self._data[path] = [self._parsed(root, path) for root in self.roots]
            known = self._known[(path, index)] = all(isinstance(one, list) and index < len(one) for one in data) \
                and same_value(data[0][index], data[1][index])
        return known

    def _parsed(self, root: str, path: str) -> Any:
        """The file's data on the side at ``root``, parsed, not loaded: the reading going on does
        not read the other side."""
        cache = self.caches[root]
        try:
            loaded = cache.parse(os.path.join(root, path), cache.read_text(os.path.join(root, path)))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        return loaded.data if loaded.error is None else None


def same_value(before: Any, after: Any) -> bool:
    """Equal and of the same types all the way down: ``1`` and ``1.0``, ``"yes"`` and ``yes``
    template differently though Python finds them equal."""
    if type(before) is not type(after):
        return False
    if isinstance(before, dict):
        return before.keys() == after.keys() and all(same_value(before[key], after[key]) for key in before)
    if isinstance(before, list | tuple):
        return len(before) == len(after) and all(map(same_value, before, after))
    return bool(before == after)


def _variables_path(path: str) -> bool:
    parts = path.split(os.sep)
    return path.endswith((".yml", ".yaml", ".json")) and "meta" not in parts and \
        any(part in VARIABLES_DIRECTORIES for part in parts[:-1])


RUN_FILES = (".yml", ".yaml", ".json", ".ini", ".cfg", ".toml")
"""What a change to may change the run before anything runs: playbooks, task files, variables,
inventories, ansible.cfg (a template, a script, a Python plugin runs only in the run). One
changed other than as a variables file keeps every answer of the plays reading it from being
taken, though the new side's reading may not name it (a ``vars_files`` entry each host names
from its values is read host by host)."""


def may_change_the_run(path: str) -> bool:
    """Whether a changed file can change what the plan says: one ansible reads as YAML, JSON or
    an inventory (a file without a suffix in an inventory's group_vars/host_vars, or an ini one)."""
    name = os.path.basename(path)
    return name.endswith(RUN_FILES) or ("." not in name and any(part in ("group_vars", "host_vars", "inventory",
                                                                          "inventories") for part in
                                                                 path.split(os.sep)))


_READ_THROUGH_FILES = frozenset({"lookup", "query", "q"})
"""A lookup reads files (the revision's, which may differ) whoever calls it."""

FOLLOWS_THE_RUN = frozenset({"hostvars", "vars", "play_hosts", " per-host", "lookup", "query", "q"})
"""Names whose value is not the files' alone: other hosts' variables as the run leaves them, the
play's host lists less the hosts failed by then, a name an earlier task set, what a lookup
reads; every ``ansible_`` name too (facts, the play's lists, the run's settings)."""


class Paired(NamedTuple):
    pairs: dict[int, int]
    """Each task of the old side's plan (by id) paired with the task at its place in the new side's."""
    before_any_change: frozenset[int]
    """The old side's paired tasks that run before anything differs (see :func:`paired_tasks`)."""


def paired_tasks(old: PlaybookView, new: PlaybookView, names: set[str] | None, changed: set[str],
                 inventory: list[str], roots: tuple[str, str]) -> Paired | None:
    """With an inventory: each task of the old side's plan (by id) paired with the task at its
    place in the new side's, in each play whose reading is the same on both sides; None when no
    task can be paired. ``roots``: the old and the new side's directories.

    When the change sets no variable differently (it changes plays, tasks or roles) or only in a
    role's defaults or vars, the plays before the first one whose reading differs or that uses
    such a role (or includes a role at run time) run alike on both sides, host by host: the same
    plays with the same values after the same earlier plays. Their tasks' answers then differ
    only where they read the revision's directory or a file through a lookup, whatever else they
    read (facts, other hosts' variables, what earlier tasks set): ``before_any_change``.

    A play's reading is the same when it read none of the changed files but as variables (its
    tasks, roles and the conditions and keywords on their way are then written alike), its tasks
    are keyed alike, and no template the reading of either side made read a name the change sets
    differently. Both sides then ask a paired task the same questions, host by host, and an answer
    that read none of the names the change sets differently nor any the run sets is the same
    (:func:`outcomes_alike`): what a changed play does before it (the facts its tasks set, the
    hosts it fails) reaches a later play's task only through those names and the hosts asked.
    No task is paired when a changed file may be more than a play reads: inside the inventory
    (its hosts and groups), a setting, a file named by each host's values (``vars_files``
    templated), or when an include_vars, add_host or group_by sets names not told."""
    if names is None or old.plan is None or new.plan is None or old.problem is not None:
        return None
    if not all(_loads_alike(view, names) for view in (old, new)):
        return None
    structure = {path for path in changed if _STRUCTURE + path in names}
    for path in changed:
        inside = any(path == source or path.startswith(source.rstrip(os.sep) + os.sep) for source in inventory)
        if inside and not _variables_path(path):
            return None  # the inventory's own hosts and groups changed
    if any(_read_as_no_play(path) for path in structure):
        return None  # a setting changes how every play is read and run
    if any(path.endswith(RUN_FILES) for path in structure) and \
            any(per_host_vars_files(play) for view in (old, new) for play in view.plan.plays):
        return None  # a file each host names may be the changed one, read by no play as it loads
    if len(old.plays) != len(new.plays):
        return None
    from engine.flow.outcome_log import names_set_in

    tasks = [task for view in (old, new) for play in view.plays for task in play.play.all_tasks()]
    if READS_ALL in names_set_in(tasks):
        return None  # an include_vars, add_host or group_by: no answer would be taken (outcomes_alike)
    pairs: dict[int, int] = {}
    before: set[int] = set()
    # the variables files the change sets names in differently
    variables = set(changed) - structure if any(not name.startswith(_STRUCTURE) for name in names) else set()
    # a role's defaults and vars reach only the plays using the role, which read them as they load
    alike_so_far = all(_ROLE_SCOPED.search(path) for path in variables)
    for old_play, new_play in zip(old.plays, new.plays, strict=True):
        old_tasks, new_tasks = list(old_play.play.all_tasks()), list(new_play.play.all_tasks())
        reads = [_reads(play.play, root) for play, root in ((old_play, roots[0]), (new_play, roots[1]))]
        if old_play.key != new_play.key or any(read & structure for read in reads) or \
                len(old_tasks) != len(new_tasks) or any(old.keys.get(id(one)) != new.keys.get(id(other))
                                                        for one, other in zip(old_tasks, new_tasks, strict=True)):
            alike_so_far = False  # this play may run otherwise: so may every later one
            continue
        pairs.update(zip(map(id, old_tasks), map(id, new_tasks), strict=True))
        if variables and (any(read & variables for read in reads) or
                          any(task.action in kw.INCLUDE_ROLE for task in [*old_tasks, *new_tasks])):
            alike_so_far = False  # it sees the names set differently (a role included at run time may)
        if alike_so_far:
            before.update(map(id, old_tasks))
    return Paired(pairs, frozenset(before)) if pairs else None


_ROLE_SCOPED = re.compile(r"(?:^|/)roles/[^/]+/(?:defaults|vars)/")
"""A role's variables files: only a play using the role sees what they set."""


_SETTINGS = (".cfg", ".toml")
"""Files of settings (ansible.cfg and the like) rather than of plays or variables."""


def _read_as_no_play(path: str) -> bool:
    """Whether a changed file is read by no play as it loads, but by every one through what it
    sets: the settings, or a host's or group's variables file without a suffix."""
    return path.endswith(_SETTINGS) or ("." not in os.path.basename(path) and may_change_the_run(path))


def _loads_alike(view: PlaybookView, names: set[str]) -> bool:
    """Whether no template ``view``'s reading made read a name set differently by the change or
    naming the revision's directory, and all its names could be told."""
    return view.names is not None and not (view.names & names or view.names & ROOTED_NAMES or READS_ALL in view.names)


def _reads(play: Any, root: str) -> set[str]:
    """The files resolving ``play`` read, relative to the side's ``root``."""
    real, state = os.path.realpath(root), files_state()
    return {relative for file in play.reads if (relative := within(file, real, state)) is not None}


def outcomes_alike(names: set[str], logged: Any,
                   before_any_change: frozenset[int] = frozenset()) -> Callable[[Any, frozenset[str], int], bool]:
    """Whether a task's answer on the new side (whose plan is ``logged``), which read ``read``, is
    the old side's task's (by id, in its plan ``plan``): none of
    those names is one the change sets differently, names the revision's directory or follows
    the run (:data:`FOLLOWS_THE_RUN`), and neither side has cached facts or a task that sets one
    of them (or sets names not told): the new side's tasks, those its includes loaded too, are all
    known once it is planned, the old side's up to the task. For a task ``before_any_change``
    (:func:`paired_tasks`), none of them names the revision's directory or reads through a lookup."""
    from engine.flow.outcome_log import names_set_in
    from engine.variables.play_order import play_order

    refused = names | ROOTED_NAMES | FOLLOWS_THE_RUN
    kept: dict[int, tuple[int, frozenset[str]]] = {}

    def set_in(plan: Any) -> frozenset[str]:
        orders = [play_order(play_plan.play) for play_plan in plan.plays]
        size = sum(len(order.tasks) for order in orders)
        found = kept.get(id(plan))
        if found is None or found[0] != size:  # an include planned meanwhile loaded tasks
            tasks = [task for order in orders for task in order.tasks]
            tasks += [task for play_plan in plan.plays for task in play_plan.play.all_tasks()]  # handlers too
            found = kept[id(plan)] = (size, names_set_in(tasks))
        return found[1]

    def usable(plan: Any, read: frozenset[str], task: int) -> bool:
        if getattr(plan, "facts", None) or getattr(logged, "facts", None):
            return False
        if task in before_any_change:  # a computed name (hostvars[...][...]) reads what is alike too
            return not read & (ROOTED_NAMES | _READ_THROUGH_FILES)
        if READS_ALL in read:
            return False
        if read & refused or any(name.startswith("ansible_") for name in read):
            return False
        setters = set_in(plan) | set_in(logged)
        return READS_ALL not in setters and not read & setters

    return usable

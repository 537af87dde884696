"""Static resolution of playbooks: plays, roles, imports and blocks into the :mod:`engine.loading.model`.

Follows ansible-core's loading (``Playbook``, ``Play``, ``helpers.load_list_of_*``,
``Role.compile``, ``IncludeRole.get_block_list``, ``PlaybookInclude``) closely enough that
the listing is identical, while recording for every task the frames it inherits from.
Nothing here executes code from the repository; templating is sandboxed and static.
Problems are collected as values on the resulting :class:`~engine.loading.model.Playbook`.

The resolver is built of parts, one per level: plays (:mod:`engine.loading.plays`), blocks
and tasks (:mod:`engine.loading.tasks`), task files imported or included
(:mod:`engine.loading.imports`), over what they share (:mod:`engine.loading.frames`); this
module holds the playbook level and ``import_playbook``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from engine.config import AnsibleConfig
from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.context import Ctx
from engine.loading.frames import EXIT_CRASH, EXIT_ERROR
from engine.loading.imports import ImportLoading, PendingInclude
from engine.loading.model import (
    Block,
    Frame,
    Play,
    Playbook,
    Problem,
)
from engine.loading.plays import PlayLoading
from engine.loading.roles import MAX_ROLE_USES, RoleLoader
from engine.loading.shared_plays import SharedPlay, frames_key, used_again
from engine.loading.tasks import MAX_ENTRIES, TaskLoading, TooLarge
from engine.plugins.collection_search import CollectionFinder, collection_roots
from engine.plugins.names import PluginNames, plugin_names_for
from engine.span import Span, YMap, YSeq
from engine.templating.load_time import (
    READS_ALL,
    as_dict,
    names_recorded,
    note_names,
)
from engine.variables.magic import load_time_variables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.shared_roles import SharedRole
    from engine.parsing.source import SourceCache

# import_playbook within import_playbook: ansible-core 2.19 (Python's default recursion limit)
# lists a chain of 321; a play in the 322nd to 324th imported file crashes it (RecursionError,
# exit 250), and loading the 325th fails as "YAML parsing failed" (exit 4).
PLAYBOOK_IMPORT_CRASH_DEPTH = 322
PLAYBOOK_IMPORT_PARSE_DEPTH = 325
_FLATTEN_HINT = "Import the deepest playbooks directly from a playbook nearer the top."
Reuse = Callable[[tuple[tuple[str, int], ...]], Play | None]


class Resolver(PlayLoading, TaskLoading, ImportLoading):
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
        # ansible's warnings while loading (an imported file that is empty), each with whether it
        # was met under a dynamic include (then the run shows it when it loads the include)
        self.load_warnings: list[tuple[bool, str]] = []
        self.follow_dynamic = follow_dynamic
        self.reuse: Reuse | None = None
        self._settings_key: str | None = None  # what a shared play's resolution depends on of this resolver
        self._requirements: tuple[str, ...] | None = None
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
        self._pending_includes: list[PendingInclude] = []  # followed once their play is loaded
        self._listed_roles_handlers: list[Block] = []  # of the play being loaded's roles: entries

    def load_playbook(self, path: str, refresh: bool = True, reuse: Reuse | None = None) -> Playbook:
        """Load and resolve a playbook. ``refresh=False`` keeps the memoised file-system
        answers of earlier loads, for callers that load many playbooks of an unchanging tree.
        ``reuse`` maps a play's position to an earlier resolution of it that is still valid
        (none of its reads changed), which is then taken as it is."""
        self.problems = []
        self.load_warnings = []
        self._pending_includes = []
        self.reuse = reuse
        self.entries = 0
        self.roles.uses = 0
        if refresh:
            paths.clear_cache()
        book = Playbook(path)
        playbook_dirs = self.playbook_dirs or [os.path.dirname(os.path.abspath(path))]
        self._loaded_dirs = playbook_dirs
        self._requirements: tuple[str, ...] | None = None
        self.collections = self.finder(playbook_dirs)
        self.default_collection = self.collections.collection_of(path)
        self.plugins = plugin_names_for(self.collections, self.config.library, self.config.action_plugins)
        for directory in playbook_dirs:
            self.plugins.add_plugin_dirs(directory)
        try:
            book.plays = self._playbook_plays(path, (), (), {}, None, ())
        except TooLarge as exc:
            self.problem("invalid-structure", f"{path} expands to more than {exc.limit:,} tasks; playbook-ls "
                         "stopped resolving it", Span(path, 0, 0, 0, 0),
                         "Check the imports: a task file imported from many places, or a very long one, "
                         "multiplies the tasks.")
        book.problems = self.problems
        book.plugins = self.plugins
        return book

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
            note_names((READS_ALL,))  # what its templates read was not kept
            return earlier
        shared_plays = self.sources.shared_plays if self.reuse is None else None
        key = self._share_key(path, position[-1][1], outer, outer_vars) if shared_plays is not None else None
        if key is not None:
            shared = shared_plays.get(key)
            if shared is None and self.sources.partner_plays is not None:
                shared = self.sources.partner_plays.get(key, position)
            if shared is not None and self._take_over(shared):
                return used_again(shared, position, frozenset(shared.reads).union(real for real, _ in position))
        first_problem = len(self.problems)
        entries, uses = self.entries, self.roles.uses
        with self.sources.tracking() as read, names_recorded() as names:
            play = self._play(ds, path, basedir, outer, outer_vars)
        if play is not None:
            play.position = position
            play.reads = frozenset(read).union(real for real, _index in position)
            play.problems = self.problems[first_problem:]
            play.load_reads = frozenset(names)
            if key is not None and self.plugins is not None and (len(position) > 1 or shared_plays.every_play):
                shared_plays.put(key, SharedPlay(play, tuple(read), tuple(play.problems),
                                                 tuple(self.plugins.module_paths), tuple(self.plugins.action_paths),
                                                 self.entries - entries, self.roles.uses - uses,
                                                 self.unchecked_modules, frozenset(names)))
        return play

    def _share_key(self, path: str, index: int, outer: tuple[Frame, ...],
                   outer_vars: dict[str, Any]) -> tuple[Any, ...] | None:
        """What the play's resolution depends on besides its files (:mod:`engine.loading.shared_plays`);
        None when it cannot be shared."""
        if self.plugins is None:
            return None
        return (path, index, frames_key(outer), repr(outer_vars) if outer_vars else "", *self.share_settings())

    def share_settings(self) -> tuple[Any, ...]:
        """What any shared resolution (a play's, a role's) depends on in the resolver: its variables
        and settings, the collections and plugin directories seen so far, the requirements files."""
        if self._settings_key is None:
            self._settings_key = repr((sorted((k, repr(v)) for k, v in self.extra_vars.items()),
                                       sorted((k, repr(v)) for k, v in self.magic.items()),
                                       self.config.path, self.follow_dynamic))
        assert self.plugins is not None  # callers share nothing without it
        return (self._settings_key, tuple(self.collections.roots), self.default_collection,
                tuple(self.plugins.module_paths), tuple(self.plugins.action_paths), self._requirements_key(),
                self.unchecked_modules)

    def _requirements_key(self) -> tuple[str, ...]:
        """The requirements files the playbook's directories see (what a missing role's hint names),
        rather than the directories: molecule scenarios in sibling directories share their plays."""
        if self._requirements is None:
            from engine.loading.requirements import requirement_files

            self._requirements = tuple(file for directory in self._loaded_dirs for file in requirement_files(directory))
        return self._requirements

    def _take_over(self, shared: SharedPlay) -> bool:
        """Replay on this resolver what resolving the shared play did to the one that did; False
        when that would cross a limit of the playbook (resolved here instead, to say where)."""
        if not self.take_over(shared):
            return False
        self.problems += shared.problems
        self.unchecked_modules = shared.unchecked_modules
        return True

    def take_over(self, shared: SharedPlay | SharedRole) -> bool:
        """Replay what any shared resolution (a play's, a role's) did to the resolver that made it:
        its task entries and role uses counted against the playbook's limits, the files it read
        (for every enclosing tracking), the names its templates read, the plugin directories once
        it was done. False, with nothing replayed, when a limit would be crossed: it is resolved
        here instead, to say where."""
        if self.entries + shared.entries > MAX_ENTRIES or self.roles.uses + shared.role_uses > MAX_ROLE_USES:
            return False
        self.entries += shared.entries
        self.roles.uses += shared.role_uses
        self.sources.record(shared.reads)
        note_names(shared.names)
        assert self.plugins is not None  # the keys have it
        self.plugins.module_paths[:] = shared.module_paths
        self.plugins.action_paths[:] = shared.action_paths
        return True

    def pending_includes(self) -> list[PendingInclude]:
        return self._pending_includes

    def module_keys_pending(self) -> list[tuple[str, tuple[str, ...], Span | None, bool]]:
        return self._module_keys

    def add_module_keys(self, keys: tuple[tuple[str, tuple[str, ...], Span | None, bool], ...]) -> None:
        self._module_keys += keys

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


__all__ = ["Ctx", "Resolver"]

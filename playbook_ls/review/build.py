"""A review from two sides: each playbook read on both (those given, else every playbook that
reads a changed file in either revision), compared by :mod:`playbook_ls.review.compare`."""

from __future__ import annotations

import os
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from engine.parsing.probes import recording
from playbook_ls.review.compare import PlaybookReview, review_playbook
from playbook_ls.review.report import Review
from playbook_ls.review.reuse import may_change_the_run, partner_plays
from playbook_ls.review.revisions import Side, changed_files, side
from playbook_ls.review.sides import PlaybookView, files_within, host_outcomes, inside, read_playbook

if TYPE_CHECKING:
    from engine.flow.plan import RunOptions
    from engine.flow.tags import Selection
    from engine.parsing.source import SourceCache


def build_review(old_spec: str, new_spec: str, playbooks: list[str], options: RunOptions,
                 selections: list[tuple[str, Selection]] | None, directory: str | None = None,
                 reuse: bool = True, taken: list[str] | None = None) -> Review:
    """``options`` is the launch (inventory, selection, extra vars) both sides are planned
    with, its ``playbook`` unused; ``playbooks`` are relative to ``directory`` (default: the
    working directory), which each side's root stands for. With ``reuse``, the old side's
    reading of a playbook is the new side's where it cannot differ (:mod:`playbook_ls.review.reuse`);
    ``taken`` receives those playbooks."""
    directory = directory or os.getcwd()
    with side(old_spec, directory) as old, side(new_spec, directory, like=old) as new:
        changed = set(changed_files(old, new))
        # finding the playbooks parses what is read; without an inventory, the new side's plays are kept for the
        # old side to take where they cannot differ (with one, their plan reads each side's values)
        caches = {one.root: _side_cache(every_play=one is new and reuse and not options.inventory)
                  for one in (old, new)}
        roots = tuple({path for one in (old, new) for path in (one.root, os.path.realpath(one.root))})
        caches[old.root].share_parses(caches[new.root], roots)  # the files outside both trees: parsed once
        wanted = [os.path.relpath(os.path.join(directory, path), directory) for path in playbooks]
        inventories = {os.path.normpath(source) for source in options.inventory}
        if not wanted and any(may_change_the_run(path) or path in inventories for path in changed):
            wanted = _entry_points(new, _playbooks_of_both(old, new, changed, caches), caches[new.root])
        described: dict = {}  # the tasks' views, kept across the sides: the old side takes plays from the new
        # with an inventory, the plan asks more of each host (a vars file per host) after the reading
        appearing = _appearing(old, new, changed) if reuse and not options.inventory else {}
        with recording(new.root) if appearing else nullcontext() as probes:
            new_views = _read(new, wanted, options, caches[new.root], described)
        # a file only one side has, which no resolution of the new side asked about, is no input of
        # any: the old side's resolutions ask what the new side's asked until an input differs
        unasked = {path for path, existing in appearing.items()
                   if probes is not None and not any(probes.asked_about(one) for one in existing)}
        reading_changed = changed - unasked
        # a playbook none of whose reads changed reads the same files, alike, in the old revision
        # (each file read names the next): only a file the new revision no longer has can hide one
        gone = any(not os.path.lexists(os.path.join(new.root, path)) for path in reading_changed)
        # a changed inventory source reaches every playbook planned with it
        inventory_changed = any(path == source or path.startswith(source + os.sep)
                                for path in changed for source in inventories)
        # with an inventory, a playbook whose run loads files the reading did not may read a changed one
        run_file_changed = any(may_change_the_run(path) for path in changed)
        at_run = bool(options.inventory) and run_file_changed
        again = [path for path in wanted if playbooks or gone or inventory_changed or new_views[path].reads & changed
                 or new_views[path].problem or (at_run and new_views[path].loads_at_run)]
        same = _alike_on_both(old, new, reading_changed, options, [new_views[path] for path in again], caches) \
            if reuse else set()
        if taken is not None:
            taken += [path for path in again if path in same]
        old_views = {path: new_views[path] for path in again if path in same}
        if caches[new.root].shared_plays.every_play:
            caches[old.root].partner_plays = partner_plays(old, new, reading_changed, caches)
        old_views.update(_read(old, [path for path in again if path not in same], options, caches[old.root],
                               described, new.root))
        chosen = [path for path in wanted if path in old_views and
                  (playbooks or inventory_changed or _reaches(old_views[path], new_views[path], changed)
                   or (at_run and (old_views[path].loads_at_run or new_views[path].loads_at_run)))]
        outcomes = _outcomes(old, new, changed, options, chosen, old_views, new_views, caches, reuse) \
            if options.inventory else {}
        # what the plans loaded host by host is read too: a playbook none of whose reads changed is not shown
        chosen = [path for path in chosen if playbooks or inventory_changed
                  or _reaches(old_views[path], new_views[path], changed)]
        reviews = []
        for path in chosen:
            pair = (outcomes[(old.root, path)], outcomes[(new.root, path)]) if options.inventory else None
            reviews.append(review_playbook(old_views[path], new_views[path], selections, pair, changed))
        value_notes: list[str] = []
        if options.inventory:
            _add_value_changes(old, new, changed, [(old_views[p], new_views[p], r) for p, r in zip(chosen, reviews,
                                                                                                strict=True)],
                               value_notes, caches)
        plans = [new_views[path].plan for path in chosen if new_views[path].plan is not None]
        groups = plans[0].inventory.data.get_groups_dict() if plans and options.inventory else {}
        loads_at_run = [path for path in wanted if not options.inventory and run_file_changed and path not in chosen
                        and new_views[path].loads_at_run]
        return Review(old.label, new.label, sorted(changed), reviews, list(options.inventory),
                      [*old.notes, *new.notes, *_inventory_notes(new_views, chosen), *value_notes],
                      {name: list(hosts) for name, hosts in groups.items()}, loads_at_run)


def _outcomes(old: Side, new: Side, changed: set[str], options: RunOptions, chosen: list[str],
              old_views: dict[str, PlaybookView], new_views: dict[str, PlaybookView],
              caches: dict[str, SourceCache], reuse: bool) -> dict[tuple[str, str], Any]:
    """Each side's outcomes per task and host, by (side root, playbook). The new side is planned
    first; with ``reuse``, the old side takes a task's answer from it where it cannot differ
    (:func:`playbook_ls.review.reuse.paired_tasks`)."""
    from engine.flow.outcome_log import OutcomeLog, OutcomeReplay
    from playbook_ls.review.reuse import names_set_differently, outcomes_alike, paired_tasks

    names = names_set_differently(old, new, changed, caches) if reuse else None
    found: dict[tuple[str, str], Any] = {}
    replays = {}
    for path in chosen:
        pairs = paired_tasks(old_views[path], new_views[path], names, changed, list(options.inventory),
                             (old.root, new.root)) \
            if names is not None else None
        if pairs is not None:
            log = new_views[path].plan.outcome_log = OutcomeLog()  # type: ignore[union-attr]
            replays[path] = OutcomeReplay(log, pairs.pairs, outcomes_alike(names or set(), new_views[path].plan,
                                                                           pairs.before_any_change))
    for one, views in ((new, new_views), (old, old_views)):
        with inside(one.root):
            for path in chosen:
                view = views[path]
                if one is old and path in replays:
                    view.plan.outcome_replay = replays[path]  # type: ignore[union-attr]
                with caches[one.root].tracking() as read:
                    found[(one.root, path)] = host_outcomes(view, view.plan) if view.plan else {}
                if view.loads_at_run:
                    view.reads |= files_within(read, os.path.realpath(one.root))
    for path in replays:  # the plans are kept for the values compared next: nothing more to take
        new_views[path].plan.outcome_log = old_views[path].plan.outcome_replay = None  # type: ignore[union-attr]
    return found


def _alike_on_both(old: Side, new: Side, changed: set[str], options: RunOptions,
                   views: list[PlaybookView], caches: dict[str, SourceCache]) -> set[str]:
    """The playbooks whose old reading is their new one (:mod:`playbook_ls.review.reuse`)."""
    from playbook_ls.review.reuse import differing_names, reusable

    names = differing_names(old, new, changed, list(options.inventory), caches)
    return set() if names is None else {view.path for view in views if reusable(view, names, changed)}


def _add_value_changes(old: Side, new: Side, changed: set[str],
                       playbooks: list[tuple[PlaybookView, PlaybookView, PlaybookReview]], notes: list[str],
                       caches: dict[str, SourceCache]) -> None:
    """The values that change at the tasks that read what a changed variables file or a changed
    inventory source sets; ``notes`` receives the hosts whose values were not compared."""
    from engine.parsing.source import files_changed
    from playbook_ls.review.compare import matched
    from playbook_ls.review.values import (
        affected_names,
        changed_names,
        compare_values,
        inventory_names,
        read_names,
        values_at,
    )

    files_names = changed_names(old.root, new.root, changed, caches)
    for old_view, new_view, review in playbooks:
        if old_view.plan is None or new_view.plan is None:
            continue
        names = files_names | inventory_names(old_view.plan, new_view.plan)
        if not names:
            continue
        affected = affected_names([old.root, new.root], old_view.reads | new_view.reads, names)
        pairs = matched(old_view, new_view)
        reading = {new_view.keys[id(task)] for play in new_view.plays for task in play.play.all_tasks()
                   if id(task) in new_view.keys and read_names(task) & affected}
        pairs = {old_key: new_key for old_key, new_key in pairs.items() if new_key in reading}
        found = []
        for one, view, keys in ((old, old_view, set(pairs)), (new, new_view, set(pairs.values()))):
            files_changed()  # the other side's files stand at the same paths
            with inside(one.root):
                found.append(values_at(view, keys, affected, notes if one is new else None))
        review.values = compare_values(found[0], found[1], pairs, new_view.views())


def _appearing(old: Side, new: Side, changed: set[str]) -> dict[str, list[str]]:
    """The changed paths only one side has, each with the paths whose existence differs with it
    (itself and the directories on its way only one side has). A changed path that is a link on
    either side is left out: what a link leads to differs beyond its own path."""
    found = {}
    for path in changed:
        here = [os.path.join(one.root, path) for one in (old, new)]
        if os.path.lexists(here[0]) == os.path.lexists(here[1]) or any(os.path.islink(one) for one in here):
            continue
        existing, directory = [path], os.path.dirname(path)
        while directory and os.path.isdir(os.path.join(old.root, directory)) != \
                os.path.isdir(os.path.join(new.root, directory)):
            existing.append(directory)
            directory = os.path.dirname(directory)
        found[path] = existing
    return found


def _side_cache(every_play: bool = False) -> SourceCache:
    from engine.loading.shared_plays import SharedPlays
    from engine.parsing.source import SourceCache

    cache = SourceCache()
    cache.shared_plays = SharedPlays(every_play=every_play)  # entry playbooks import the same plays: each resolved once
    return cache


def _read(one: Side, paths: list[str], options: RunOptions, cache: SourceCache, seen: dict,
          partner: str | None = None) -> dict[str, PlaybookView]:
    """The views of ``paths`` on side ``one``; ``seen``: the views of tasks described before
    (:func:`playbook_ls.review.sides.read_playbook`); ``partner``: the root of the side whose plays
    its resolutions take (their tasks are named relative to it)."""
    from engine.parsing.source import files_changed

    files_changed()  # the other side's files stand at the same paths: nothing read from them is kept
    with inside(one.root):
        return {path: read_playbook(one.root, path, options, cache, seen, partner) for path in paths}


def _reaches(old: PlaybookView, new: PlaybookView, changed: set[str]) -> bool:
    """Whether the playbook's run may change: it reads a changed file, or only one side has it."""
    return bool((old.reads | new.reads) & changed) or (old.problem is None) != (new.problem is None)


def _entry_points(one: Side, playbooks: list[str], cache: SourceCache) -> list[str]:
    """The playbooks no other imports plainly (no tags, when or vars on the import): one that is
    runs there as on its own, and is reviewed there (``check`` resolves them alike)."""
    from playbook_ls.check.discover import plain_imports, standalone_playbooks

    def imports_of(path: str) -> list[str]:
        loaded = cache.load(path) if os.path.isfile(path) else None
        return plain_imports(loaded.data) if loaded is not None and loaded.error is None else []

    with inside(one.root):
        return standalone_playbooks(playbooks, imports_of, set())


def _playbooks_in(root: str, cache: SourceCache | None = None, among: list[str] | None = None) -> list[str]:
    """The playbooks of the side (by content, outside roles, but the test playbooks of a
    repository that is a role), relative to its root: of its YAML files, or of those ``among``
    them (absolute paths)."""
    from engine.parsing.source import SourceCache
    from playbook_ls.check.discover import looks_like_playbook, role_of, yaml_files

    cache = cache or SourceCache()
    found = []
    for path in yaml_files([root], [], root) if among is None else among:
        role = role_of(path)
        if role is not None and not _tests_of_the_role(path, role, root) or not _may_hold_a_play(path, cache):
            continue
        loaded = cache.load(path)
        if loaded.error is None and looks_like_playbook(loaded.data):
            found.append(os.path.relpath(path, root))
    return found


def _tests_of_the_role(path: str, role: str, root: str) -> bool:
    """Whether ``path`` is in the ``tests`` or ``molecule`` directory of the role that the
    repository is (a role's own repository, whose test playbooks are what runs it): the playbooks
    a change to the role reaches."""
    if os.path.realpath(role) != os.path.realpath(root):
        return False
    return os.path.relpath(path, role).split(os.sep, 1)[0] in ("tests", "molecule")


def _may_hold_a_play(path: str, cache: SourceCache) -> bool:
    """Whether the text of ``path`` can parse to a playbook: a play is a mapping with one of the
    play keys, which YAML writes as it is unless through an escape (a backslash in a quoted
    key). Most YAML files of a repository (variables, inventories, CI) hold none of them, and are
    then not parsed to find the playbooks."""
    from playbook_ls.check.discover import PLAY_KEYS

    try:
        text = cache.read_text(path)
    except (OSError, UnicodeDecodeError, ValueError):
        return True  # loading it says why it cannot be read
    return "\\" in text or any(key in text for key in PLAY_KEYS)


def _playbooks_of_both(old: Side, new: Side, changed: set[str], caches: dict[str, SourceCache]) -> list[str]:
    """The playbooks of either side. When the change adds, removes or links no file and leaves
    .gitignore alone, both sides have the same YAML files in the same directories, and an
    unchanged one is a playbook on both or on neither: only the changed ones are read again."""
    from playbook_ls.check.discover import yaml_files

    files = yaml_files([new.root], [], new.root)
    found = set(_playbooks_in(new.root, caches[new.root], files))
    alike = all(os.path.isfile(os.path.join(one.root, path)) and not os.path.islink(os.path.join(one.root, path))
                and os.path.basename(path) != ".gitignore" for path in changed for one in (old, new))
    if not alike:
        return sorted(found | set(_playbooks_in(old.root, caches[old.root])))
    yaml = {os.path.relpath(path, new.root) for path in files}
    among = [os.path.join(old.root, path) for path in sorted(changed) if path in yaml]
    return sorted(found | set(_playbooks_in(old.root, caches[old.root], among)))


def _inventory_notes(views: dict[str, PlaybookView], chosen: list[str]) -> list[str]:
    notes: list[str] = []
    for path in chosen:
        plan = views[path].plan
        for note in getattr(getattr(plan, "inventory", None), "notes", ()):
            if note not in notes:
                notes.append(f"{note} (nothing from the repository runs: the hosts it would add are not compared)")
    return notes


"""What changes in the run between the two sides of a review, playbook by playbook: the tasks
added, removed, renamed and moved; for each tag selection that matters, the tasks that now run
and those that no longer do, with the tags that make the difference and where they come from;
with an inventory, the outcomes that change per host (hosts that change alike together); the
notifications that no longer reach a handler; the changed files each playbook reads."""

from __future__ import annotations

from collections import ChainMap, Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playbook_ls.review.sides import PlaybookView, TaskKey, TaskView, TaskViews, listed

if TYPE_CHECKING:
    from engine.flow.tags import Selection

MAX_SELECTIONS = 30
"""Tags a change touches that get a selection of their own; more are named, not compared."""


@dataclass
class TaskChange:
    kind: str
    """``added``, ``removed``, ``renamed``, ``moved``, or ``changed`` (its tags, conditions or
    notifications)."""
    old: TaskView | None
    new: TaskView | None
    details: list[str] = field(default_factory=list)

    @property
    def task(self) -> TaskView:
        return self.new or self.old  # type: ignore[return-value]


@dataclass
class Listed:
    task: TaskView
    why: str
    before: TaskView | None = None
    """The task in the old revision (None: a new task)."""


@dataclass
class SelectionChange:
    label: str
    """As it is given on ansible-playbook's command line (``(no --tags)`` for the default)."""
    now_runs: list[Listed] = field(default_factory=list)
    no_longer_runs: list[Listed] = field(default_factory=list)
    reordered: list[Listed] = field(default_factory=list)
    """Tasks listed in both revisions whose place among the others listed in both changed
    (:func:`order_changes`), in the new order, with where each now comes and where it came."""

    def differs(self) -> bool:
        return bool(self.now_runs or self.no_longer_runs or self.reordered)


@dataclass
class HostChange:
    task: TaskView
    before: tuple[str, str] | None
    """(outcome, reason) in the old revision; None: the task or the host was not there."""
    after: tuple[str, str] | None
    hosts: list[str]


@dataclass
class NotificationChange:
    task: TaskView
    notification: str
    before: str | None
    """The handler it reached in the old revision (None: it reached none there, or is new)."""


@dataclass
class PlaybookReview:
    path: str
    problems: tuple[str | None, str | None] = (None, None)
    tasks: list[TaskChange] = field(default_factory=list)
    selections: list[SelectionChange] = field(default_factory=list)
    unchecked_tags: list[str] = field(default_factory=list)
    """Tags the change touches beyond ``MAX_SELECTIONS``: named, not compared."""
    hosts: list[HostChange] = field(default_factory=list)
    notifications: list[NotificationChange] = field(default_factory=list)
    handler_order: list[Listed] = field(default_factory=list)
    """Handlers both revisions' plays define whose place among the others changed: the handlers
    notified before one flush run in the order their play defines them."""
    reaches: list[str] = field(default_factory=list)
    """The changed files it reads (in either revision)."""
    values: list[Any] = field(default_factory=list)
    """With an inventory, the values a task reads that the change changes on some hosts
    (:class:`playbook_ls.review.values.ValueChange`)."""

    def empty(self) -> bool:
        return not (self.tasks or any(s.differs() for s in self.selections) or self.hosts or self.handler_order
                    or self.notifications or self.values or self.problems[0] != self.problems[1])


def matched(old: PlaybookView, new: PlaybookView) -> dict[TaskKey, TaskKey]:
    """Old key -> new key of each task both sides have: the same key, else (a rename) the same
    play, action and body under another name, else (another module, other arguments) the same
    play and name, in order; each new task taken once."""
    return paired(old.views(), new.views())


def paired(old_tasks: Mapping[TaskKey, TaskView], new_tasks: Mapping[TaskKey, TaskView]) -> dict[TaskKey, TaskKey]:
    """:func:`matched` of two sets of task views: a reading's, or those its includes load at run time."""
    pairs = {key: key for key in old_tasks if key in new_tasks}
    taken = set(pairs.values())
    by_body: dict[tuple[str, str, str], list[TaskKey]] = {}
    for key in new_tasks:
        if key not in taken:
            by_body.setdefault((key[0], key[2], new_tasks[key].body), []).append(key)
    for key in old_tasks:
        if key in pairs:
            continue
        candidates = by_body.get((key[0], key[2], old_tasks[key].body))
        if candidates:
            pairs[key] = candidates.pop(0)
    taken = set(pairs.values())
    by_name: dict[tuple[str, str], list[TaskKey]] = {}
    for key in new_tasks:
        if key not in taken:
            by_name.setdefault((key[0], key[1]), []).append(key)
    for key in old_tasks:
        if key not in pairs and by_name.get((key[0], key[1])):
            pairs[key] = by_name[(key[0], key[1])].pop(0)
    return pairs


def review_playbook(old: PlaybookView, new: PlaybookView, selections: list[tuple[str, Selection]] | None,
                    outcomes: tuple[dict[TaskKey, dict[str, tuple[str, str]]],
                                    dict[TaskKey, dict[str, tuple[str, str]]]] | None,
                    changed: set[str]) -> PlaybookReview:
    """The review of one playbook. ``selections``: the ones to compare (None: no ``--tags`` and
    each tag the change touches); ``outcomes``: per host, old and new (None: no inventory)."""
    review = PlaybookReview(new.path or old.path, (old.problem, new.problem))
    review.reaches = sorted((old.reads | new.reads) & changed)
    if old.problem or new.problem:
        return review
    if old is new and outcomes is None:
        # the old side's reading taken from the new side (playbook_ls.review.reuse): every task is
        # paired with itself and alike, so no task changes, no tag is touched, each selection
        # lists the same tasks in the same order and each notification reaches what it reached
        labels = ["(no --tags)"] if selections is None else [label for label, _ in selections]
        review.selections = [SelectionChange(label) for label in labels]
        return review
    pairs = matched(old, new)
    old_tasks, new_tasks = old.views(), new.views()
    review.tasks = _task_changes(old_tasks, new_tasks, pairs)
    if selections is None:
        touched = sorted(_touched_tags(review.tasks))
        selections = [("(no --tags)", _selection([], []))]
        selections += [(f"--tags {tag}", _selection([tag], [])) for tag in touched[:MAX_SELECTIONS]]
        review.unchecked_tags = touched[MAX_SELECTIONS:]
    for label, selection in selections:
        before, after = listed(old, selection), listed(new, selection)
        change = _selection_change(label, before, after, pairs, old_tasks, new_tasks)
        change.reordered = _reordered([key for key in old_tasks if key in before],
                                      [key for key in new_tasks if key in after], old_tasks, new_tasks)
        review.selections.append(change)
    if outcomes is not None:
        # the tasks an include loads at run time are paired as the listed ones are; no listing
        # has them, so of their changes only a rename is a task's (the rest shows on the hosts)
        before, after = (getattr(side, "loaded_at_run", {}) for side in outcomes)
        at_run = paired(before, after)
        review.tasks += [change for old_key, new_key in at_run.items()
                         if (change := _paired_change(before[old_key], after[new_key])) and change.kind == "renamed"]
        review.hosts = _host_changes(outcomes[0], outcomes[1], {**pairs, **at_run}, ChainMap(old_tasks, before),
                                     ChainMap(new_tasks, after))
    review.notifications = _notification_changes(old, new, pairs)
    review.handler_order = _handler_order(old, new)
    return review


def _selection(tags: list[str], skip: list[str]) -> Selection:
    from engine.flow.tags import Selection

    return Selection.from_options(tags, skip)


def _task_changes(old_tasks: TaskViews, new_tasks: TaskViews, pairs: dict[TaskKey, TaskKey]) -> list[TaskChange]:
    changes = []
    paired_new = set(pairs.values())
    for key in old_tasks:
        if key not in pairs:
            changes.append(TaskChange("removed", old_tasks[key], None))
    for old_key, new_key in pairs.items():
        if old_key == new_key and old_tasks.task(old_key) is not None and \
                old_tasks.task(old_key) is new_tasks.task(new_key):
            continue  # one task both sides read (a play the old side took): described alike on both
        change = _paired_change(old_tasks[old_key], new_tasks[new_key])
        if change is not None:
            changes.append(change)
    for key in new_tasks:
        if key not in paired_new:
            changes.append(TaskChange("added", None, new_tasks[key]))
    return changes


def _paired_change(before: TaskView, after: TaskView) -> TaskChange | None:
    """How a task both sides have changed: renamed, moved or changed (its tags, conditions or
    notifications); None when alike."""
    details = _differences(before, after)
    if before.name != after.name:
        return TaskChange("renamed", before, after, [f"was '{before.name}'", *details])
    if before.file != after.file:
        return TaskChange("moved", before, after, [f"was in {before.where}", *details])
    return TaskChange("changed", before, after, details) if details else None


def _differences(before: TaskView, after: TaskView) -> list[str]:
    details = [f"{after.action} (was {before.action})"] if before.action != after.action else []
    gained, lost = set(after.tags) - set(before.tags), set(before.tags) - set(after.tags)
    if gained or lost:
        details.append(_tag_words(before, after))
    if before.when != after.when:
        details.append("when: " + (" and ".join(f"`{c}` ({origin})" for c, origin in after.when) or "none")
                       + " (was " + (" and ".join(f"`{c}`" for c, _ in before.when) or "none") + ")")
    if before.notify != after.notify:
        details.append(f"notifies {list(after.notify)} (was {list(before.notify)})")
    return details


def _tag_words(before: TaskView, after: TaskView) -> str:
    """The tags a task gained (with where each now comes from) and lost (with where each came from)."""
    gained = [f"+{tag} (from {', '.join(o for t, o in after.tag_origins if t == tag)})"
              for tag in sorted(set(after.tags) - set(before.tags))]
    lost = [f"-{tag} (was from {', '.join(o for t, o in before.tag_origins if t == tag)})"
            for tag in sorted(set(before.tags) - set(after.tags))]
    return "tags " + ", ".join(gained + lost)


def _touched_tags(changes: list[TaskChange]) -> set[str]:
    touched: set[str] = set()
    for change in changes:
        before = set(change.old.tags) if change.old else set()
        after = set(change.new.tags) if change.new else set()
        touched |= before ^ after if change.old and change.new else before | after
        if change.old and change.new and bool(before) != bool(after):
            touched.add("untagged")
    return touched - {"all"}


def _selection_change(label: str, before: set[TaskKey], after: set[TaskKey], pairs: dict[TaskKey, TaskKey],
                      old_tasks: Mapping[TaskKey, TaskView], new_tasks: Mapping[TaskKey, TaskView]) -> SelectionChange:
    change = SelectionChange(label)
    back = {new: old for old, new in pairs.items()}
    moved_before = {pairs[key] for key in before if key in pairs}
    for key in sorted(after - moved_before, key=_order(new_tasks)):
        old_key = back.get(key)
        why = "a new task" if old_key is None else _why(old_tasks[old_key], new_tasks[key], selected=True)
        change.now_runs.append(Listed(new_tasks[key], why, old_tasks[old_key] if old_key is not None else None))
    for key in sorted(before, key=_order(old_tasks)):
        new_key = pairs.get(key)
        if new_key is not None and new_key in after:
            continue
        why = "removed" if new_key is None else _why(old_tasks[key], new_tasks[new_key], selected=False)
        change.no_longer_runs.append(Listed(new_tasks[new_key] if new_key else old_tasks[key], why, old_tasks[key]))
    _drop_exchanged_copies(change)
    return change


def listing_tokens(names: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """Each (play name, task name) of a listing, in its order, with how many alike came before it."""
    seen: Counter[tuple[str, str]] = Counter()
    tokens = []
    for name in names:
        tokens.append((*name, seen[name]))
        seen[name] += 1
    return tokens


def order_changes(before: list[tuple[str, str]], after: list[tuple[str, str]]) -> list[int]:
    """The places, in ``after``, of the tasks two listings (each (play name, task name) in the
    order ansible lists them) both list whose order among those both list changed: all but a
    longest sequence both keep in order (the first such, deterministically). A task listed under
    a name only one listing has (added, removed, renamed) is no part of it. A function of the
    two listings alone, so that ansible's own listings give the same answer."""
    old_tokens, new_tokens = listing_tokens(before), listing_tokens(after)
    common = set(old_tokens) & set(new_tokens)
    old_seq = [token for token in old_tokens if token in common]
    new_places = [place for place, token in enumerate(new_tokens) if token in common]
    new_seq = [new_tokens[place] for place in new_places]
    if old_seq == new_seq:
        return []
    kept = _longest_in_order(old_seq, new_seq)
    return [place for place, token in zip(new_places, new_seq, strict=True) if token not in kept]


def _longest_in_order(old_seq: list[Any], new_seq: list[Any]) -> set[Any]:
    """The tokens of a longest subsequence of ``new_seq`` in ``old_seq``'s order (both hold the
    same distinct tokens): a longest increasing subsequence of their old places, O(n log n)."""
    from bisect import bisect_left

    place = {token: index for index, token in enumerate(old_seq)}
    ranks = [place[token] for token in new_seq]
    tails: list[int] = []  # tails[k]: the index in ranks ending the best run of length k + 1
    tail_ranks: list[int] = []
    before: list[int] = [-1] * len(ranks)
    for index, rank in enumerate(ranks):
        at = bisect_left(tail_ranks, rank)
        before[index] = tails[at - 1] if at else -1
        if at == len(tails):
            tails.append(index)
            tail_ranks.append(rank)
        else:
            tails[at], tail_ranks[at] = index, rank
    kept = set()
    index = tails[-1] if tails else -1
    while index >= 0:
        kept.add(new_seq[index])
        index = before[index]
    return kept


def _handler_order(old: PlaybookView, new: PlaybookView) -> list[Listed]:
    """The handlers :func:`_reordered` finds moved among those both revisions' plays define, in
    the order each play defines them (its roles' handlers first, as ansible flushes them)."""
    from playbook_ls.review.sides import HandlerViews

    before, after = HandlerViews(old), HandlerViews(new)
    return [] if list(before) == list(after) else _reordered(list(before), list(after), before, after)


def _reordered(before: list[TaskKey], after: list[TaskKey], old_tasks: Mapping[TaskKey, TaskView],
               new_tasks: Mapping[TaskKey, TaskView]) -> list[Listed]:
    """The tasks of ``after`` (a side's listing, in order, by key) :func:`order_changes` finds
    moved among those ``before`` lists too, each with the task it now follows and the one it
    followed."""
    def names(keys: list[TaskKey]) -> list[tuple[str, str]]:
        return [(key[0].split("\t")[0], key[1]) for key in keys]  # a key holds the printed name

    old_names, new_names = names(before), names(after)
    moved = order_changes(old_names, new_names)
    if not moved:
        return []
    old_tokens, new_tokens = listing_tokens(old_names), listing_tokens(new_names)
    common = set(old_tokens) & set(new_tokens)
    old_place = {token: index for index, token in enumerate(old_tokens)}

    def follows(tokens: list[tuple[str, str, int]], index: int) -> str:
        """After which task both list it comes (in its play)."""
        earlier = [token for token in tokens[:index] if token in common and token[0] == tokens[index][0]]
        return f"after '{earlier[-1][1]}'" if earlier else "first"

    found = []
    for place in moved:
        token = new_tokens[place]
        was = old_place[token]
        why = f"now {follows(new_tokens, place)} (was {follows(old_tokens, was)})"
        found.append(Listed(new_tasks[after[place]], why, old_tasks[before[was]]))
    return found


def _drop_exchanged_copies(change: SelectionChange) -> None:
    """A copy of a task (a task file imported at several places, the copies printed alike) that
    now runs where another copy of it no longer does leaves the listing as it was: neither is
    claimed, one for one."""
    def copy_of(task: TaskView) -> tuple[str, str, str, str | None, int | None]:
        return task.key[0], task.name, task.action, task.file, task.line

    gained = Counter(copy_of(entry.task) for entry in change.now_runs)
    exchanged = Counter[tuple[str, str, str, str | None, int | None]]()
    kept = []
    for entry in change.no_longer_runs:
        copy = copy_of(entry.before or entry.task)
        if exchanged[copy] < gained[copy]:
            exchanged[copy] += 1
        else:
            kept.append(entry)
    change.no_longer_runs = kept
    now_runs = []
    for entry in change.now_runs:
        copy = copy_of(entry.task)
        if exchanged[copy] > 0:
            exchanged[copy] -= 1
        else:
            now_runs.append(entry)
    change.now_runs = now_runs


def _order(tasks: Mapping[TaskKey, TaskView]):  # noqa: ANN202 - a sort key over the side's task order
    place = {key: index for index, key in enumerate(tasks)}
    return lambda key: place.get(key, len(place))


def _why(before: TaskView, after: TaskView, selected: bool) -> str:
    if before.tags != after.tags:
        return _tag_words(before, after)
    return f"its tags are the same ({', '.join(after.tags) or 'none'}): the selection reaches it otherwise"


def _host_changes(before: dict[TaskKey, dict[str, tuple[str, str]]], after: dict[TaskKey, dict[str, tuple[str, str]]],
                  pairs: dict[TaskKey, TaskKey], old_tasks: Mapping[TaskKey, TaskView],
                  new_tasks: Mapping[TaskKey, TaskView]) -> list[HostChange]:
    grouped: dict[tuple[TaskKey, object, object], HostChange] = {}
    back = {new: old for old, new in pairs.items()}
    keys = list(after) + [key for key in before if key not in pairs]
    for key in keys:
        old_key = back.get(key) if key in after else key
        new_key = key if key in after else None
        old_hosts = before.get(old_key, {}) if old_key is not None else {}
        new_hosts = after.get(new_key, {}) if new_key is not None else {}
        task = new_tasks.get(new_key) if new_key is not None else None
        if task is None and old_key is not None:
            task = old_tasks.get(old_key)
        if task is None or old_hosts == new_hosts:  # most tasks: compared whole, not host by host
            continue
        for host in [*new_hosts, *(h for h in old_hosts if h not in new_hosts)]:
            was, now = old_hosts.get(host), new_hosts.get(host)
            if (was and was[0]) == (now and now[0]):
                continue
            alike = (key, _alike(was, host), _alike(now, host))
            found = grouped.get(alike)
            if found is None:
                grouped[alike] = HostChange(task, was, now, [host])
            else:
                found.hosts.append(host)
    return list(grouped.values())


def _alike(outcome: tuple[str, str] | None, host: str) -> tuple[str, str] | None:
    """``outcome`` with the host's own name read as another host's would be (by_outcome's rule)."""
    from engine.flow.outcome_groups import without_own_name

    return None if outcome is None else (outcome[0], without_own_name(host, outcome[1]))


def _notification_changes(old: PlaybookView, new: PlaybookView,
                          pairs: dict[TaskKey, TaskKey]) -> list[NotificationChange]:
    from engine.flow.notify import search_handlers
    from engine.templating.load_time import is_template

    back = {new_key: old_key for old_key, new_key in pairs.items()}
    old_handlers = {play.key: play.handlers for play in old.plays}
    new_tasks, old_views = new.views(), old.views()
    found = []
    for play in new.plays:
        for key in play.keys():
            for notification in new_tasks.notify(key):
                if is_template(notification) or search_handlers(play.handlers, notification):
                    continue
                old_key = back.get(key)
                before = None
                if old_key is not None and notification in old_views.notify(old_key):
                    reached = search_handlers(old_handlers.get(old_key[0], []), notification)
                    before = ", ".join(f"'{h.display_name()}'" for h in reached) or None
                    if before is None:
                        continue  # it reached no handler before either: not this change's doing
                found.append(NotificationChange(new_tasks[key], notification, before))
    return found

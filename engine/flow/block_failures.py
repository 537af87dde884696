"""Where a host goes after a task fails on it, as the play iterator moves it through its blocks
(``PlayIterator._get_next_task_from_state`` and ``_set_failed_state``): a failure in a block's
``block`` section skips the rest of that section, runs the block's ``rescue`` (the innermost block
that has one and holds the failure in its ``block`` section), then its ``always``; a rescued host
goes on after the block, not failed. Without a rescue on the way, the ``always`` sections around
the failure still run, and the host is failed after them.

A task is placed by its path: the blocks around it, outermost first, each with the section it
is in. A task met twice under different paths (one task object reached two ways) is not placed:
the caller does not follow failures there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine.flow.run_settings import play_strategy
from engine.loading.model import Block

if TYPE_CHECKING:
    from engine.loading.model import Play, Task

BLOCK, RESCUE, ALWAYS = "block", "rescue", "always"
Path = tuple[tuple[int, str], ...]

NORMAL, NOT_REACHED = "normal", "not reached"


def block_paths(blocks: Iterable[Any]) -> tuple[dict[int, Path | None], frozenset[int]]:
    """Each task's path (None when it has two), and the blocks that have a ``rescue``. Tasks an
    include loads are placed inside the include's blocks, as their failures are."""
    paths: dict[int, Path | None] = {}
    rescuing: set[int] = set()
    _walk_paths(blocks, (), paths, rescuing)
    return paths, frozenset(rescuing)


def _walk_paths(items: Iterable[Any], path: Path, paths: dict[int, Path | None], rescuing: set[int]) -> None:
    for item in items:
        if hasattr(item, "rescue"):  # a Block
            if item.rescue:
                rescuing.add(id(item))
            for section in (BLOCK, RESCUE, ALWAYS):
                _walk_paths(getattr(item, section), (*path, (id(item), section)), paths, rescuing)
            continue
        known = paths.get(id(item), path)
        paths[id(item)] = path if known == path else None
        _walk_paths(getattr(item, "children", ()), path, paths, rescuing)


class BlockFailures:
    """The hosts that failed certainly inside blocks of one play, and where each is in them."""

    def __init__(self, blocks: Iterable[Any]) -> None:
        self.paths, self.rescuing = block_paths(blocks)
        self.state: dict[str, tuple[Path, int]] = {}
        """host -> (the failed task's path, the depth of the block rescuing it, -1 for none)."""
        self.alike: dict[tuple[int, int], tuple[tuple[Path, int], set[str]]] = {}
        """The hosts of :attr:`state` by their state (one object for the hosts that failed alike)."""
        self.maybe: dict[int, set[str]] = {}
        """block -> the hosts on which a task of the block's ``block`` section may fail, for the blocks
        that have a ``rescue`` (:meth:`rescue_runs` asks no other)."""

    def placed(self, task: Any) -> bool:
        return self.paths.get(id(task)) is not None

    def fail(self, host: str, task: Any) -> bool | None:
        """A certain failure of ``task`` on ``host``: True when a rescue takes it over (the host
        goes on), False when none does (the host fails after the ``always`` sections around);
        None when the task is not placed."""
        path = self.paths.get(id(task))
        if path is None:
            return None
        catcher = next((depth for depth in range(len(path) - 1, -1, -1)
                        if path[depth][1] == BLOCK and path[depth][0] in self.rescuing), -1)
        self.forget(host)
        key = (id(path), catcher)
        found = self.alike.setdefault(key, ((path, catcher), set()))
        found[1].add(host)
        self.state[host] = found[0]
        return catcher >= 0

    def forget(self, host: str) -> None:
        """``host`` goes on: no failure followed any more."""
        found = self.state.pop(host, None)
        if found is not None:
            key = (id(found[0]), found[1])
            self.alike[key][1].discard(host)
            if not self.alike[key][1]:
                del self.alike[key]

    def after_failure(self, host: str, task: Any) -> str | None:
        """Whether ``task`` runs normally on a host that failed earlier in a block (``normal``: in
        the rescue or an always section that runs now, or past the rescuing block, which ends
        the state) or is not reached (``not reached``); None for a host with no failure followed."""
        found = self.state.get(host)
        if found is None:
            return None
        placed, past = self.placement(found, task)
        if past:
            self.forget(host)  # past the block that rescued it: the host goes on
        return placed

    def placement(self, found: tuple[Any, int], task: Any) -> tuple[str | None, bool]:
        """:meth:`after_failure` for a host whose failure is ``found`` (its state), and whether the
        task is past the block that rescued it: alike for the hosts that failed alike."""
        failed, catcher = found
        path = self.paths.get(id(task))
        if path is None:
            return None, False
        depth = 0
        while depth < min(len(path), len(failed)) and path[depth] == failed[depth]:
            depth += 1
        same_block = depth < min(len(path), len(failed)) and path[depth][0] == failed[depth][0]
        if catcher >= 0 and (depth < catcher or depth == catcher and not same_block):
            return None, True
        if same_block and path[depth][1] == ALWAYS and failed[depth][1] in (BLOCK, RESCUE):
            return NORMAL, False
        if same_block and depth == catcher and path[depth][1] == RESCUE:
            return NORMAL, False
        return NOT_REACHED, False

    def rescue_runs(self, host: str, task: Any) -> bool | None:
        """For a task in a ``rescue`` section (the innermost on its path): True when the host's
        failure is in that block, None when a task of the block may fail on the host, False when
        none does; also True for a task in no rescue section."""
        path = self.paths.get(id(task))
        if path is None:
            return None
        inner = next((depth for depth in range(len(path) - 1, -1, -1) if path[depth][1] == RESCUE), None)
        if inner is None:
            return True
        found = self.state.get(host)
        if found is not None and found[1] >= 0 and found[0][:found[1] + 1] == (*path[:inner], (path[inner][0], BLOCK)):
            return True
        return None if host in self.maybe.get(path[inner][0], ()) else False

    def in_blocks(self, task: Any) -> bool:
        """Whether ``task`` is in the ``block`` section of a block that has a ``rescue`` (:meth:`may_fail`
        notes it): a failure elsewhere runs no rescue, whichever hosts it may fail on."""
        return any(section == BLOCK and block in self.rescuing for block, section in self.paths.get(id(task)) or ())

    def may_fail(self, hosts: Iterable[str], task: Any) -> None:
        """``task`` may fail on each of ``hosts`` (only the run knows): every block with a ``rescue``
        it is in the ``block`` section of may run its rescue there. The blocks are looked up once
        for the hosts, each block's hosts one set (no pair per block and host); the blocks without
        a rescue are not noted (most of a fleet's blocks: thousands of hosts at each of their tasks)."""
        blocks = [block for block, section in self.paths.get(id(task)) or ()
                  if section == BLOCK and block in self.rescuing]
        for block in blocks:
            self.maybe.setdefault(block, set()).update(hosts)


def failure_spread(play: Play, task: Task) -> bool | None:
    """Whether a host's failure at ``task`` stops the other hosts too: True with a literal
    ``any_errors_fatal: true``, None when it may (a templated one, ``max_fail_percentage``).
    Once per task while the files and the strategy's settings stay the same (asked host by host)."""
    import os

    from engine.parsing.source import files_state

    stamp = (files_state(), os.environ.get("ANSIBLE_STRATEGY"), os.environ.get("ANSIBLE_CONFIG"))
    kept = play.derived.get("failure spread")
    if kept is None or kept[0] != stamp:
        kept = play.derived["failure spread"] = (stamp, {})
    if id(task) not in kept[1]:
        kept[1][id(task)] = (task, _failure_spread(play, task))  # the task kept: its id stays its own
    return kept[1][id(task)][1]  # type: ignore[no-any-return]


def _failure_spread(play: Play, task: Task) -> bool | None:
    from engine.booleans import boolean

    data = play.data if isinstance(play.data, Mapping) else {}
    strategy = play_strategy(play)
    if strategy != "linear":
        return False if strategy == "free" else None
    fatal = getattr(task.effective("any_errors_fatal"), "value", data.get("any_errors_fatal"))
    once = getattr(task.effective("run_once"), "value", None)  # the strategy makes it fatal too
    try:
        if any(value is not None and boolean(value, strict=True) for value in (fatal, once)):
            return True
    except (TypeError, ValueError):
        return None
    return False


def section_tasks(play: Play) -> tuple[frozenset[int], frozenset[int]]:
    """(the tasks of ``rescue`` sections, the tasks of blocks that have a ``rescue`` or an
    ``always`` section), once per play."""
    found = play.derived.get("section_tasks")
    if found is None:
        rescuing: set[int] = set()
        recovered: set[int] = set()
        _walk_sections(play.compile(), False, False, rescuing, recovered)
        found = play.derived["section_tasks"] = (frozenset(rescuing), frozenset(recovered))
    return found


def _walk_sections(items: list[Any], protected: bool, rescue: bool, rescuing: set[int], recovered: set[int]) -> None:
    for item in items:
        if isinstance(item, Block):
            _walk_sections(item.block, protected or bool(item.rescue or item.always), rescue, rescuing, recovered)
            _walk_sections(item.rescue, protected, True, rescuing, recovered)
            _walk_sections(item.always, protected, rescue, rescuing, recovered)
        else:
            if protected:
                recovered.add(id(item))
            if rescue:
                rescuing.add(id(item))
            for child in item.children:
                _walk_sections([child], protected, rescue, rescuing, recovered)

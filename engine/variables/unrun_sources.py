"""A host's variables where an inventory source was not run (engine.inventory.unrun): what it
may set is the run's, said so, never read as absent.

- a name no level defines is unknown, not undefined, where the source may set any variable (a
  script, a plugin): it may set it, below every group_vars file and play (the inventory's own
  level, which only role defaults are under);
- the variables ``constructed`` composes are unknown on the hosts it reads (they are host
  variables of the inventory: above every group's);
- a group_vars file of a group the source may put the host in (and the host is not in already):
  its names are unknown at the groups' level (which group wins there is the run's too);
- ``group_names`` of a host the source may put in groups, and ``groups`` (a group it may fill,
  and the list of groups itself: it may add groups).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from engine.inventory.unrun import UnrunSource, may_join
from engine.variables.layer import Layer, RuntimeValue

if TYPE_CHECKING:
    from engine.inventory.data import Host

def unrun_layers(inventory: Any, host: Host) -> tuple[list[Layer], list[Layer], list[Layer]]:
    """The layers the sources not run add for ``host``: (below the inventory's levels, above its
    groups' levels, above its own inventory variables)."""
    sources = may_join(inventory, host.name)
    if not sources:
        return [], [], []
    below = [Layer("inventory group vars", "the inventory source (not run here)", {}, unrun.source,
                   any_name=f"may be set by {unrun.reason}")
             for unrun in sources if unrun.any_name][:1]
    composed = {name: RuntimeValue(f"composed by {unrun.reason}") for unrun in sources for name in unrun.compose}
    first = sources[0]
    above_own = [Layer("inventory host vars", "what the inventory source (not run here) composes", composed,
                       first.source, runtime=True)] if composed else []
    grouped = _group_files(inventory, host, sources)
    above_groups = [Layer("playbook group_vars/*", "group_vars of groups the inventory source (not run here) may "
                          "put the host in", grouped, first.source, runtime=True)] if grouped else []
    return below, above_groups, above_own


def _group_files(inventory: Any, host: Host, sources: list[UnrunSource]) -> dict[str, RuntimeValue]:
    """Each name of a group_vars file (beside the inventory, beside the playbook) of a group that a
    source may put ``host`` in, as unknown."""
    own = {group.name for group in host.get_groups()}
    # hosts in the same groups that the same sources may change read the same files: a fleet's hosts, few sets
    kept: dict[tuple[Any, ...], dict[str, RuntimeValue]] = inventory.derived.setdefault("unrun group files", {})
    key = (frozenset(own), tuple(unrun.source for unrun in sources))
    if key not in kept:
        kept[key] = _files_of_groups(inventory, own, sources)
    return kept[key]


def _files_of_groups(inventory: Any, own: set[str], sources: list[UnrunSource]) -> dict[str, RuntimeValue]:
    from engine.inventory.data import Group

    found: dict[str, RuntimeValue] = {}
    for files in (inventory.vars_files, inventory.play_vars_files):
        for group in sorted(_groups_with_files(files.directories, files.extensions) - own - {"all"}):
            unrun = next((unrun for unrun in sources if unrun.may_fill(group)), None)
            if unrun is None:
                continue
            why = RuntimeValue(f"set in group_vars of group '{group}', which {unrun.reason} may put the host in")
            for _path, values in files.files_of(Group(group)):
                if isinstance(values, str):  # encrypted whole (engine.vault): which names it sets is not told
                    continue
                for name in values:
                    found.setdefault(name, why)
    return found


def _groups_with_files(directories: list[str], extensions: tuple[str, ...]) -> set[str]:
    """The group names that have a file or a directory in ``directories``' group_vars."""
    names: set[str] = set()
    for directory in directories:
        path = os.path.join(directory, "group_vars")
        try:
            entries = os.listdir(path)
        except OSError:
            continue
        for entry in entries:
            stem, ext = os.path.splitext(entry)
            if os.path.isdir(os.path.join(path, entry)) or not ext:
                names.add(entry)
            elif ext in extensions or ext.lstrip(".") in extensions:
                names.add(stem)
    return names


def unrun_magic(inventory: Any, host: Host, magic: Mapping[str, Any]) -> dict[str, Any]:
    """The magic variables of ``host`` a source not run makes the run's: ``group_names`` of a host
    it may put in groups, ``groups`` (the groups it may fill; all of it where it may add any)."""
    sources = may_join(inventory, host.name)
    every = getattr(inventory, "unrun", ())
    if not every:
        return {}
    found: dict[str, Any] = {}
    if sources:
        found["group_names"] = RuntimeValue(f"the groups of the host: {sources[0].reason} may put it in more")
    groups = magic.get("groups")
    wild = next((unrun for unrun in every if unrun.any_name), None)
    if wild is not None:
        found["groups"] = RuntimeValue(f"the inventory's groups: {wild.reason} may add hosts and groups")
    elif isinstance(groups, Mapping):
        found["groups"] = UnrunGroups(groups, list(every))
    return found


def within_unrun(groups: Mapping[str, Any], change: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> Any:
    """``change`` applied to ``groups`` (``groups``'s value), or to the groups an :class:`UnrunGroups`
    knows, kept unknown where they are."""
    if isinstance(groups, UnrunGroups):
        return UnrunGroups(change(groups.known), groups.sources)
    return change(groups)


class UnrunGroups(Mapping[str, Any]):
    """``groups`` where ``constructed`` sources were not run: a group they may fill is the run's, as
    is the list of groups (they may add some); any other group is as read."""

    def __init__(self, groups: Mapping[str, Any], sources: list[UnrunSource]) -> None:
        self.known, self.sources = groups, sources
        self.unknown_whole = f"the inventory's groups ({sources[0].reason} may add some)"

    def _source(self, group: str) -> UnrunSource | None:
        return next((unrun for unrun in self.sources if unrun.may_fill(group)), None)

    def __getitem__(self, group: str) -> Any:
        from engine.templating.errors import RunTimeOnly

        unrun = self._source(group)
        if unrun is not None:
            raise RunTimeOnly(f"the hosts of group {group!r} are known only at run time: {unrun.reason} may put "
                              "hosts in it")
        return self.known[group]

    def __contains__(self, group: object) -> bool:
        if isinstance(group, str) and self._source(group) is not None:
            self[group]  # raises
        return group in self.known

    def __iter__(self) -> Iterator[str]:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"{self.unknown_whole} are known only at run time")

    def __len__(self) -> int:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"{self.unknown_whole} are known only at run time")


PLAY_LISTS = ("ansible_play_hosts", "ansible_play_hosts_all", "ansible_play_batch", "play_hosts")


def with_unrun(inventory: Any, host: Host, magic: dict[str, Any], play_plan: Any = None) -> dict[str, Any]:
    """``magic`` (a host's magic variables in ``play_plan``) with what the sources not run make the
    run's: the play's host lists too, where some of its hosts are in it only maybe, or it may run on
    hosts only such a source knows."""
    changed = unrun_magic(inventory, host, magic)
    maybe = getattr(play_plan, "maybe", None)
    more = getattr(play_plan, "more_hosts", None) if getattr(inventory, "unrun", ()) else None  # (under --limit)
    if maybe or more:
        why = RuntimeValue(f"the play's hosts: {next(iter(maybe.values()))}" if maybe else more)
        changed.update((name, why) for name in PLAY_LISTS if name in magic)
    return {**magic, **changed} if changed else magic

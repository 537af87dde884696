"""Hosts the inventory answers alike, told without reading their values (a fleet's hosts in the
same groups, each with a variable of its own no task reads): the first one's answers are theirs."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.inventory.vars_files import playbook_vars_directories
from engine.templating.read_names import tested_groups
from engine.variables.host_answers import OWN_ANSWERS
from engine.variables.host_facts import cached_facts
from engine.variables.report import _playbook_dir, host_part, inventory_of

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def inventory_twin(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
                   names: Iterable[str]) -> Any:
    """A token equal for the hosts of the play the inventory answers alike for ``names``, told
    without reading their values: the same groups, variables of their own by the same names, none
    of them among ``names`` (nor one each host answers its own way:
    engine.variables.host_answers.OWN_ANSWERS, nor a test of membership of a group), the same cached
    facts, gathered by the same plays. None otherwise, or where the play's tasks change the
    inventory. The host's part is worked out once per plan, play and host."""
    shared = _twin_play(plan, play_plan)
    if shared is None:
        return None
    kept = shared.tokens.get(host.name)
    if kept is None:
        kept = shared.tokens[host.name] = shared.token(plan, play_plan, host)
    # (its groups, read as tests of membership of some of them, are the host's own answer too: not told
    # by the token, which knows the groups that give variables only)
    return kept if kept and kept[1].isdisjoint(names) and OWN_ANSWERS.isdisjoint(names) and \
        not tested_groups(names) else None


def twin_key(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, names: Any) -> tuple[Any, ...] | None:
    """:func:`inventory_twin` with ``names`` and the host's cached facts as ansible.cfg's fact cache
    gives them too (which the token may not tell): hosts with equal keys are given equal parts of any
    key the inventory and cached facts give for ``names``; None where the host has no twin."""
    twin = inventory_twin(plan, play_plan, host, task, names)
    if twin is None:
        return None
    cached = cached_facts(plan).get(host.name)
    return (twin, names, cached.digest if cached else None)


def inventory_twins(plan: Plan, play_plan: PlayPlan, task: Task | None, twin: Any) -> list[str]:
    """The hosts of the play whose :func:`inventory_twin` is ``twin``: among the inventory's hosts
    of the same groups and own variables' names (grouped once per inventory and directory), those in
    the play with the same cached facts, gathered by the same plays (once per play and token)."""
    from engine.variables.setters import host_names

    shared = _twin_play(plan, play_plan)
    if shared is None:
        return []
    found = shared.members.get(twin)
    if found is None:
        in_play = host_names(play_plan)
        candidates = [name for name in shared.groups(plan, play_plan).get(twin[:2], ()) if name in in_play]
        facts = shared.facts_of_all(plan, play_plan, candidates)
        found = shared.members[twin] = [name for name in candidates if facts[name] == twin[2:]]
        for name in found:
            shared.tokens.setdefault(name, twin)  # (the same token: asked again, it is found)
    return found


def _twin_play(plan: Plan, play_plan: PlayPlan) -> _TwinPlay | None:
    """What every host's twin token takes from its play, with the tokens found so far, kept with the
    plan they were found with; None where the play's tasks change the inventory."""
    if getattr(play_plan, "changed_in_play", None):
        return None
    kept = play_plan.__dict__.get("inventory twins")
    if kept is None or kept.plan is not plan:
        kept = play_plan.__dict__["inventory twins"] = _TwinPlay(plan, play_plan)
    return kept  # type: ignore[no-any-return]


class _TwinPlay:
    """What every host's twin token takes from its play: the inventory its hosts read, the kept
    parts of hosts' tokens, what they take from the playbook directory and the cached facts; and the play's hosts'
    tokens (a host without one: ``()``) and twins found so far."""

    __slots__ = ("cached", "directory", "facts", "inventory", "members", "parts", "plan", "tokens")

    def __init__(self, plan: Plan, play_plan: PlayPlan) -> None:
        self.plan = plan
        self.inventory = inventory_of(plan, play_plan)  # (no task of the play changes it: _twin_play)
        # the host's groups and own names, as its levels are kept: once per inventory and directory
        self.parts: dict[tuple[str, str | None], tuple[Any, ...]] = self.inventory.derived.setdefault("twin parts", {})
        self.directory = _directory_key(self.inventory, _playbook_dir(play_plan.play.basedir))
        self.cached = getattr(plan, "facts", {})
        self.tokens: dict[str, tuple[Any, ...]] = {}
        self.members: dict[Any, list[str]] = {}
        self.facts: dict[str, tuple[Any, Any]] = {}

    def token(self, plan: Plan, play_plan: PlayPlan, host: Host) -> tuple[Any, ...]:
        part = self._part(plan, play_plan, host)
        return (*part, *self.facts_of(plan, play_plan, host)) if part else ()

    def facts_of(self, plan: Plan, play_plan: PlayPlan, host: Host) -> tuple[Any, Any]:
        """The host's cached facts (by digest), and why the run gathers them (once per host, as its token)."""
        found = self.facts.get(host.name)
        return found if found is not None else self.facts_of_all(plan, play_plan, [host.name])[host.name]

    def facts_of_all(self, plan: Plan, play_plan: PlayPlan, names: list[str]) -> dict[str, tuple[Any, Any]]:
        """:meth:`facts_of` of each of the hosts ``names`` (of the play), the reasons worked out at once
        for those not asked yet (engine.variables.host_facts.facts_unknown_of)."""
        from engine.variables.host_facts import facts_unknown_of

        facts, cached = self.facts, self.cached
        missing = [name for name in names if name not in facts]
        if missing:
            reasons = facts_unknown_of(plan, play_plan, missing)
            for name in missing:
                kept = cached.get(name)
                facts[name] = (kept.digest if kept is not None else None, reasons.get(name))
        return facts

    def groups(self, plan: Plan, play_plan: PlayPlan) -> dict[tuple[Any, ...], list[str]]:
        """The inventory's hosts by the part of their token the inventory gives (their groups and own
        variables' names): once per inventory and directory."""
        groups: dict[str | None, dict[tuple[Any, ...], list[str]]] = \
            self.inventory.derived.setdefault("twin groups", {})
        found = groups.get(self.directory)
        if found is None:
            found = groups[self.directory] = {}
            for host in self.inventory.data.hosts.values():
                part = self._part(plan, play_plan, host)
                if part:
                    found.setdefault(part, []).append(host.name)
        return found

    def _part(self, plan: Plan, play_plan: PlayPlan, host: Host) -> tuple[Any, ...]:
        key = (host.name, self.directory)  # (a directory without vars files: None, _directory_key)
        part = self.parts.get(key)
        if part is None:
            groups_key, names = host_part(plan, play_plan, host, self.inventory)  # (not each host's levels)
            part = self.parts[key] = (groups_key, names - OWN_ANSWERS)
        return part


def _directory_key(inventory: Any, basedir: str) -> str | None:
    """What a host's part takes from the playbook directory ``basedir``: the directory, or None where
    no ``host_vars`` nor ``group_vars`` is beside it (its play vars files give nothing). A part is
    then what any such directory gives but for the directory its groups' key names first: hosts
    with equal parts have equal ones in each of them, and a token only tells one play's hosts apart
    (a fleet's playbooks in several directories: its hosts' parts read once, not once per directory)."""
    kept: dict[str, str | None] = inventory.derived.setdefault("twin directories", {})
    if basedir not in kept:
        given = any(os.path.lexists(os.path.join(directory, subdir))
                    for directory in playbook_vars_directories(basedir) for subdir in ("host_vars", "group_vars"))
        kept[basedir] = basedir if given else None
    return kept[basedir]

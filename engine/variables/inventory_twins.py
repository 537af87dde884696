"""Hosts the inventory answers alike, told without reading their values (a fleet's hosts in the
same groups, each with a variable of its own no task reads): the first one's answers are theirs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.variables.report import _playbook_dir, host_layers, inventory_of

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def inventory_twin(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
                   names: Iterable[str]) -> Any:
    """A token equal for the hosts of the play the inventory answers alike for ``names``, told
    without reading their values: the same groups, variables of their own by the same names, none
    of them among ``names`` (nor one each host answers its own way:
    engine.variables.host_answers.OWN_ANSWERS), the same cached facts, gathered by the same plays.
    None otherwise, or where the play's tasks change the inventory. The host's part is worked out
    once per plan, play and host."""
    from engine.variables.host_answers import OWN_ANSWERS

    twins = _twin_tokens(plan, play_plan)
    if twins is None:
        return None
    kept = twins.get(host.name)
    if kept is None:
        kept = twins[host.name] = _twin_token(plan, play_plan, host, _TwinPlay(plan, play_plan))
    return kept if kept and kept[1].isdisjoint(names) and OWN_ANSWERS.isdisjoint(names) else None


def inventory_twins(plan: Plan, play_plan: PlayPlan, task: Task | None, twin: Any) -> list[str]:
    """The hosts of the play whose :func:`inventory_twin` is ``twin`` (each host's worked out
    once for the play, as :func:`inventory_twin` keeps it)."""
    members = play_plan.__dict__.get("inventory twin members")
    if members is None or members[0] is not plan:
        index: dict[Any, list[str]] = {}
        twins = _twin_tokens(plan, play_plan)
        if twins is not None:
            shared = _TwinPlay(plan, play_plan)  # what every host's token takes from the play: once
            for host in play_plan.hosts:
                token = twins.get(host.name)
                if token is None:
                    token = twins[host.name] = _twin_token(plan, play_plan, host, shared)
                if token:
                    index.setdefault(token, []).append(host.name)
        members = play_plan.__dict__["inventory twin members"] = (plan, index)
    return members[1].get(twin, [])  # type: ignore[no-any-return]


def _twin_tokens(plan: Plan, play_plan: PlayPlan) -> dict[str, Any] | None:
    """The play's hosts' :func:`inventory_twin` tokens found so far (a host without one: ``()``), kept
    with the plan they were found with; None where the play's tasks change the inventory."""
    if getattr(play_plan, "changed_in_play", None):
        return None
    kept = play_plan.__dict__.get("inventory twins")
    if kept is None or kept[0] is not plan:
        kept = play_plan.__dict__["inventory twins"] = (plan, {})
    return kept[1]  # type: ignore[no-any-return]


class _TwinPlay:
    """What every host's twin token takes from its play: the inventory its hosts read, the kept
    parts of hosts' tokens, the playbook directory and the plays gathering facts so far."""

    __slots__ = ("basedir", "facts", "gathering", "inventory", "parts")

    def __init__(self, plan: Plan, play_plan: PlayPlan) -> None:
        from engine.variables.host_facts import _gathering
        from engine.variables.setters import host_names

        self.inventory = inventory_of(plan, play_plan)  # (no task of the play changes it: _twin_tokens)
        # the host's groups and own names, as its levels are kept: once per inventory and directory
        self.parts: dict[tuple[str, str], tuple[Any, ...]] = self.inventory.derived.setdefault("twin parts", {})
        self.basedir = _playbook_dir(play_plan.play.basedir)
        self.facts = getattr(plan, "facts", {})
        self.gathering = [(reason, host_names(earlier)) for reason, earlier in _gathering(plan, play_plan)]


def _twin_token(plan: Plan, play_plan: PlayPlan, host: Host, shared: _TwinPlay) -> tuple[Any, ...]:
    from engine.variables.host_answers import OWN_ANSWERS

    key = (host.name, shared.basedir)
    part = shared.parts.get(key)
    if part is None:
        layers = host_layers(plan, play_plan, host, None, shared.inventory)
        groups_key, count = getattr(layers, "groups_key", None), getattr(layers, "shared_count", None)
        part = shared.parts[key] = () if groups_key is None or count is None else \
            (groups_key, frozenset(name for layer in layers[count:] for name in layer.values) - OWN_ANSWERS)
    if not part:
        return ()
    cached = shared.facts.get(host.name)
    # (engine.variables.host_facts.facts_unknown, with the play's gathering found once)
    unknown = next((reason for reason, names in shared.gathering if host.name in names), None)
    return (*part, cached.digest if cached is not None else None, unknown)

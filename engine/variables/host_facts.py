"""A host's facts at a task, before the run: unknown where the run gathers them (a play up to
the task with the host gathers facts, runs ``setup`` or ``meta: clear_facts``), else what the
fact cache holds (engine.variables.fact_cache), else none."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine.config import inject_facts_as_vars
from engine.flow.host_reading import runs_setup
from engine.variables.play_order import play_order
from engine.variables.setters import host_names
from engine.variables.sources import Layer, RuntimeValue, gathers_facts

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task


def facts_unknown(plan: Plan, play_plan: PlayPlan, host: Host) -> str | None:
    """Why the host's facts are only known at run time (this play or an earlier one with the host
    gathers them), None when they are what the fact cache holds."""
    for reason, earlier in _gathering(plan, play_plan):
        if host.name in host_names(earlier):
            return reason
    return None


def facts_unknown_of(plan: Plan, play_plan: PlayPlan, names: Iterable[str]) -> dict[str, str]:
    """:func:`facts_unknown` of each of the hosts ``names`` that has a reason, by name (a fleet's hosts
    at once: each host's is the first play up to ``play_plan`` with it that gathers, taken in order)."""
    left, found = set(names), {}
    for reason, earlier in _gathering(plan, play_plan):
        if not left:
            break
        hit = left.intersection(host_names(earlier))
        found.update(dict.fromkeys(hit, reason))
        left -= hit
    return found


def gathered_since(plan: Plan, since: PlayPlan, play_plan: PlayPlan, host: Host,
                   after: Mapping[int, list[tuple[str, PlayPlan]]] | None = None) -> str | None:
    """Why the host's facts are the run's again at ``play_plan``, after the play ``since``: a play
    after it (up to ``play_plan``) gathers them, runs ``setup`` or ``meta: clear_facts`` on the host.
    What a ``cacheable`` set_fact of ``since`` left in ``ansible_facts`` is then the fact cache's
    as that run filled it. ``after``: :func:`gathering_after`, when the caller has it."""
    after = after if after is not None else gathering_after(plan, play_plan)
    return next((reason for reason, earlier in after.get(id(since), ()) if host.name in host_names(earlier)), None)


def gathering_after(plan: Plan, play_plan: PlayPlan) -> dict[int, list[tuple[str, PlayPlan]]]:
    """For each play up to ``play_plan`` (by id), the plays after it (up to ``play_plan``) whose
    hosts' facts are the run's again, with why, in order: once per plan and plays, not for each
    host at each task and earlier play."""
    found = _gathering(plan, play_plan)
    kept = play_plan.__dict__["gathering"]
    if len(kept) > 4 and kept[4] is found:
        return kept[5]  # type: ignore[no-any-return]
    plays: list[PlayPlan] = kept[3]
    after: dict[int, list[tuple[str, PlayPlan]]] = {}
    rank = {id(earlier): at for at, earlier in enumerate(plays)}
    ranks = [rank[id(later)] for _, later in found]  # in run order: the plays after one are a tail of them
    for at, earlier in enumerate(plays):
        after[id(earlier)] = found[bisect_right(ranks, at):]
    play_plan.__dict__["gathering"] = (*kept[:4], found, after)
    return after


def _gathering(plan: Plan, play_plan: PlayPlan) -> list[tuple[str, PlayPlan]]:
    """The plays up to ``play_plan`` whose hosts' facts are the run's, with why; once per plan and
    plays (asked for each host at each task: each play's gathering reads ansible.cfg)."""
    kept = play_plan.__dict__.get("gathering")
    every = getattr(plan, "plays", None)
    seen = play_plan.__dict__.get("gathering for")
    # the plan's list of plays as it was (plays are only ever added to it): the same plays up to this one
    if kept is not None and seen is not None and seen[0] is plan and seen[1] is every and seen[2] == len(every) \
            and kept[1] is plan:
        return kept[2]  # type: ignore[no-any-return]
    plays = plays_before(plan, play_plan, including=True)
    key = (id(plan), tuple(map(id, plays)))
    if isinstance(every, list):
        play_plan.__dict__["gathering for"] = (plan, every, len(every))
    if kept is not None and kept[0] == key and kept[1] is plan:
        return kept[2]  # type: ignore[no-any-return]
    found = []
    for earlier in plays:
        if _gathers(plan, earlier):
            found.append((f"a fact gathered at run time (play '{earlier.play.name}' gathers facts)", earlier))
        elif runs_setup(earlier.play):  # a setup task, or meta: clear_facts, which empties the cache too
            found.append((f"a fact the run gathers or clears (play '{earlier.play.name}' runs setup or "
                          "clear_facts)", earlier))
    play_plan.__dict__["gathering"] = (key, plan, found, plays)
    return found


def facts_cleared(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None = None) -> str | None:
    """The ``meta: clear_facts`` that left the host's facts empty at ``task`` (None: the task's place
    in the play is not asked), with nothing gathering them since: one of this play before the task,
    or of the latest play before with the host that gathers, sets up or clears facts."""
    for earlier, clear, gathers, setup in _fact_plays(plan, play_plan):
        if earlier is play_plan:
            order = play_order(earlier.play)
            at = order.positions.get(id(task), [None])[0] if task is not None else None
            if clear is not None and at is not None and order.positions[id(clear)][0] < at \
                    and host.name in host_names(earlier) and not setup:
                return clear.display_name()  # gathered at the play's start, if at all: cleared after
            if gathers or setup or clear is not None:
                return None
            continue
        if host.name not in host_names(earlier):
            continue
        if clear is not None and not setup:
            return clear.display_name()
        if gathers or setup:
            return None
    return None


def _fact_plays(plan: Plan, play_plan: PlayPlan) -> list[tuple[PlayPlan, Any, bool, bool]]:
    """The plays up to ``play_plan``, the latest first, each with its ``meta: clear_facts`` that runs
    whatever the values, whether it gathers facts and whether it runs ``setup``: once per plan and
    plays, as :func:`_gathering` (asked for each host at each task: gathering reads ansible.cfg)."""
    from engine.flow.host_reading import clears_facts_at, runs_setup

    plays = plays_before(plan, play_plan, including=True)
    key = (id(plan), tuple(map(id, plays)))
    kept = play_plan.__dict__.get("fact plays")
    if kept is None or kept[0] != key or kept[1] is not plan:
        kept = play_plan.__dict__["fact plays"] = (key, plan, [
            (earlier, clears_facts_at(earlier.play), _gathers(plan, earlier), runs_setup(earlier.play))
            for earlier in reversed(plays)])
    return kept[2]  # type: ignore[no-any-return]


def _gathers(plan: Plan, play_plan: PlayPlan) -> bool:
    """Whether the play gathers facts (engine.variables.sources.gathers_facts), once per plan: each
    play after it asks (and ansible.cfg is read at each asking)."""
    kept = play_plan.__dict__.get("gathers facts")
    if kept is None or kept[0] is not plan or kept[1] is not play_plan.play:
        kept = play_plan.__dict__["gathers facts"] = (plan, play_plan.play, gathers_facts(play_plan.play))
    return kept[2]  # type: ignore[no-any-return]


def facts_layer(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None = None) -> Layer:
    cleared = facts_cleared(plan, play_plan, host, task)
    if cleared is not None:
        return Layer("host facts", f"no facts (task '{cleared}' cleared them)", {"ansible_facts": {}})
    reason = facts_unknown(plan, play_plan, host)
    if reason is not None:
        return Layer("host facts", "gathered facts (set at run time by gather_facts)",
                     {"ansible_facts": RuntimeValue(reason)}, runtime=True)
    cached = cached_facts(plan).get(host.name)
    if cached is not None:
        return Layer("host facts", "cached fact", cached.variables(inject_facts_as_vars()))
    return Layer("host facts", "no facts gathered (gather_facts: false)", {"ansible_facts": {}})


def cached_facts(plan: Plan) -> Mapping[str, Any]:
    """The plan's facts, else those of ansible.cfg's fact cache (read once per plan)."""
    facts = getattr(plan, "facts", None)
    if facts:
        return facts  # type: ignore[no-any-return]
    derived = getattr(plan.inventory, "derived", None)
    found = derived.get("cached facts") if derived is not None else None
    if found is None:
        from engine.variables.fact_cache import known_facts

        found = known_facts()
        if derived is not None:
            derived["cached facts"] = found
    return found  # type: ignore[no-any-return]


def plays_before(plan: Plan, play_plan: PlayPlan, including: bool = False) -> list[PlayPlan]:
    """The plan's plays before ``play_plan`` (and it, with ``including``)."""
    plays = getattr(plan, "plays", None)
    plays = plays if isinstance(plays, list) else list(plays or ())
    kept = plan.__dict__.get("play places")  # each play's place, once per list of plays (not per question)
    index = kept[1].get(id(play_plan)) if kept is not None and kept[0] is plays else None
    if index is None or index >= len(plays) or plays[index] is not play_plan:
        places = {id(found): at for at, found in enumerate(plays)}
        plan.__dict__["play places"] = (plays, places)
        index = places.get(id(play_plan))
    if index is None:
        return [play_plan] if including else []
    return plays[: index + 1] if including else plays[:index]

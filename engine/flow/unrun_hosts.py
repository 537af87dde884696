"""The hosts of a play where an inventory source was not run (engine.inventory.unrun): a group
the source may put hosts in may hold more hosts than the sources read give it, so whether a host
is in a play on it is the run's. The play's hosts are those some filling of those groups selects;
each host not selected by every filling is said to be in the play only maybe, and why.

The fillings tried are the two ends: every group the pattern (or ``--limit``) names and a source
may fill holding only the hosts read, or every host the source may change. A host both select
is in the play; one only one of them selects may be. (A pattern both naming and excluding groups
the sources fill has fillings between the two ends; the hosts they select are among those of the
two ends in the patterns written in practice, ``a:&b`` and ``a:!b``.) Hosts only the source
knows cannot be named: a note says the play may have more.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.inventory.data import Host, InventoryData
    from engine.inventory.unrun import UnrunSource


def maybe_hosts(data: InventoryData, pattern: Any, limit: Any, selected: list[Host],
                sources: list[UnrunSource]) -> tuple[list[Host], dict[str, str]]:
    """(the hosts a play on ``pattern`` under ``limit`` may run on, each host of them that only
    maybe runs it with why); ``selected``: those the inventory as read gives it."""
    from engine.inventory.graph_copy import copy_graph
    from engine.inventory.patterns import HostPatternError, read_limit, select_hosts, split_host_pattern

    if not sources:
        return selected, {}
    terms = split_host_pattern(pattern) if pattern else []
    try:
        terms += read_limit(limit) if limit else []
    except HostPatternError:
        return selected, {}
    filled = copy_graph(data)
    named: dict[str, UnrunSource] = {}
    for term in terms:
        name = str(term).lstrip("&!").partition("[")[0]
        if not name or name.startswith("~") or data.get_host(name) is not None or name in ("all", "ungrouped"):
            continue
        unrun = next((unrun for unrun in sources if unrun.may_fill(name)), None)
        if unrun is None:
            continue
        named[name] = unrun
        filled.add_group(name)
        for host in list(filled.hosts):
            if unrun.may_change(host):
                filled.add_host(host, name)
    if not named:
        return selected, {}
    try:
        widest = select_hosts(filled, pattern, limit, mismatch="ignore")
    except HostPatternError:
        return selected, {}
    certain = {host.name for host in selected}
    wide = {host.name for host in widest}
    groups = ", ".join(repr(name) for name in named)
    why = f"whether the host is in the play: {next(iter(named.values())).reason} may put hosts in {groups}"
    hosts = list(selected) + [data.get_host(host.name) or host for host in widest if host.name not in certain]
    maybe = {host.name: why for host in hosts if not (host.name in certain and host.name in wide)}
    return hosts, maybe


def maybe_in_play(play_plan: Any, planned: Any, failed: dict[str, tuple[str, bool]], before: set[str]) -> Any:
    """``planned`` (engine.flow.host_plan's PlannedPlay of ``play_plan``) with every outcome on a host
    that is in the play only maybe depending on that; such a host's failure in the play, if any,
    only maybe stops it for the plays after (``failed``: the hosts failed so far, ``before`` the play)."""
    from engine.flow.outcomes import DEPENDS, alike

    maybe = getattr(play_plan, "maybe", None)
    if not maybe:
        return planned
    for task in planned.tasks:
        for host, why in maybe.items():
            outcome = task.hosts.get(host)
            if outcome is None or outcome.unreported:
                continue  # not selected by the tags, not notified: nothing to report, in the play or not
            task.hosts[host] = alike(DEPENDS, why)
    for host in maybe:
        if host in failed and host not in before and failed[host][1]:
            failed[host] = (failed[host][0], False)
    return planned


def more_hosts(data: InventoryData, pattern: Any, sources: list[UnrunSource], limit: Any = None) -> str | None:
    """Why a play on ``pattern`` (under ``limit``) may run on hosts only a source not run knows (a
    script, a plugin: it may add hosts of its own, in any group, ``all`` and ``ungrouped`` too), which
    no host list read names; None where none may: no such source, or a pattern (or limit) naming
    only hosts read."""
    from engine.inventory.patterns import HostPatternError, read_limit, split_host_pattern

    adding = next((unrun for unrun in sources if unrun.any_name and unrun.hosts is None), None)
    if adding is None or not pattern:
        return None
    try:
        limits = [str(term) for term in read_limit(limit)] if limit else []
    except HostPatternError:
        limits = []
    for terms in ([str(term) for term in split_host_pattern(pattern)], limits):
        if terms and all(term.startswith(("!", "&")) or data.get_host(term) is not None for term in terms):
            return None
    return f"the play's hosts: {adding.reason} may add hosts of its own"

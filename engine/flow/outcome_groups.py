"""A task's hosts grouped by outcome and reason, for the plan's text, the hover and the preview:
the reasons that differ only in naming each host itself read as one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.flow.outcomes import RUNS

if TYPE_CHECKING:
    from engine.flow.outcomes import HostOutcome

THIS_HOST = "‹host›"
"""Stands for each host's own name in a reason :func:`by_outcome` gives several hosts alike."""


def by_outcome(outcomes: Mapping[str, HostOutcome], alike: bool = False) -> dict[tuple[str, str], list[str]]:
    """The hosts grouped by outcome and reason, in host order; one group for the hosts that run
    (their reasons only say how: every condition holds, k of n loop items). With ``alike``, the
    reasons that differ only where they name the host itself (its own inventory line, its
    host_vars file, a loop item that is its name) are one, each host's name read as
    :data:`THIS_HOST`: 2,000 hosts each with a ``weight=`` on its line make a few groups, not
    2,000. A group of one keeps its host's name."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for host, outcome in outcomes.items():
        reason = outcome.reason if outcome.outcome != RUNS else ""
        if alike and host in reason:
            reason = without_own_name(host, reason)
        grouped.setdefault((outcome.outcome, reason), []).append(host)
    if alike and any(len(hosts) == 1 and THIS_HOST in reason for (_, reason), hosts in grouped.items()):
        named: dict[tuple[str, str], list[str]] = {}
        for (kind, reason), hosts in grouped.items():
            if len(hosts) == 1 and THIS_HOST in reason:
                reason = outcomes[hosts[0]].reason
            named.setdefault((kind, reason), []).extend(hosts)
        return named
    return grouped


def without_own_name(host: str, reason: str) -> str:
    """``reason`` with ``host`` as a whole name (not ``web1`` of ``web10``; ``web1.yml`` is its
    file) read as :data:`THIS_HOST`; no pattern per host: a fleet's names would each compile one."""
    parts, start = [], 0
    while (at := reason.find(host, start)) >= 0:
        end = at + len(host)
        whole = (at == 0 or not _in_name(reason[at - 1])) and (end == len(reason) or not _in_name(reason[end]))
        parts.append(reason[start:at] + (THIS_HOST if whole else host))
        start = end
    return "".join(parts) + reason[start:]


def _in_name(character: str) -> bool:
    return character.isalnum() or character in "_-"

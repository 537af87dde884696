"""The task hover's host summary: on which of the play's hosts (the ``inventory`` setting's) the
task runs, is skipped (why), or depends on a run-time value (which), as ``playbook-ls plan``
says it for the task itself (its ``run_once``, conditions and loop; an earlier task's failure or
a handler's notification is the plan's to follow, not the hover's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.flow.host_outcome import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome
from engine.flow.outcome_groups import by_outcome

if TYPE_CHECKING:
    from typing import Any

    from playbook_ls.features.workspace import Reach, WorkspaceIndex

MAX_CONTEXTS = 3
MAX_HOSTS = 2000
SHOWN_NAMES = 5
SHOWN_REASONS = 12
_WORDS = {RUNS: "runs on", SKIPPED: "skipped on", DEPENDS: "depends on run-time values on", FAILS: "fails on"}


def hosts_section(index: WorkspaceIndex, path: str, line: int, inventory: list[str]) -> str | None:
    """The summary for the task at ``line`` in each context reaching it (None for a handler,
    which runs when notified, or when no task is there)."""
    sections = []
    for reach in index.at(path, line)[:MAX_CONTEXTS]:
        if reach.task is None or reach.task.handler:
            continue
        play_plan, outcomes = outcomes_of(index, reach, inventory)
        cut = f" (the first {MAX_HOSTS} of {len(play_plan.hosts)})" if len(play_plan.hosts) > MAX_HOSTS else ""
        head = f"**on the hosts of play `{reach.play.name or ', '.join(map(str, reach.play.hosts))}`**{cut}:"
        sections.append("\n".join([head, *summary_lines(outcomes)]))
    return "\n\n".join(sections) or None


def outcomes_of(index: WorkspaceIndex, reach: Reach, inventory: list[str],
                context: tuple[Any, Any] | None = None) -> tuple[Any, dict[str, HostOutcome]]:
    """The play's plan and ``reach.task``'s outcome on the play's first ``MAX_HOSTS`` hosts;
    ``context``: the play's :func:`~playbook_ls.features.variables.play_context`, when the caller
    asks for every task of the play (it selects the play's hosts in the inventory).

    Kept with the play (which an edit replaces) for its inventory (replaced when its files
    change), until the workspace next changes: the greying of the open files
    (:mod:`~playbook_ls.features.host_preview`) works out the same outcomes after each change,
    and a hover then only reads them, as a second hover of the same task does."""
    from engine.flow.host_outcome import task_outcomes
    from engine.flow.host_reading import play_signatures
    from engine.flow.on_the_way import conditions_on_the_way, includers_of
    from engine.variables.report import play_batches
    from playbook_ls.features.variables import play_context

    task = reach.task
    assert task is not None
    plan, play_plan = context or play_context(index, reach, inventory)
    hosts = play_plan.hosts[:MAX_HOSTS]
    kept = reach.play.derived.setdefault("host outcomes", {})
    if kept.get("generation") != index.generation:
        kept.clear()
        kept["generation"] = index.generation
    names = tuple(host.name for host in hosts)
    key = (id(task), names, repr(plan.options))
    found = kept.get(key)
    if found is not None and found[0] is plan.inventory:
        return play_plan, found[1]
    every = [host.name for host in play_plan.hosts]
    batches = kept.get(("batches", tuple(every)))
    if batches is None:  # the play's, asked again for each of its tasks
        batches = kept[("batches", tuple(every))] = play_batches(reach.play, every)
    outcomes = task_outcomes(plan, play_plan, task, conditions_on_the_way(task, includers_of(reach.play, task)),
                             batches, play_signatures(plan, play_plan), hosts)
    kept[key] = (plan.inventory, outcomes)
    return play_plan, outcomes


def summary_lines(outcomes: dict[str, HostOutcome]) -> list[str]:
    """One line per outcome and reason (the reasons of hosts alike in all but their own names
    as one, see :func:`~engine.flow.outcome_groups.by_outcome`): how many hosts, the first few
    names, why; past ``SHOWN_REASONS`` lines, how many more hosts for how many more reasons."""
    lines = []
    order = list(_WORDS)
    grouped = sorted(by_outcome(outcomes, alike=True).items(), key=lambda item: order.index(item[0][0]))
    for (kind, reason), hosts in grouped[:SHOWN_REASONS]:
        names = ", ".join(hosts[:SHOWN_NAMES]) + (f", … ({len(hosts) - SHOWN_NAMES} more)"
                                                  if len(hosts) > SHOWN_NAMES else "")
        lines.append(f"- {_WORDS[kind]} {len(hosts)}: {names}" + (f" — {reason}" if reason else ""))
    rest = grouped[SHOWN_REASONS:]
    if rest:
        hosts_left = sum(len(hosts) for _, hosts in rest)
        lines.append(f"- … {hosts_left} more host{'s' if hosts_left != 1 else ''} for {len(rest)} more "
                     f"reason{'s' if len(rest) != 1 else ''} (`playbook-ls plan` lists them all)")
    return lines

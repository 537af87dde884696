"""The task hover's host summary: on which of the play's hosts (the ``inventory`` setting's) the
task runs, is skipped (why), or depends on a run-time value (which), as ``playbook-ls plan``
says it for the task itself (its ``run_once``, conditions and loop; an earlier task's failure or
a handler's notification is the plan's to follow, not the hover's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.flow.host_outcome import DEPENDS, FAILS, RUNS, SKIPPED, HostOutcome, by_outcome

if TYPE_CHECKING:
    from playbook_ls.features.workspace import WorkspaceIndex

MAX_CONTEXTS = 3
MAX_HOSTS = 2000
SHOWN_NAMES = 5
_WORDS = {RUNS: "runs on", SKIPPED: "skipped on", DEPENDS: "depends on run-time values on", FAILS: "fails on"}


def hosts_section(index: WorkspaceIndex, path: str, line: int, inventory: list[str]) -> str | None:
    """The summary for the task at ``line`` in each context reaching it (None for a handler,
    which runs when notified, or when no task is there)."""
    from engine.flow.host_outcome import task_outcomes
    from engine.flow.host_reading import play_signatures
    from engine.flow.on_the_way import conditions_on_the_way, includers_of
    from engine.variables.report import play_batches
    from playbook_ls.features.variables import play_context

    sections = []
    for reach in index.at(path, line)[:MAX_CONTEXTS]:
        task = reach.task
        if task is None or task.handler:
            continue
        plan, play_plan = play_context(index, path, reach, inventory)
        hosts = play_plan.hosts[:MAX_HOSTS]
        # kept with the play (which an edit replaces) for its inventory (replaced when its files
        # change), until the workspace next changes: hovering the same task again costs nothing
        kept = reach.play.derived.setdefault("hover outcomes", {})
        if kept.get("generation") != index.generation:
            kept.clear()
            kept["generation"] = index.generation
        key = (id(task), tuple(host.name for host in hosts), repr(plan.options))
        found = kept.get(key)
        if found is not None and found[0] is plan.inventory:
            outcomes = found[1]
        else:
            batches = play_batches(reach.play, [host.name for host in play_plan.hosts])
            outcomes = task_outcomes(plan, play_plan, task,
                                     conditions_on_the_way(task, includers_of(reach.play, task)),
                                     batches, play_signatures(plan, play_plan), hosts)
            kept[key] = (plan.inventory, outcomes)
        cut = f" (the first {MAX_HOSTS} of {len(play_plan.hosts)})" if len(play_plan.hosts) > MAX_HOSTS else ""
        head = f"**on the hosts of play `{reach.play.name or ', '.join(map(str, reach.play.hosts))}`**{cut}:"
        sections.append("\n".join([head, *summary_lines(outcomes)]))
    return "\n\n".join(sections) or None


def summary_lines(outcomes: dict[str, HostOutcome]) -> list[str]:
    """One line per outcome and reason: how many hosts, the first few names, why."""
    lines = []
    order = list(_WORDS)
    for (kind, reason), hosts in sorted(by_outcome(outcomes).items(), key=lambda item: order.index(item[0][0])):
        names = ", ".join(hosts[:SHOWN_NAMES]) + (f", … ({len(hosts) - SHOWN_NAMES} more)"
                                                  if len(hosts) > SHOWN_NAMES else "")
        lines.append(f"- {_WORDS[kind]} {len(hosts)}: {names}" + (f" — {reason}" if reason else ""))
    return lines

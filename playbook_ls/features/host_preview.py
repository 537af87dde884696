"""The tasks of the open files that a selection runs but that run on no host: the plan's greying.

The selection preview greys what the tags leave out. With the ``inventory`` setting, a task the
tags select can still run nowhere: its play's hosts are none of the inventory's, or its own
conditions, loop or ``run_once`` skip it on every host (what the task hover's host summary says,
``playbook-ls plan`` for the task itself). Such a task is greyed too, with the reasons. Only what
the plan decides counts: a task that depends on a run-time value, or fails, on some host is not
greyed; nor is a handler, which runs when notified.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from engine.flow.host_outcome import SKIPPED
from engine.flow.outcome_groups import by_outcome

if TYPE_CHECKING:
    from engine.flow.tags import Selection
    from engine.span import Span
    from playbook_ls.features.workspace import WorkspaceIndex



def run_nowhere(index: WorkspaceIndex, selection: Selection, inventory: list[str],
                files: Collection[str]) -> dict[str, list[tuple[Span, str]]]:
    """Real path (of ``files``, real paths) -> the tasks written there that ``selection`` runs in
    some context but that no host of the inventory runs in any context, with why."""
    from playbook_ls.features.host_hover import outcomes_of
    from playbook_ls.features.selection import never_run, play_verdicts
    from playbook_ls.features.variables import play_context
    from playbook_ls.features.workspace import Reach

    found: dict[tuple[str, Span], tuple[list[bool], dict[str, None]]] = {}
    for book in index.books.values():
        for digest in book.digests:
            written = {real: tasks for real, tasks in digest.files.items() if real in files}
            if not written:
                continue
            play = digest.play
            verdicts = play_verdicts(play, selection)
            context = None  # the play's hosts in the inventory, selected once for all its tasks
            for real, tasks in written.items():
                for task in tasks:
                    if task is None or task.span is None or task.handler:
                        continue
                    verdict = verdicts.get(id(task))
                    if verdict is None or not verdict.runs:
                        continue  # not selected here: the selection preview's to say
                    runs, reasons = found.setdefault((real, task.span), ([False], {}))
                    if runs[0]:
                        continue
                    context = context or play_context(index, Reach(book, None, play), inventory)
                    _play_plan, outcomes = outcomes_of(index, Reach(book, task, play), inventory, context)
                    if not outcomes or any(outcome.outcome != SKIPPED for outcome in outcomes.values()):
                        runs[0] = True
                        continue
                    for (_kind, reason), names in by_outcome(outcomes, alike=True).items():
                        reasons[f"{reason} ({len(names)} host{'s' if len(names) != 1 else ''})"] = None
    return never_run(found)

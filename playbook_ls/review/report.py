"""A review as the reader gets it: text for a terminal, markdown for a pull-request comment or a
step summary (what changes in the run first, details folded), JSON, or GitHub workflow commands
(an annotation on the line of each task whose run changes)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from playbook_ls.review.compare import HostChange, Listed, PlaybookReview, TaskChange

SHOWN_HOSTS = 5
_SIGNS = {"added": "+", "removed": "-", "renamed": "~", "moved": "~", "changed": "~"}


@dataclass
class Review:
    old: str
    new: str
    changed_files: list[str]
    playbooks: list[PlaybookReview]
    inventory: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """The new revision's inventory groups and their hosts (``--fail-on group=NAME``)."""
    loads_at_run: list[str] = field(default_factory=list)
    """Without an inventory, the playbooks not compared whose run loads files their reading does
    not (``include_vars``, includes named per host), which a changed file may be."""

    def differs(self) -> bool:
        return any(not playbook.empty() for playbook in self.playbooks)


NOTHING_REACHED = ("no playbook that either revision can plan loads a changed file: their tasks, tags, "
                   "conditions and values are the same (what a task copies or templates from a file is not "
                   "compared)")
"""Said when no playbook reads a changed file: a review that says nothing could be one that failed."""


def _nothing_reached(review: Review) -> str:
    if not review.loads_at_run:
        return NOTHING_REACHED
    count = len(review.loads_at_run)
    return (f"no playbook that either revision can plan reads a changed file before it runs, but {count} "
            f"load{'s' if count == 1 else ''} files when {'it runs' if count == 1 else 'they run'} "
            f"({', '.join(review.loads_at_run[:10])}{', …' if count > 10 else ''}: include_vars, includes named "
            "per host), which a changed file may be; no listing changes: give an inventory (-i) to compare their "
            "outcomes and values host by host")


def _hosts(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN_HOSTS])
    return shown + (f", … ({len(names) - SHOWN_HOSTS} more)" if len(names) > SHOWN_HOSTS else "")


def _outcome(outcome: tuple[str, str] | None) -> str:
    return "absent" if outcome is None else outcome[0]


def _host_line(change: HostChange) -> str:
    reason = change.after[1] if change.after and change.after[1] else change.before[1] if change.before else ""
    count = len(change.hosts)
    text = (f"{_outcome(change.before)} → {_outcome(change.after)} on {count} host{'s' if count != 1 else ''}: "
            f"{_hosts(change.hosts)}")
    return text + (f" — {reason}" if reason else "")


def _task_line(change: TaskChange) -> str:
    task = change.task
    text = f"{_SIGNS[change.kind]} {change.kind:8} {task.name}  {task.where}"
    return text + (f" — {'; '.join(change.details)}" if change.details else "")


def _listed_line(sign: str, entry: Listed) -> str:
    return f"{sign} {entry.task.name}  {entry.task.where} — {entry.why}"


def as_text(review: Review) -> str:
    lines = [f"playbook-ls diff: {review.old} → {review.new}",
             f"changed files: {len(review.changed_files)}" + (f" ({', '.join(review.changed_files[:10])}"
                                                              f"{', …' if len(review.changed_files) > 10 else ''})"
                                                              if review.changed_files else "")]
    lines += [f"note: {note}" for note in review.notes]
    quiet = [playbook.path for playbook in review.playbooks if playbook.empty() and not playbook.problems[1]]
    stuck = [playbook for playbook in review.playbooks if playbook.empty() and playbook.problems[1]]
    for playbook in review.playbooks:
        if playbook.empty():
            continue
        lines += ["", playbook.path + (f"  (reads the changed {', '.join(playbook.reaches)})"
                                       if playbook.reaches else "")]
        lines += _problem_lines(playbook, "  ")
        if playbook.tasks:
            lines.append("  tasks:")
            lines += [f"    {_task_line(change)}" for change in playbook.tasks]
        for selection in playbook.selections:
            if selection.differs():
                lines.append(f"  {selection.label}: now runs {len(selection.now_runs)}, "
                             f"no longer runs {len(selection.no_longer_runs)}"
                             + (f", in another order {len(selection.reordered)}" if selection.reordered else ""))
                lines += [f"    {_listed_line('+', entry)}" for entry in selection.now_runs]
                lines += [f"    {_listed_line('-', entry)}" for entry in selection.no_longer_runs]
                lines += [f"    {_listed_line('↕', entry)}" for entry in selection.reordered]
        if playbook.unchecked_tags:
            lines.append(f"  also touched, not compared: --tags {', '.join(playbook.unchecked_tags)}")
        if playbook.hosts:
            lines.append(f"  on the hosts of {', '.join(review.inventory)}:")
            for change in playbook.hosts:
                lines.append(f"    {change.task.name}  {change.task.where}")
                lines.append(f"      {_host_line(change)}")
        if playbook.values:
            lines.append("  values that change:")
            for value in playbook.values:
                count = len(value.hosts)
                lines.append(f"    {value.task.name}  {value.task.where}: {value.name} on {count} "
                             f"host{'s' if count != 1 else ''} ({_hosts(value.hosts)})")
                lines.append(f"      was {value.before}")
                lines.append(f"      now {value.after}")
        if playbook.handler_order:
            lines.append(f"  handlers in another order {len(playbook.handler_order)} (notified together, they run "
                         "in the play's order):")
            lines += [f"    {_listed_line('↕', entry)}" for entry in playbook.handler_order]
        for notification in playbook.notifications:
            lines.append(f"  {notification.task.name}  {notification.task.where}: notifies "
                         f"'{notification.notification}', which no handler answers"
                         + (f" any more (it reached {notification.before})" if notification.before else ""))
    if not review.playbooks:
        lines += ["", _nothing_reached(review)]
    if quiet:
        lines += ["", f"no difference in the run of {len(quiet)} playbook{'s' if len(quiet) != 1 else ''}: "
                      + ", ".join(quiet[:10]) + (", …" if len(quiet) > 10 else "")]
    if stuck:  # not compared: said, with why, rather than counted as unchanged
        lines += ["", f"not compared, {len(stuck)} playbook{'s' if len(stuck) != 1 else ''} that neither revision "
                      f"can plan (ansible-playbook stops on them too):"]
        lines += [f"  {playbook.path}: {playbook.problems[1]}" for playbook in stuck[:10]]
        lines += [f"  … and {len(stuck) - 10} more"] if len(stuck) > 10 else []
    return "\n".join(lines) + "\n"


def _problem_lines(playbook: PlaybookReview, indent: str) -> list[str]:
    before, after = playbook.problems
    if before == after:
        return [f"{indent}cannot be planned in either revision: {after}"] if after else []
    lines = []
    if after:
        lines.append(f"{indent}cannot be planned in the new revision (ansible-playbook stops too): {after}")
    if before:
        lines.append(f"{indent}could not be planned in the old revision: {before}")
    return lines


def as_markdown(review: Review) -> str:
    """A pull-request comment a reviewer reads in a minute: one line per playbook whose run
    changes, biggest first; each playbook's details folded."""
    changed = sorted((p for p in review.playbooks if not p.empty()), key=_weight, reverse=True)
    lines = [f"### playbook-ls diff: `{review.old}` → `{review.new}`", ""]
    if not review.playbooks:
        said = _nothing_reached(review)
        lines.append(said[0].upper() + said[1:] + ".")
        return "\n".join(lines) + "\n"
    if not changed:
        lines.append(f"No change in the run of {len(review.playbooks)} playbook(s) "
                     f"({len(review.changed_files)} changed file(s)).")
        return "\n".join(lines) + "\n"
    lines += ["| playbook | tasks | selections | order | hosts | values | notifications |",
              "|---|---|---|---|---|---|---|"]
    for playbook in changed:
        selections = sum(len(s.now_runs) + len(s.no_longer_runs) for s in playbook.selections)
        order = max((len(s.reordered) for s in playbook.selections), default=0) + len(playbook.handler_order)
        hosts = len({host for change in playbook.hosts for host in change.hosts})
        lines.append(f"| `{playbook.path}` | {len(playbook.tasks)} | {selections} | {order} | {hosts} | "
                     f"{len(playbook.values)} | {len(playbook.notifications)} |")
    for playbook in changed:
        text = as_text(Review(review.old, review.new, [], [playbook], review.inventory)).splitlines()[3:]
        lines += ["", f"<details><summary><code>{playbook.path}</code></summary>", "", "```", *text, "```",
                  "", "</details>"]
    if review.notes:
        lines += ["", *(f"> {note}" for note in review.notes)]
    return "\n".join(lines) + "\n"


def _weight(playbook: PlaybookReview) -> int:
    return (10 * sum(len(change.hosts) for change in playbook.hosts)
            + 5 * sum(len(s.now_runs) + len(s.no_longer_runs) for s in playbook.selections)
            + max((len(s.reordered) for s in playbook.selections), default=0) + len(playbook.handler_order)
            + len(playbook.tasks) + 20 * len(playbook.notifications))


def as_github(review: Review) -> str:
    """A workflow command per task whose run changes, on its line in the new revision."""
    out = []
    for playbook in review.playbooks:
        for selection in playbook.selections:
            for sign, entries in (("now runs", selection.now_runs), ("no longer runs", selection.no_longer_runs)):
                out += [_annotation("warning", entry.task, f"{selection.label}: {sign} — {entry.why}")
                        for entry in entries]
            out += [_annotation("notice", entry.task, f"{selection.label}: runs in another order — {entry.why}")
                    for entry in selection.reordered]
        out += [_annotation("notice", entry.task, f"handler runs in another order — {entry.why}")
                for entry in playbook.handler_order]
        for change in playbook.hosts:
            out.append(_annotation("warning", change.task, _host_line(change)))
        for notification in playbook.notifications:
            out.append(_annotation("error", notification.task,
                                   f"notifies '{notification.notification}', which no handler answers"))
    return "".join(out)


def _annotation(level: str, task: Any, message: str) -> str:
    def escaped(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    place = f" file={task.file},line={task.line}," if task.file else " "
    return f"::{level}{place}title=playbook-ls diff::{escaped(f'{task.name}: {message}')}\n"


def as_json(review: Review) -> str:
    return json.dumps(asdict(review), indent=1, default=str) + "\n"


FORMATS = {"text": as_text, "markdown": as_markdown, "github": as_github, "json": as_json}

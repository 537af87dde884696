"""Code lenses and the data behind the ``playbook-ls.*`` commands (pure functions)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.flow.tags import Selection, render_listing, selected_tasks
from playbook_ls.features import (
    CHECK_TASKS,
    LIST_TASKS,
    RUN_TASKS,
    SHOW_EFFECTIVE_TAGS,
    SHOW_PLAN,
    SHOW_REVIEW,
    TRUST_NEEDED,
)
from playbook_ls.features.hover import context_label
from playbook_ls.features.review_view import in_git_repository
from playbook_ls.rules.base import display_path, keyword_span, where

if TYPE_CHECKING:
    from engine.span import Span
    from playbook_ls.features.workspace import Reach, WorkspaceIndex


class Lens:
    """A lens without LSP types: where, the title, the command with its arguments, and what a
    client may show on pointing at it."""

    __slots__ = ("span", "title", "command", "arguments", "tooltip")

    def __init__(self, span: Span, title: str, command: str, arguments: list[Any], tooltip: str | None = None) -> None:
        self.span, self.title, self.command, self.arguments = span, title, command, arguments
        self.tooltip = tooltip


def lenses(index: WorkspaceIndex, path: str) -> list[Lens]:
    """Above each play: its tags, 'List tasks', '▶ Check' and '▶ Run'; above each task: its
    effective tags, and the listing, check and run of the tag selection that reaches it. In a
    workspace that is not trusted, one '▶ Check … (needs trust)' lens instead of the two: a click
    is refused, with why and how to allow it."""
    result: list[Lens] = []
    by_line: dict[int, list[Reach]] = {}
    for reach in index.reaches(path):
        span = reach.task.span if reach.task else reach.play.span
        if span is not None:
            by_line.setdefault(span.line, []).append(reach)
    for line in sorted(by_line):
        reaches = by_line[line]
        first = reaches[0]
        span = (first.task or first.play).span
        assert span is not None
        head = span._replace(end_line=span.line, end_col=span.col)
        contexts = len({id(r.book) for r in reaches}) if first.task is None else len(reaches)
        more = f" (+{contexts - 1} contexts)" if contexts > 1 else ""
        if first.task is None:
            tags = ", ".join(map(str, first.play.frame.tags)) or "none"
            result.append(Lens(head, f"play tags: {tags}{more}", SHOW_EFFECTIVE_TAGS, [path, line]))
            result.append(Lens(head, "List tasks", LIST_TASKS, [{"path": path, "line": line}]))
            if not first.book.synthetic:
                result.append(Lens(head, "Plan per host", SHOW_PLAN, [{"path": first.book.path}]))
                if in_git_repository(index.root):
                    result.append(Lens(head, "Review the change", SHOW_REVIEW, [{"path": first.book.path}],
                                       "what this branch changes in the run of the playbook, against its merge "
                                       "base (playbook-ls diff)"))
            result += run_lenses(head, first, None, index.run_repository_code)
        else:
            task = first.task
            own = ", ".join(map(str, task.frame.tags))
            inherited = ", ".join(dict.fromkeys(str(t) for f in task.chain[:-1] for t in f.tags))
            title = " · ".join(part for part in (f"tags: {own}" if own else "", f"inherited: {inherited}"
                                                if inherited else "") if part) or "untagged"
            result.append(Lens(head, f"{title}{more}", SHOW_EFFECTIVE_TAGS, [path, line]))
            if task.tag_set():
                selection = ",".join(sorted(str(t) for t in task.tag_set() if t not in ("always", "never")))
                if selection:
                    result.append(Lens(head, f"List tasks for --tags {selection}", LIST_TASKS,
                                       [{"path": path, "line": line, "tags": selection}]))
            result += run_lenses(head, first, run_selection(task), index.run_repository_code)
    return result


def run_selection(task: Any) -> str | None:
    """The ``--tags`` value that reaches ``task``: its effective tags (``always`` and ``never``
    aside, as for 'List tasks'), ``never`` for a task only ``never`` would select, and None
    for a task only a run of its whole play reaches (untagged, or only ``always``)."""
    tags = task.tag_set()
    selection = ",".join(sorted(str(t) for t in tags if t not in ("always", "never")))
    if selection:
        return selection
    return "never" if "never" in tags else None


def run_lenses(head: Span, reach: Reach, tags: str | None, trusted: bool = True) -> list[Lens]:
    """'▶ Check' then '▶ Run' for the tasks of ``reach``'s play that ``tags`` selects (the
    whole play without tags); in a workspace that is not ``trusted``, a single lens saying that
    both need trust (its click is refused with how to allow it)."""
    arguments = run_arguments(reach, tags)
    if arguments is None:
        return []
    what = f"--tags {tags}" if tags else "play"
    if not trusted:
        return [Lens(head, f"▶ Check {what} (needs trust)", CHECK_TASKS, [dict(arguments)], TRUST_NEEDED)]
    return [Lens(head, f"▶ Check {what}", CHECK_TASKS, [dict(arguments)]),
            Lens(head, f"▶ Run {what}", RUN_TASKS, [dict(arguments)])]


def run_arguments(reach: Reach, tags: str | None) -> dict[str, Any] | None:
    """The arguments of ``playbook-ls.checkTasks`` / ``runTasks`` that run the tasks of
    ``reach``'s play that ``tags`` selects. Only for a playbook a run can start from: a role no
    playbook uses, or a playbook the engine cannot load, has none."""
    book = reach.book
    if book.synthetic or book.playbook.fatal_problems():
        return None
    plays = book.playbook.plays
    number = next((i for i, play in enumerate(plays) if play is reach.play), None)
    if number is None:
        return None
    arguments: dict[str, Any] = {"playbook": book.path, "play": number}
    play_span = reach.play.span
    if play_span is not None:
        arguments["play_at"] = [play_span.file, play_span.line]
    if tags:
        arguments["tags"] = tags
    return arguments


def run_arguments_at(index: WorkspaceIndex, path: str, line: int) -> dict[str, Any] | None:
    """What the '▶ Check' / '▶ Run' lens of the task or play at ``line`` runs (its first
    context that a run can start from), for clients that run "the task set at the cursor"."""
    for reach in index.at(path, line):
        arguments = run_arguments(reach, run_selection(reach.task) if reach.task is not None else None)
        if arguments is not None:
            return arguments
    return None


def effective_tags(index: WorkspaceIndex, path: str, line: int) -> list[dict[str, Any]]:
    """Every context of what is at ``line``: its tags with origins and its when chain."""
    result = []
    for reach in index.at(path, line):
        if reach.task is None:
            result.append({"playbook": reach.book.path, "play": reach.play.name,
                           "tags": [{"tag": t, "from": "play"} for t in reach.play.frame.tags]})
            continue
        task = reach.task
        result.append({
            "playbook": reach.book.path,
            "context": context_label(reach),
            "task": task.display_name(),
            "tags": [{"tag": tag, "from": frame.label, "at": where(keyword_span(frame, "tags"))}
                     for frame in task.chain for tag in frame.tags],
            "when": [{"condition": cond, "from": frame.label} for frame in task.chain for cond in frame.when],
        })
    return result


def list_tasks(index: WorkspaceIndex, args: dict[str, Any]) -> dict[str, Any]:
    """What ``ansible-playbook --list-tasks`` would print for a play (or every play of the
    playbooks reaching ``path``) under the given tags; the listing text plus structured data."""
    path, line = args.get("path", ""), args.get("line")
    config = index.configs.for_path(path) if path else index.ansible
    tags, skip = config.command_line_tags([args["tags"]] if args.get("tags") else None,
                                          [args["skip_tags"]] if args.get("skip_tags") else None)
    selection = Selection.from_options(tags, skip)
    reaches = index.at(path, line) if line is not None else index.reaches(path)
    books = list({id(r.book): r.book for r in reaches}.values()) or [
        b for b in index.books.values() if index.real(b.path) == index.real(path)]
    plays_wanted = {id(r.play) for r in reaches if r.task is None}
    listings = []
    for book in books:
        plays = [p for p in book.playbook.plays if not plays_wanted or id(p) in plays_wanted]
        try:
            text = render_listing([_only(book.playbook, plays)], selection, True, False)
        except Exception as exc:  # noqa: BLE001 - the listing stops where ansible would
            text = getattr(exc, "output", "") or f"cannot list: {exc}"
        tasks = [{"play": play.name, "task": task.display_name(),
                  "path": display_path(task.span.file) if task.span else None,
                  "line": task.span.line if task.span else None}
                 for play in plays for task in selected_tasks(play, selection)]
        listings.append({"playbook": book.path, "text": text, "tasks": tasks})
    return {"tags": tags, "skip_tags": skip, "listings": listings}


def _only(playbook: Any, plays: list[Any]) -> Any:
    from engine.loading.model import Playbook

    subset = Playbook(playbook.path)
    subset.plays, subset.problems = plays, []
    return subset


def effective_tags_text(entries: list[dict[str, Any]]) -> str:
    """:func:`effective_tags` as text, for clients that show a command's result as a document."""
    if not entries:
        return "No task or play of a playbook of the workspace is at this line.\n"
    lines: list[str] = []
    for entry in entries:
        if "task" not in entry:
            tags = ", ".join(t["tag"] for t in entry["tags"]) or "(none)"
            lines += [f"play {entry['play']} in {display_path(entry['playbook'])}", f"  tags: {tags}", ""]
            continue
        lines.append(f"task {entry['task']}")
        lines.append(f"  context: {entry['context'].replace('`', '')}")
        if entry["tags"]:
            lines.append("  tags:")
            lines += [f"    {t['tag']}  (from {t['from']}{', ' + t['at'] if t.get('at') else ''})"
                      for t in entry["tags"]]
        else:
            lines.append("  tags: (none: runs when no --tags is given, or with --tags all/untagged)")
        if entry["when"]:
            lines.append("  when:")
            lines += [f"    {w['condition']}  (from {w['from']})" for w in entry["when"]]
        lines.append("")
    return "\n".join(lines)


def list_tasks_text(result: dict[str, Any]) -> str:
    """:func:`list_tasks` as text: each playbook's listing as ansible-playbook prints it."""
    selection = " ".join([*(f"--tags {t}" for t in result["tags"]), *(f"--skip-tags {t}" for t in result["skip_tags"])])
    head = f"# ansible-playbook --list-tasks {selection}".rstrip()
    parts = [head]
    for listing in result["listings"]:
        parts.append(listing["text"].rstrip("\n"))
    if not result["listings"]:
        parts.append("No playbook of the workspace reaches this file.")
    return "\n\n".join(parts) + "\n"

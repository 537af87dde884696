"""Document outline and workspace symbols (pure functions; plain data out).

The outline is read from the parsed YAML of the file itself, so it works for files no
playbook reaches and for unsaved buffers; it never needs the resolved model. Workspace
symbols come from the index: tasks by display name, roles, and tags.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.loading import keywords as kw
from engine.loading import paths as fs
from engine.loading.actions import ActionError, parse_action
from engine.span import Span
from playbook_ls.check import discover
from playbook_ls.features import cursor
from playbook_ls.features import yamlnav as yn
from playbook_ls.features.navigation import role_entry_file, written_tag_spans
from playbook_ls.features.yamltext import split_lines
from playbook_ls.rules.base import display_path, task_anchor

if TYPE_CHECKING:
    from playbook_ls.features.workspace import WorkspaceIndex

# Symbol kinds, mapped to LSP kinds by the glue.
PLAY, IMPORT, SECTION, BLOCK, TASK, HANDLER, ROLE, TAG = (
    "play", "import", "section", "block", "task", "handler", "role", "tag")
SECTIONS = ("pre_tasks", "roles", "tasks", "post_tasks", "handlers")
WORKSPACE_LIMIT = 500


class Outline(NamedTuple):
    """One outline entry: ``span`` covers it, ``selection`` is its name (inside ``span``)."""

    name: str
    detail: str
    kind: str
    span: Span
    selection: Span
    children: list[Outline]


class Found(NamedTuple):
    """A workspace symbol."""

    name: str
    kind: str
    span: Span
    container: str


# -- document symbols ---------------------------------------------------------------------

def document_symbols(index: WorkspaceIndex, path: str) -> list[Outline]:
    """Plays > sections > blocks > tasks for a playbook; blocks and tasks for a task file;
    the dependencies of a role's meta/main.yml."""
    data = index.load(path).data
    lines = split_lines(index.text(path))
    if isinstance(data, dict) and isinstance(data.get("dependencies"), list):
        return _roles(data["dependencies"], lines)
    if not isinstance(data, list):
        return []
    if discover.looks_like_playbook(data):
        return [entry for item, span in _items(data) if (entry := _play(item, span, lines)) is not None]
    handler = os.path.basename(os.path.dirname(path)) == "handlers"
    return _tasks(data, lines, HANDLER if handler else TASK)


def _items(seq: Any) -> list[tuple[Any, Span]]:
    spans = getattr(seq, "item_spans", [])
    return [(item, spans[i]) for i, item in enumerate(seq) if i < len(spans) and spans[i] is not None]


def _selection(item: Any, span: Span) -> Span:
    """The entry's name if it has one, else its first key: always inside ``span``."""
    value_spans, key_spans = getattr(item, "value_spans", {}), getattr(item, "key_spans", {})
    chosen = value_spans.get("name") if isinstance(item.get("name"), str) else None
    chosen = chosen or next(iter(key_spans.values()), None)
    if chosen is None or not yn.encloses(span, chosen):
        return span._replace(end_line=span.line, end_col=span.col)
    return chosen


def _play(item: Any, span: Span, lines: list[str]) -> Outline | None:
    if not isinstance(item, dict):
        return None
    whole = yn.extent(item, span, lines)
    import_key = next((key for key in item if key in kw.IMPORT_PLAYBOOK), None)
    if import_key is not None:
        name = f"{import_key}: {item[import_key]}"
        return Outline(name, _tags_detail(item), IMPORT, whole, _selection(item, whole), [])
    hosts = item.get("hosts")
    hosts_text = ", ".join(map(str, hosts)) if isinstance(hosts, list) else str(hosts or "")
    name = str(item.get("name") or f"hosts: {hosts_text}")
    detail = " · ".join(part for part in (f"hosts: {hosts_text}", _tags_detail(item)) if part)
    sections = []
    for section in (key for key in item if key in SECTIONS):  # in the order they are written
        value = item.get(section)
        key_span, value_span = item.key_spans.get(section), item.value_spans.get(section)
        if not isinstance(value, list) or key_span is None or value_span is None:
            continue
        end = yn.extent(value, value_span, lines)
        covered = Span(span.file, key_span.line, key_span.col, end.end_line, end.end_col)
        if section == "roles":
            entries = _roles(value, lines)
        else:
            entries = _tasks(value, lines, HANDLER if section == "handlers" else TASK)
        sections.append(Outline(section, f"{len(value)} entries", SECTION, covered, key_span, entries))
    return Outline(name, detail, PLAY, whole, _selection(item, whole), sections)


def _roles(entries: Any, lines: list[str]) -> list[Outline]:
    result = []
    for entry, span in _items(entries):
        if isinstance(entry, dict):
            key = "role" if "role" in entry else "name"
            name = entry.get(key)
            whole = yn.extent(entry, span, lines)
            selection = entry.value_spans.get(key) or _selection(entry, whole)
        else:
            name, whole, selection = entry, span, span
        if name is not None:
            result.append(Outline(str(name), _tags_detail(entry), ROLE, whole, selection, []))
    return result


def _tasks(items: Any, lines: list[str], kind: str) -> list[Outline]:
    result = []
    for item, span in _items(items):
        if not isinstance(item, dict) or not item:
            continue
        whole = yn.extent(item, span, lines)
        if "block" in item:
            children = _tasks(item.get("block") or [], lines, kind)
            for section in ("rescue", "always"):
                value, key_span = item.get(section), item.key_spans.get(section)
                if isinstance(value, list) and key_span is not None:
                    end = yn.extent(value, item.value_spans[section], lines)
                    covered = Span(span.file, key_span.line, key_span.col, end.end_line, end.end_col)
                    children.append(Outline(section, "", SECTION, covered, key_span, _tasks(value, lines, kind)))
            name = str(item.get("name") or "block")
            result.append(Outline(name, _tags_detail(item), BLOCK, whole, _selection(item, whole), children))
            continue
        action = _action(item)
        target = item.get(action) if action in cursor.TASK_FILE_ACTIONS | cursor.ROLE_ACTIONS else None
        if isinstance(target, dict):
            target = target.get("name", target.get("role", target.get("file", target.get("_raw_params"))))
        what = f"{action} {target}" if isinstance(target, str) else action
        # an unnamed import or include is best known by what it loads
        name = str(item["name"]) if item.get("name") else what or "(task)"
        detail = " · ".join(part for part in (what, _tags_detail(item)) if part)
        result.append(Outline(name, detail, kind, whole, _selection(item, whole), []))
    return result


def _action(item: dict[str, Any]) -> str:
    try:
        return parse_action(item).action
    except ActionError:
        return ""


def _tags_detail(item: Any) -> str:
    tags = item.get("tags") if isinstance(item, dict) else None
    if tags in (None, "", []):
        return ""
    return "tags: " + (", ".join(map(str, tags)) if isinstance(tags, list) else str(tags))


# -- workspace symbols --------------------------------------------------------------------

_cache: dict[str, Any] = {"books": None, "tasks": []}


def workspace_symbols(index: WorkspaceIndex, query: str, limit: int = WORKSPACE_LIMIT) -> list[Found]:
    """Roles, tags and tasks whose name contains ``query`` (case-insensitive), at most ``limit``."""
    needle = query.strip().lower()
    found = [item for item in _roles_found(index) if needle in item.name.lower()]
    found += [_tag_found(index, tag) for tag in sorted(index.tag_map) if needle in tag.lower()]
    found += [item for item in _tasks_found(index) if needle in item.name.lower()]
    return [item for item in found if item is not None][:limit]


def _roles_found(index: WorkspaceIndex) -> list[Found]:
    roles = sorted({role for file in index.files if (role := discover.role_of(file))})
    result = []
    for role in roles:
        entry = role_entry_file(role)
        if entry:
            result.append(Found(os.path.basename(role), ROLE, Span(entry, 0, 0, 0, 0), display_path(role)))
    return result


def _tag_found(index: WorkspaceIndex, tag: str) -> Found | None:
    """A tag, at the first place it is written."""
    for reach in index.tagged(tag):
        if reach.task is None:
            continue
        for frame in reach.task.chain:
            span = frame.keyword_spans.get("tags")
            if span is not None and tag in frame.tags and not (reach.book.synthetic and span.file == reach.book.path):
                return Found(tag, TAG, written_tag_spans(index, span, tag)[0], display_path(span.file))
    return None


def _tasks_found(index: WorkspaceIndex) -> list[Found]:
    """Every task written somewhere, once however many contexts reach it. Cached per index
    state: the index swaps in a new ``books`` dict whenever it changes."""
    if _cache["books"] is index.books:
        return _cache["tasks"]  # type: ignore[no-any-return]
    seen: dict[tuple[str, int, int], Found] = {}
    for book in index.books.values():
        for play, task in book.context.tasks():
            anchor = task_anchor(task)
            if task.implicit or anchor is None or task.span is None or not getattr(task.data, "key_spans", None):
                continue  # implicit and argument-validation tasks are written nowhere
            if book.synthetic and anchor.file == book.path:
                continue
            key = (fs.realpath(anchor.file), anchor.line, anchor.col)
            if key not in seen:
                container = play.name if not book.synthetic else display_path(os.path.dirname(anchor.file))
                seen[key] = Found(task.display_name(), HANDLER if task.handler else TASK, anchor, container)
    tasks = sorted(seen.values(), key=lambda f: (f.name.lower(), f.span.file, f.span.line))
    _cache.update(books=index.books, tasks=tasks)
    return tasks

"""Hover on one token: a module name, a tag, a role name, an import path, a handler name.

``token_hover`` answers None anywhere else, so that the task/play hover of
:mod:`playbook_ls.features.hover` applies. The token is found in the raw text (see
:mod:`playbook_ls.features.yamltext`); what it refers to comes from the resolved workspace,
so a role or a file is the one ansible would use from here, not a guess by name.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.loading import keywords as kw
from engine.loading.model import RoleInstance, Task
from playbook_ls.features import cursor, module_data
from playbook_ls.features.completion import distinct_tasks, plural
from playbook_ls.features.cursor import Context
from playbook_ls.features.yamltext import TOP, Doc, Piece, context, pieces, top_kind_from_text
from playbook_ls.rules.base import display_path, where

if TYPE_CHECKING:
    from engine.span import Span
    from playbook_ls.features.workspace import Book, WorkspaceIndex

MAX_LISTED = 10
_UNRESOLVED = ("unresolved-import", "unresolved-include", "unresolved-role", "dynamic-include")


class Token(NamedTuple):
    """``kind``: key, value (of ``key`` on the same line) or item (of the sequence under ``key``).
    ``ctx`` is the mapping the key is in (for an item: the mapping holding the sequence)."""

    kind: str
    text: str
    key: str
    ctx: Context
    line: int


def token_hover(index: WorkspaceIndex, path: str, line: int, column: int) -> str | None:
    """Markdown for the token at ``line``/``column`` (code points) of ``path``, or None."""
    doc = Doc(index.text(path))
    token = token_at(doc, line, column, cursor.top_kind(index, path, lambda: top_kind_from_text(doc)))
    if token is None:
        return None
    if token.kind == "key" and token.ctx.kind == "args" and token.ctx.module:
        return module_data.option_markdown(token.ctx.module, token.text, module_data.index_for(index, path),
                                           module_data.collections_at(index, path, line, token.ctx.module))
    kind = cursor.name_kind(token.ctx, token.key, is_key=token.kind == "key", item=token.kind == "item")
    if kind == cursor.MODULE:
        name = token.text if token.kind == "key" else token.text.split(" ", 1)[0]
        return module_data.module_markdown(name, module_data.index_for(index, path),
                                           module_data.collections_at(index, path, line, name))
    if kind == cursor.TAG:
        return tag_markdown(index, token.text)
    if kind == cursor.ROLE:
        return role_markdown(index, path, token)
    if kind in (cursor.TASK_FILE, cursor.PLAYBOOK):
        return import_markdown(index, path, token)
    if kind == cursor.NOTIFY:
        return handler_markdown(index, path, token.text)
    return None


def token_at(doc: Doc, line: int, column: int, top: str) -> Token | None:
    if not 0 <= line < len(doc.lines):
        return None
    here = doc.lines[line]
    if here.blank:
        return None
    if here.key is not None and here.key_col <= column < here.key_end:
        return Token("key", here.key, here.key, context(doc, line, here.key_col, top), line)
    if here.key is not None:
        piece = _piece_at(pieces(here.value, here.value_col, here.key == "tags"), column)
        if piece is None or here.value.startswith(("|", ">", "{")):
            return None
        return Token("value", piece.text, here.key, context(doc, line, here.key_col, top), line)
    if not here.dashes:
        return None
    owner = doc.sequence_parent(line, here.dashes[-1])
    if owner is None or owner == TOP:
        return None
    piece = _piece_at(pieces(here.value, here.value_col, False), column)
    if piece is None:
        return None
    above = doc.lines[owner]
    return Token("item", piece.text, above.key or "", context(doc, owner, above.key_col, top), line)


def _piece_at(found: list[Piece], column: int) -> Piece | None:
    return next((p for p in found if p.start <= column < p.end or (column == p.end and p.text)), None)


# -- tags ------------------------------------------------------------------------------------
def tag_markdown(index: WorkspaceIndex, tag: str) -> str | None:
    if not tag or "{{" in tag:
        return None
    tasks = distinct_tasks(index.tagged(tag))
    special = {"always": " Special: the task runs even when other tags are selected, unless skipped by name.",
               "never": " Special: the task runs only when one of its other tags (or `never`) is selected."}
    head = f"**tag `{tag}`** — carried by {plural(len(tasks), 'task')} (own or inherited).{special.get(tag, '')}"
    if not tasks:
        return head
    return head + "\n\n" + _task_list([r.task for r in tasks if r.task is not None])


def _task_list(tasks: list[Task]) -> str:
    lines = [f"- `{where(t.span)}` {t.display_name()}" for t in tasks[:MAX_LISTED]]
    if len(tasks) > MAX_LISTED:
        lines.append(f"- … and {len(tasks) - MAX_LISTED} more")
    return "\n".join(lines)


# -- roles -----------------------------------------------------------------------------------
def _relevant_books(index: WorkspaceIndex, path: str) -> list[Book]:
    """The books that read ``path``; all of them when none does (the file is not reached)."""
    real = index.real(path)
    books = list(index.books.values())
    reading = [b for b in books if real in b.deps]
    return reading or books


def _role_uses(books: list[Book]) -> list[RoleInstance]:
    found: dict[int, RoleInstance] = {}
    for book in books:
        for _play, task in book.context.tasks():
            role = task.role
            while role is not None and id(role) not in found:
                found[id(role)] = role
                role = role.parent
            if task.children and task.action in kw.INCLUDE_ROLE:
                for child in (t for block in task.children for t in block.tasks()):
                    if child.role is not None:
                        found.setdefault(id(child.role), child.role)
    return list(found.values())


def role_markdown(index: WorkspaceIndex, path: str, token: Token) -> str | None:
    name = token.text
    if not name or "{{" in name:
        return None
    uses = [r for r in _role_uses(list(index.books.values())) if name in (r.name, os.path.basename(r.path or ""))]
    here = [r for r in uses if _on_line(r.span, path, token.line) or _on_line(_entry_span(r), path, token.line)]
    chosen = here or uses
    if not chosen:
        problem = _problem_on_line(index, path, token.line, ("unresolved-role",))
        return f"**role `{name}`** — not found: {problem}" if problem else f"**role `{name}`** — not resolved " \
            "from here (no indexed playbook uses this line)"
    role_path = chosen[0].path or ""
    same = [r for r in uses if r.path == role_path]
    real_role = index.real(role_path) + os.sep
    in_role = [reach for file in list(index.file_map) if file.startswith(real_role) for reach in index.reaches(file)
               if reach.task is not None and reach.task.role is not None and reach.task.role.path == role_path]
    tasks = [r.task for r in distinct_tasks(in_role, handlers=True) if r.task is not None]
    handlers = sum(1 for t in tasks if t.handler)
    counted = plural(len(tasks) - handlers, "task") + (f", {plural(handlers, 'handler')}" if handlers else "")
    spans = {(_entry_span(r) or r.span, _via(r)) for r in same}
    where_used = [f"- `{where(span)}` {via}" for span, via in sorted(
        (item for item in spans if item[0] is not None), key=lambda item: (item[0].file, item[0].line))]
    origin = " (from a collection)" if chosen[0].external else ""
    lines = [f"**role `{name}`** · `{display_path(role_path)}`{origin}", counted]
    if where_used:
        shown = where_used[:MAX_LISTED] + ([f"- … and {len(where_used) - MAX_LISTED} more"]
                                           if len(where_used) > MAX_LISTED else [])
        lines.append("**used at:**\n" + "\n".join(shown))
    return "\n\n".join(lines)


def _entry_span(role: RoleInstance) -> Span | None:
    return role.entry.span if role.entry is not None and role.via in ("roles", "dependency") else role.span


def _via(role: RoleInstance) -> str:
    return {"roles": "roles: entry", "dependency": f"dependency of `{role.parent.name}`" if role.parent
            else "dependency"}.get(role.via, role.via)


def _on_line(span: Span | None, path: str, line: int) -> bool:
    return span is not None and span.line <= line <= span.end_line and \
        os.path.realpath(span.file) == os.path.realpath(path)


def _problem_on_line(index: WorkspaceIndex, path: str, line: int, codes: tuple[str, ...]) -> str | None:
    for book in _relevant_books(index, path):
        for problem in book.playbook.problems:
            if problem.code in codes and _on_line(problem.span, path, line):
                from engine.loading.model import join_sentences

                return join_sentences(problem.message, problem.hint)
    return None


# -- imports ---------------------------------------------------------------------------------
def import_markdown(index: WorkspaceIndex, path: str, token: Token) -> str | None:
    target = token.text
    if not target:
        return None
    resolved = _resolved_import(index, path, token.line)
    if resolved is not None:
        return f"**{target}** → `{display_path(resolved)}`"
    problem = _problem_on_line(index, path, token.line, _UNRESOLVED)
    if problem:
        return f"**{target}** — not found: {problem}"
    guess = os.path.join(os.path.dirname(os.path.abspath(path)), target)
    if "{{" not in target and os.path.isfile(guess):
        return f"**{target}** → `{display_path(guess)}` (no indexed playbook reaches this line)"
    return f"**{target}** — not found, looked in `{display_path(os.path.dirname(guess))}`" if "{{" not in target \
        else f"**{target}** — depends on variables; not resolved (no indexed playbook reaches this line)"


def _resolved_import(index: WorkspaceIndex, path: str, line: int) -> str | None:
    """The file an import or include written on ``line`` of ``path`` loads, as resolved."""
    for book in _relevant_books(index, path):
        for _play, task in book.context.tasks():
            # task mappings written in one file never nest (blocks are not tasks): one can match
            if task.include_resolved and task.action in kw.INCLUDE_TASKS and _on_line(task.span, path, line):
                return task.include_resolved
            chain = task.chain
            for number, frame in enumerate(chain[:-1]):
                # an import's frame is followed by a frame written in the imported file
                if frame.kind in ("import_tasks", "import_playbook") and _on_line(frame.span, path, line):
                    below = chain[number + 1].span
                    if below is not None:
                        return below.file
    return None


# -- handlers --------------------------------------------------------------------------------
def handler_markdown(index: WorkspaceIndex, path: str, name: str) -> str | None:
    if not name or "{{" in name:
        return None
    found: dict[tuple[str, int], Task] = {}
    for book in _relevant_books(index, path):
        for _play, task in book.context.tasks():
            if task.handler and task.span is not None and name in _handler_names(task):
                found.setdefault((index.real(task.span.file), task.span.line), task)
    if not found:
        return f"**handler `{name}`** — no handler of that name (or `listen` topic) in the plays that reach " \
               "this file"
    tasks = [found[key] for key in sorted(found)]
    return f"**handler `{name}`** — defined at:\n\n" + _task_list(tasks)


def _handler_names(task: Task) -> set[Any]:
    names: set[Any] = set()
    if task.name:
        names.add(task.name)
        if task.role is not None:
            names.add(f"{task.role.name} : {task.name}")
    listen = task.data.get("listen") if isinstance(task.data, dict) else None
    names |= set(listen) if isinstance(listen, list) else {listen} if listen else set()
    return names

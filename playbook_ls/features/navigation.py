"""Go to definition and find references (pure functions; engine spans out).

Definition: a role name goes to the role's entry file, an import/include target to that
file, ``tasks_from`` (and the other ``*_from``) to the file in the role, ``notify`` to the
handlers that answer it. References: a tag to every task carrying it effectively plus every
place it is written; a role name to every use of the role.

What is under the cursor comes from the file's own parse (see :mod:`yamlnav`); where it
leads comes from the resolved model where the resolver recorded it, else from the same
search the engine uses.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw
from engine.loading import paths as fs
from engine.loading.context import Ctx
from engine.loading.model import Block, Play, RoleInstance, Task
from engine.loading.paths import find_role, find_role_file
from engine.loading.resolve import Resolver
from engine.plugins.collection_search import CollectionFinder, collection_roots, is_fqcr
from engine.span import Span
from engine.templating.load_time import Unresolved, is_template, render
from playbook_ls.check import discover
from playbook_ls.features import cursor, module_data
from playbook_ls.features import yamlnav as yn
from playbook_ls.features.yamltext import split_lines
from playbook_ls.rules.base import task_anchor

if TYPE_CHECKING:
    from playbook_ls.features.workspace import Book, WorkspaceIndex

ROLE_ENTRY_SUBDIRS = ("tasks", "meta", "handlers", "defaults", "vars")


def target_at(index: WorkspaceIndex, path: str, line: int, col: int) -> yn.Target | None:
    """The navigable name at a (0-based, code-point) position of ``path``."""
    data = index.load(path).data
    if data is None:
        return None
    top = cursor.top_kind(index, path, lambda: yn.top_kind_from_data(data))
    return yn.classify(data, split_lines(index.text(path)), line, col, top)


def definition(index: WorkspaceIndex, path: str, line: int, col: int) -> list[Span]:
    target = target_at(index, path, line, col)
    if target is None:
        return []
    if target.kind == cursor.ROLE:
        found = [role_entry_file(role) for role in role_dirs(index, path, target.text, target.span)]
    elif target.kind == cursor.ROLE_FILE:
        found = _role_file(index, path, target)
    elif target.kind == cursor.TASK_FILE:
        found = _task_file(index, path, target)
    elif target.kind == cursor.PLAYBOOK:
        found = [_playbook_file(path, target.text)]
    elif target.kind == cursor.NOTIFY:
        return _tidy(index, handlers_for(index, path, target.text))
    elif target.kind == cursor.MODULE:
        name = target.text.split(" ", 1)[0]
        found = [module_data.module_source(name, module_data.index_for(index, path),
                                           module_data.collections_at(index, path, line, name))]
    else:
        return []
    return _dedupe(Span(file, 0, 0, 0, 0) for file in found if file)


def references(index: WorkspaceIndex, path: str, line: int, col: int) -> list[Span]:
    target = target_at(index, path, line, col)
    if target is None:
        return []
    if target.kind == cursor.TAG:
        return _tidy(index, tag_references(index, target.text))
    if target.kind == cursor.ROLE:
        roles = {fs.realpath(role) for role in role_dirs(index, path, target.text, target.span)}
        return _tidy(index, role_uses(index, roles)) if roles else []
    return []


# -- walking the model --------------------------------------------------------------------

def walk(block: Block, includer: Task | None = None) -> Iterator[tuple[Task, Task | None]]:
    """Every task of a block, implicit ones and what includes load too, each with the include
    task that loaded it (None when it is part of the static tree)."""
    for section in (block.block, block.rescue, block.always):
        for item in section:
            if isinstance(item, Block):
                yield from walk(item, includer)
                continue
            yield item, includer
            for child in item.children:
                yield from walk(child, item)


def every_task(book: Book) -> Iterator[tuple[Play, Task, Task | None]]:
    for play in book.playbook.plays:
        seen: set[int] = set()
        for block in (*play.compile(), *play.handlers):
            if id(block) not in seen:  # the flush block appears once per section
                seen.add(id(block))
                yield from ((play, task, includer) for task, includer in walk(block))


def books_reading(index: WorkspaceIndex, path: str) -> list[Book]:
    """The books whose resolution read ``path`` (playbooks, task files, role meta...)."""
    real = fs.realpath(path)
    return [book for book in index.books.values() if real in book.deps]


def role_instances(task: Task) -> Iterator[RoleInstance]:
    role = task.role
    while role is not None:
        yield role
        role = role.parent


def _same_file(a: str, b: str) -> bool:
    return a == b or fs.realpath(a) == fs.realpath(b)  # memoised: asked for every task walked


def _synthetic(book: Book, span: Span | None) -> bool:
    """Spans in the play the index makes up for a role no playbook uses point nowhere."""
    return span is None or (book.synthetic and _same_file(span.file, book.path))


def _tidy(index: WorkspaceIndex, spans: list[Span]) -> list[Span]:
    """Quoted names without their quotes, duplicates dropped, order kept."""
    lines: dict[str, list[str]] = {}
    result: dict[tuple[str, int, int, int, int], Span] = {}
    for span in spans:
        if span.file not in lines:
            lines[span.file] = split_lines(index.text(span.file))
        span = yn.unquoted(span, lines[span.file])
        result.setdefault((fs.realpath(span.file), *yn.pos(span)), span)
    return list(result.values())


def _dedupe(spans: Iterator[Span] | list[Span]) -> list[Span]:
    seen: dict[tuple[str, int, int, int, int], Span] = {}
    for span in spans:
        seen.setdefault((fs.realpath(span.file), *yn.pos(span)), span)
    return sorted(seen.values(), key=lambda s: (s.file, s.line, s.col))


# -- roles --------------------------------------------------------------------------------

def role_dirs(index: WorkspaceIndex, path: str, name: str, span: Span) -> list[str]:
    """The directories of the role named at ``span``: what the resolver found for that use,
    else the engine's role search from the bases the file is reached from."""
    found: dict[str, None] = {}
    for book in books_reading(index, path):
        for _play, task, _includer in every_task(book):
            for role in role_instances(task):
                if role.path and role.span and _same_file(role.span.file, path) and yn.encloses(role.span, span):
                    found[role.path] = None
            if task.action in kw.INCLUDE_ROLE and task.include_resolved and task.span and \
                    _same_file(task.span.file, path) and yn.encloses(task.span, span):
                found[task.include_resolved] = None
    if found:
        return list(found)
    return _searched_roles(index, path, name)


def _searched_roles(index: WorkspaceIndex, path: str, name: str) -> list[str]:
    if not name or is_template(name):
        return []
    own_role = discover.role_of(path)
    # a meta dependency is also looked up next to the role that declares it
    role_basedir = os.path.dirname(own_role) if own_role else None
    bases = [play.basedir for book in books_reading(index, path) for play in book.playbook.plays]
    if not own_role:
        bases.append(os.path.dirname(os.path.abspath(path)))
    bases.append(index.root)
    config = index.configs.for_path(path)
    for base in dict.fromkeys(bases):
        if is_fqcr(name):
            roots = collection_roots([base], config.collections_path, config.collections_scan_sys_path)
            finder = CollectionFinder(roots, config.collection_sources)
            hit = finder.find_role(name, ())
            found = hit[1] if hit else None
        else:
            found, _searched = find_role(name, base, config.roles_path, role_basedir)
        if found:
            return [found]
    # last resort, for files no playbook reaches: a role directory of that name in the workspace
    roles = {role for file in index.files if (role := discover.role_of(file))}
    return sorted(role for role in roles if os.path.basename(role) == os.path.basename(name))


def role_entry_file(role: str) -> str | None:
    """Where to open a role: tasks/main.yml, else the first main file it has."""
    for sub in ROLE_ENTRY_SUBDIRS:
        found, _missing = find_role_file(role, sub, None)
        if found:
            return found
    return None


def _role_file(index: WorkspaceIndex, path: str, target: yn.Target) -> list[str | None]:
    args = target.owner
    key = "name" if "name" in args else "role"
    name, name_span = args.get(key), args.value_spans.get(key)
    if not isinstance(name, str) or name_span is None:
        return []
    return [find_role_file(role, target.sub, target.text)[0] for role in role_dirs(index, path, name, name_span)]


def role_uses(index: WorkspaceIndex, roles: set[str]) -> list[Span]:
    """Every ``roles:`` entry, dependency, ``import_role`` and ``include_role`` of the roles."""
    found: list[Span] = []
    seen: set[int] = set()
    for book in index.books.values():
        for _play, task, _includer in every_task(book):
            for role in role_instances(task):
                if id(role) in seen:
                    continue
                seen.add(id(role))
                if role.path and fs.realpath(role.path) in roles and not _synthetic(book, role.span):
                    found.append(_role_name_span(index, role))
    return _dedupe(found)


def _role_name_span(index: WorkspaceIndex, role: RoleInstance) -> Span:
    """The role name of a use. ``roles:`` entries and dependencies record it; import_role and
    include_role record their arguments or the whole task, so look the name up in there."""
    assert role.span is not None
    if role.via not in ("import_role", "include_role"):
        return role.span
    node = yn.node_at_span(index.load(role.span.file).data, role.span)
    if isinstance(node, dict):
        action = next((key for key in node if key in cursor.ROLE_ACTIONS and isinstance(node[key], dict)), None)
        args = node[action] if action else node
        for key in ("name", "role"):
            span = getattr(args, "value_spans", {}).get(key)
            if span is not None:
                return span
    return role.span


# -- task files and playbooks -------------------------------------------------------------

def _task_file(index: WorkspaceIndex, path: str, target: yn.Target) -> list[str | None]:
    task_span = target.owner.span
    action = next((key for key in target.owner if key in cursor.TASK_FILE_ACTIONS), "")
    found: dict[str, None] = {}
    for book in books_reading(index, path):
        for _play, task, includer in every_task(book):
            if action in kw.INCLUDE_TASKS:
                if task.include_resolved and task.span and _same_file(task.span.file, path) and \
                        yn.pos(task.span) == yn.pos(task_span):
                    found[task.include_resolved] = None
            elif task.span and _imported_by(task, includer, path, task_span):
                found[task.span.file] = None
    if found:
        return list(found)
    return [_searched_task_file(index, path, target.text)]


def _imported_by(task: Task, includer: Task | None, path: str, import_span: Span) -> bool:
    """Whether ``task`` is written directly in the file the import at ``import_span`` loads:
    the import's frame is in its chain with only blocks below it, and no include below the
    import loaded it."""
    chain = task.chain
    for depth, frame in enumerate(chain[:-1]):
        if frame.kind == "import_tasks" and frame.span is not None and _same_file(frame.span.file, path) and \
                yn.pos(frame.span) == yn.pos(import_span):
            if any(f.kind != "block" for f in chain[depth + 1:-1]):
                return False
            return includer is None or frame not in includer.chain
    return False


def _searched_task_file(index: WorkspaceIndex, path: str, raw: str) -> str | None:
    """The engine's relative-path search, from a context rebuilt for ``path``: the role it is
    in and its place below the role's (or the playbook's) directory."""
    role_dir = discover.role_of(path)
    plays = [play for book in books_reading(index, path) for play in book.playbook.plays]
    basedir = plays[0].basedir if plays else (os.path.dirname(role_dir) if role_dir else
                                              os.path.dirname(os.path.abspath(path)))
    target = raw
    if is_template(raw):
        try:
            target = str(render(raw, plays[0].vars if plays else {}))
        except Unresolved:
            return None
    role = RoleInstance(os.path.basename(role_dir), role_dir, "roles", None) if role_dir else None
    handler = bool(role_dir) and os.path.relpath(path, role_dir).split(os.sep)[0] == "handlers"
    top = os.path.join(role_dir, "handlers" if handler else "tasks") if role_dir else basedir
    playbook = any(_same_file(play.playbook, path) for play in plays)
    includes = () if playbook else (os.path.relpath(os.path.abspath(path), top),)
    ctx = Ctx(chain=(), basedir=basedir, variables={}, role=role, handler=handler, includes=includes)
    found = Resolver(index.sources, index.configs.for_path(path)).find_task_file(target, ctx)
    return found if os.path.isfile(found) else None


def _playbook_file(path: str, raw: str) -> str | None:
    """``import_playbook`` targets are relative to the importing playbook's directory."""
    if is_template(raw):
        return None
    found = raw if os.path.isabs(raw) else os.path.join(os.path.dirname(os.path.abspath(path)), raw)
    return found if os.path.isfile(found) else None


# -- handlers -----------------------------------------------------------------------------

def handlers_for(index: WorkspaceIndex, path: str, name: str) -> list[Span]:
    """The handlers a ``notify: name`` reaches, by name (also ``role : name``) or ``listen``,
    in every play that runs the notifying task."""
    plays = {id(reach.play): reach.play for reach in index.reaches(path)}
    found: list[Span] = []
    for play in plays.values():
        for block in play.handlers:
            for task, _includer in walk(block):
                if task.handler and not task.implicit and name in _answers(task):
                    span = task_anchor(task)
                    if span is not None:
                        found.append(span)
    if not found:
        found = _role_handlers(index, path, name)
    return found


def _answers(task: Task) -> set[str]:
    names: set[str] = set()
    if task.name:
        names.add(str(task.name))
        if task.role is not None:
            names.add(f"{task.role.name} : {task.name}")
    listen = task.data.get("listen") if isinstance(task.data, dict) else None
    names.update(str(topic) for topic in (listen if isinstance(listen, list) else [listen]) if topic is not None)
    return names


def _role_handlers(index: WorkspaceIndex, path: str, name: str) -> list[Span]:
    """For a role file no play reaches: the handlers of its own role, read from the file."""
    role = discover.role_of(path)
    handlers = find_role_file(role, "handlers", None)[0] if role else None
    data = index.load(handlers).data if handlers else None
    found: list[Span] = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        listen = item.get("listen")
        topics = {str(t) for t in (listen if isinstance(listen, list) else [listen]) if t is not None}
        if name == item.get("name") or name in topics:
            span = item.value_spans.get("name") or next(iter(item.key_spans.values()), None)
            if span is not None:
                found.append(span)
    return found


# -- tags ---------------------------------------------------------------------------------

def tag_references(index: WorkspaceIndex, tag: str) -> list[Span]:
    """Every task carrying ``tag`` effectively (at its name), then every place it is written."""
    tasks: list[Span] = []
    frames: dict[int, Any] = {}
    for reach in index.tagged(tag):
        task = reach.task
        if task is None or _synthetic(reach.book, task.span):
            continue
        anchor = task_anchor(task)
        if anchor is not None:
            tasks.append(anchor)
        for frame in task.chain:
            if tag in frame.tags or tag in frame.raw_tags:
                frames[id(frame)] = frame
    for book in index.books.values():  # plays whose tag reaches no task are still uses
        for play in book.playbook.plays:
            if tag in play.frame.tags or tag in play.frame.raw_tags:
                frames[id(play.frame)] = play.frame
    written = [span for frame in frames.values() if "tags" in frame.keyword_spans
               for span in written_tag_spans(index, frame.keyword_spans["tags"], tag)]
    if any(frame.kind == "apply" and "tags" not in frame.keyword_spans for frame in frames.values()):
        written += _apply_tag_spans(index, tag)
    return _dedupe(tasks) + _dedupe(written)


def _apply_tag_spans(index: WorkspaceIndex, tag: str) -> list[Span]:
    """``apply: {tags: ...}`` of includes. Their frames are built from a plain copy of the
    mapping, without positions, so the tags are found again in the include task itself."""
    found: list[Span] = []
    for book in index.books.values():
        for _play, task, _includer in every_task(book):
            data = task.data
            if not task.apply or not isinstance(data, dict) or _synthetic(book, task.span):
                continue
            args = data.get(task.action)
            apply = args.get("apply") if isinstance(args, dict) else None
            span = getattr(apply, "value_spans", {}).get("tags")
            if span is None:
                continue
            tags = apply["tags"]
            values = [str(t) for t in tags] if isinstance(tags, list) else [t.strip() for t in str(tags).split(",")]
            if tag in values:
                found += written_tag_spans(index, span, tag)
    return found


def written_tag_spans(index: WorkspaceIndex, value_span: Span, tag: str) -> list[Span]:
    """Where ``tag`` is written in a ``tags:`` value: the list item or the part of a comma
    string that names it; the whole value when it is templated."""
    data = index.load(value_span.file).data
    node = yn.node_at_span(data, value_span) if data is not None else None
    found: list[Span] = []
    lines = split_lines(index.text(value_span.file))
    if isinstance(node, list):
        spans = getattr(node, "item_spans", [])
        found = [yn.unquoted(spans[i], lines) for i, item in enumerate(node) if i < len(spans) and str(item) == tag]
    elif node is not None:
        found = [span for part, span in yn.scalar_parts(node, value_span, lines) if part == tag]
    return found or [value_span]

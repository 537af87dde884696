"""Completion at a position of a YAML document (pure functions, plain data out).

The context comes from the raw text (see :mod:`playbook_ls.features.yamltext`), since the
document is usually broken while one types:

- in a ``tags:`` value (``tags: [a, b``, ``tags: a,``, an item under ``tags:``): the tags
  known in the workspace, with how many tasks carry each;
- at a key of a play, block, task or ``roles:`` entry: the keywords valid there and, where a
  task has no module yet, the ansible.builtin modules (short and FQCN);
- at a key under a module (or under ``args:``): that module's options.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from engine.loading.keywords import (
    BLOCK_KEYWORDS,
    HANDLER_KEYWORDS,
    IMPORT_PLAYBOOK_KEYWORDS,
    PLAY_KEYWORDS,
    ROLE_ENTRY_KEYWORDS,
    TASK_KEYWORDS,
)
from playbook_ls.features import cursor, module_data
from playbook_ls.features.yamltext import Doc, context, top_kind_from_text

if TYPE_CHECKING:
    from engine.plugins.index import ModuleIndex
    from playbook_ls.features.workspace import Reach, WorkspaceIndex

# Tags written on tasks that mean something to ansible itself.
SPECIAL_TAGS = {"always": "special: runs unless skipped by name", "never": "special: runs only when selected by name"}
_KEY_PREFIX = re.compile(r"^(\s*)((?:-\s+)*)([\w.\-]*)$")
_INLINE_TAGS = re.compile(r"^\s*(?:-\s+)*tags\s*:\s*(.*)$")
_ITEM = re.compile(r"^\s*-\s+(.*)$")
IMPORT_PLAYBOOK_KEYS = ("import_playbook", "ansible.builtin.import_playbook")


class Item(NamedTuple):
    """One completion. ``kind``: tag, keyword, module or option; ``insert`` the text to put in
    place of the word before the cursor; ``data`` lets the client ask for the documentation later."""

    label: str
    kind: str
    detail: str
    insert: str
    sort: str
    documentation: str = ""
    data: str | None = None


class Completion(NamedTuple):
    """Items replacing the text from column ``start`` to the cursor on the cursor's line."""

    start: int
    items: list[Item]


def complete(index: WorkspaceIndex | None, path: str, line: int, column: int, text: str | None = None,
             inventory: list[str] | None = None) -> Completion | None:
    """What to offer at ``line``/``column`` (code points) of ``path`` whose text is ``text``;
    ``inventory``: where the hosts of variable values come from (default: ansible.cfg's)."""
    if text is None:
        text = index.text(path) if index is not None else ""
    doc = Doc(text)
    if not 0 <= line < len(doc.raw):
        return None
    if index is not None:
        from playbook_ls.features import variables

        found = variables.completion(index, path, line, column, text, inventory)
        if found is not None:
            start, names = found
            return Completion(start, [Item(name, "variable", detail, name, sort) for name, detail, sort in names])
    before = doc.raw[line][:column].ljust(column)  # a client may put the cursor past the end of a blank line
    after = doc.raw[line][column:]
    tags = _tags_value(doc, line, before)
    if tags is not None:
        start, written, space = tags
        return Completion(start, tag_items(index, path, text, written, space, before[start:].strip(" '\"")))
    match = _KEY_PREFIX.match(before)
    if match is not None:
        col = len(match.group(1)) + len(match.group(2))
        items = key_items(index, path, doc, line, col, add_colon=not after.strip())
        return Completion(col, items) if items else None
    return _choice_value(index, path, doc, line, before) or _action_value(doc, line, before)


# -- tags ------------------------------------------------------------------------------------
def _tags_value(doc: Doc, line: int, before: str) -> tuple[int, set[str], bool] | None:
    """If the cursor is in a tags value: where the tag being typed starts, the tags already
    written in the value and whether a space must go before the tag (right after ``tags:``)."""
    inline = _INLINE_TAGS.match(before)
    if inline is not None and doc.lines[line].key == "tags":
        value = inline.group(1)
        value_start = inline.start(1)
        cut = max(value.rfind(","), value.rfind("["))
        if "]" in value[cut + 1:]:
            return None  # after the closing bracket
        start = value_start + cut + 1
        while start < len(before) and before[start] in " '\"":
            start += 1
        written = {p.strip(" '\"[]") for p in doc.lines[line].value.split(",")}
        return start, written, before.endswith(":")
    item = _ITEM.match(before)
    here = doc.lines[line]
    if item is not None and here.dashes and here.key is None and "," not in item.group(1):
        owner = doc.sequence_parent(line, here.dashes[-1])
        if owner is not None and owner >= 0 and doc.lines[owner].key == "tags":
            start = item.start(1) + (1 if item.group(1)[:1] in "'\"" else 0)
            written = {doc.lines[i].value.strip("'\"") for i in _items_below(doc, owner) if i != line}
            return start, written, False
    return None


def _items_below(doc: Doc, owner: int) -> list[int]:
    """The lines of the items of the sequence under the key on line ``owner``."""
    result = []
    for index in range(owner + 1, len(doc.lines)):
        other = doc.lines[index]
        if other.blank:
            continue
        if other.indent < doc.lines[owner].key_col or (other.indent == doc.lines[owner].key_col
                                                         and not other.dashes):
            break
        if other.dashes and other.key is None:
            result.append(index)
    return result


def tag_items(index: WorkspaceIndex | None, path: str, text: str, written: set[str], space: bool,
              typed: str = "") -> list[Item]:
    """The tags to offer; ``written`` are already in the value, ``typed`` is the word being typed
    (offered only when the workspace knows it: the buffer's copy is the half-typed word itself)."""
    counts = tag_counts(index) if index is not None else {}
    names = set(counts) | set(SPECIAL_TAGS)
    if index is not None:
        for book in list(index.books.values()):
            names |= {t for t in book.tags if isinstance(t, str)}
            names |= {t for play in book.playbook.plays for t in play.frame.tags if isinstance(t, str)}
    names |= tags_in_text(text) - {typed}
    written = written - {typed}
    items = []
    for name in sorted(n for n in names if n and n not in written and "{{" not in n):
        detail = plural(counts.get(name, 0), "task")
        if name in SPECIAL_TAGS:
            detail += f" · {SPECIAL_TAGS[name]}"
        # special tags last, so that the project's own tags come first
        items.append(Item(name, "tag", detail, (" " if space else "") + name,
                          f"{'1' if name in SPECIAL_TAGS else '0'}{name}"))
    return items


_counted: list[tuple[object, dict[str, int]]] = []  # (the tag index counted, its counts)


def tag_counts(index: WorkspaceIndex) -> dict[str, int]:
    """How many distinct tasks carry each tag effectively (a task reached twice counts once).
    Kept until the index swaps in a new tag map: completion asks for it on every keystroke."""
    tag_map = index.tag_map
    if _counted and _counted[0][0] is tag_map:
        return _counted[0][1]
    real: dict[str, str] = {}
    counts = {tag: len(distinct_tasks(index.tagged(tag), real=real)) for tag in list(tag_map)}
    _counted[:] = [(tag_map, counts)]
    return counts


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def distinct_tasks(reaches: list[Reach], handlers: bool = False, real: dict[str, str] | None = None) -> list[Reach]:
    """One reach per task written in a file, in file and line order. Handlers are left out
    unless asked for: tags do not select them, so counting them would mislead. ``real``
    memoises real paths across calls (each costs system calls)."""
    real = {} if real is None else real
    seen: dict[tuple[str, int], Reach] = {}
    for reach in reaches:
        task = reach.task
        if task is not None and task.span is not None and (handlers or not task.handler):
            file = task.span.file
            if file not in real:
                real[file] = os.path.realpath(file)
            seen.setdefault((real[file], task.span.line), reach)
    return [seen[key] for key in sorted(seen)]


def tags_in_text(text: str) -> set[str]:
    """Tags written in a document that may not parse: inline values and items under ``tags:``."""
    doc = Doc(text)
    found: set[str] = set()
    for number, line in enumerate(doc.lines):
        if line.key != "tags":
            continue
        if line.value:
            found |= {p.strip(" '\"[]") for p in line.value.split(",")}
        else:
            found |= {doc.lines[i].value.strip("'\"") for i in _items_below(doc, number)}
    return {t for t in found if t}


# -- keys ------------------------------------------------------------------------------------
def top_kind(index: WorkspaceIndex | None, path: str, doc: Doc) -> str:
    """What the items of a top-level sequence are in this file: play, task or handler."""
    return cursor.top_kind(index, path, lambda: top_kind_from_text(doc))


def key_items(index: WorkspaceIndex | None, path: str, doc: Doc, line: int, col: int,
              add_colon: bool = True) -> list[Item]:
    ctx = context(doc, line, col, top_kind(index, path, doc), skip=line)
    present = set(ctx.keys)
    suffix = ": " if add_colon else ""
    if ctx.kind == "args":
        doc_ = module_data.module(ctx.module or "", module_data.index_for(index, path),
                                  module_data.collections_at(index, path, line, ctx.module))
        if doc_ is None:
            return []
        # required options first, the rest in documented order
        items = [Item(name, "option", module_data.option_detail(spec), name + suffix,
                      f"{0 if spec.get('required') else 1}{number:03}", spec.get("description", ""))
                 for number, (name, spec) in enumerate(doc_["options"].items()) if name not in present]
        return sorted(items, key=lambda item: item.sort)
    if ctx.kind == "play":
        if not present.isdisjoint(IMPORT_PLAYBOOK_KEYS):
            keywords = set(IMPORT_PLAYBOOK_KEYWORDS)
        else:
            keywords = set(PLAY_KEYWORDS)
            if present <= {"name", "vars", "tags", "when"}:
                keywords |= set(IMPORT_PLAYBOOK_KEYS)
        return _keywords(keywords - present, suffix)
    if ctx.kind == "block":
        return _keywords(set(BLOCK_KEYWORDS) - present, suffix)
    if ctx.kind == "role_entry":
        return _keywords(set(ROLE_ENTRY_KEYWORDS) - present, suffix)
    if ctx.kind != "task":
        return []
    keywords = set(HANDLER_KEYWORDS if ctx.handler else TASK_KEYWORDS)
    if ctx.module is None and not ctx.handler:
        keywords |= {"block", "local_action"}
    items = _keywords(keywords - present, suffix)
    if ctx.module is None:
        items += module_items(suffix, module_data.index_for(index, path))
    return items


def _keywords(names: set[str], suffix: str) -> list[Item]:
    return [Item(name, "keyword", module_data.keyword_description(name), name + suffix, f"0{name}")
            for name in sorted(names)]


def module_items(suffix: str = ": ", modules: ModuleIndex | None = None) -> list[Item]:
    """Every builtin module twice: short (sorted after the keywords) and FQCN (last); once the
    installed modules are indexed, every other module by its FQCN after them."""
    items = []
    modules = modules or module_data.installed()
    if modules is not None and modules.ready():
        for fqcn, summary in modules.summaries().items():
            short = str(summary.get("short_description", ""))
            name = fqcn.removeprefix(module_data.BUILTIN)
            if name != fqcn:
                items.append(Item(name, "module", short, name + suffix, f"1{name}", data=fqcn))
            items.append(Item(fqcn, "module", short, fqcn + suffix, f"{2 if name != fqcn else 3}{fqcn}", data=fqcn))
        return items
    for name, doc in module_data.modules().items():
        short = doc.get("short_description", "")
        fqcn = module_data.BUILTIN + name
        items.append(Item(name, "module", short, name + suffix, f"1{name}", data=name))
        items.append(Item(fqcn, "module", short, fqcn + suffix, f"2{name}", data=name))
    return items


def _action_value(doc: Doc, line: int, before: str) -> Completion | None:
    """``action: co`` / ``local_action: co``: module names (the module is the value's first word)."""
    here = doc.lines[line]
    if here.key not in ("action", "local_action") or len(before) < here.value_col:
        return None
    typed = before[here.value_col:]
    if " " in typed:
        return None
    return Completion(here.value_col, module_items(suffix=" "))


def _choice_value(index: WorkspaceIndex | None, path: str, doc: Doc, line: int, before: str) -> Completion | None:
    """``state: pre``: the documented choices of a module option (``true``/``false`` of a
    ``bool`` one), with the one the module takes by default first."""
    here = doc.lines[line]
    if here.key is None or len(before) < here.value_col:
        return None
    typed = before[here.value_col:]
    if any(char in typed for char in " ,[]{}#") or "{{" in typed:
        return None
    ctx = context(doc, line, here.key_col, top_kind(index, path, doc), skip=line)
    if ctx.kind != "args" or not ctx.module:
        return None
    entry = module_data.module(ctx.module, module_data.index_for(index, path),
                               module_data.collections_at(index, path, line, ctx.module))
    options = entry.get("options", {}) if entry else {}
    spec = options.get(here.key) or next((s for s in options.values() if here.key in s.get("aliases", ())), None)
    if not isinstance(spec, dict):
        return None
    choices = spec.get("choices") or ([True, False] if spec.get("type") == "bool" else [])
    if not isinstance(choices, list) or not choices:
        return None
    quote = typed[:1] if typed[:1] in "'\"" else ""
    items = [Item(text, "value", "default" if choice == spec.get("default") else "", text,
                  f"{0 if choice == spec.get('default') else 1}{number:03}")
             for number, choice in enumerate(choices) if (text := _choice_text(choice))]
    return Completion(here.value_col + len(quote), items) if items else None


def _choice_text(choice: object) -> str:
    """A choice as YAML reads it back: booleans in lower case, other scalars as written."""
    if isinstance(choice, bool):
        return "true" if choice else "false"
    return str(choice) if isinstance(choice, (str, int, float)) else ""


def resolve_documentation(data: str | None) -> str | None:
    """The documentation of a module item, looked up only when the client shows it."""
    return module_data.module_markdown(data) if data else None

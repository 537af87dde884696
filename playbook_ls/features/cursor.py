"""What is at a position of a YAML document: one notion for every feature that asks.

Two readers find the way from the document to the position: :mod:`yamlnav` over the parsed
nodes and their spans (exact, for a buffer that parses) and :mod:`yamltext` over the raw
lines and their indentation (for a buffer that is being typed and does not parse). Both
describe the place the same way, with the rules in this module:

- :class:`Context`, the kind of mapping a key is in (play, task, block, role entry, a
  module's options, an include's ``apply``...), from :func:`item_context` for a mapping that
  is an item of a sequence and :func:`nested_context` for one that is the value of a key;
- :func:`name_kind`, what a scalar written there names (a tag, a role, a task file, a
  playbook, a role file, a handler, a module).

So completion, token hover, go to definition, references, folding and symbols agree on what
a place is, whichever reader found it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.loading import keywords as kw

if TYPE_CHECKING:
    from playbook_ls.features.workspace import WorkspaceIndex

# What a position can name.
TAG = "tag"
ROLE = "role"
TASK_FILE = "task_file"  # import_tasks / include_tasks target
PLAYBOOK = "playbook"  # import_playbook target
ROLE_FILE = "role_file"  # tasks_from / vars_from / defaults_from / handlers_from
NOTIFY = "notify"
MODULE = "module"  # a task's module key, or the first word of its action: value

TASK_SECTIONS = frozenset({"tasks", "pre_tasks", "post_tasks"})
BLOCK_SECTIONS = frozenset({"block", "rescue", "always"})
ROLE_LISTS = frozenset({"roles", "dependencies"})
ROLE_ACTIONS = kw.IMPORT_ROLE | kw.INCLUDE_ROLE
TASK_FILE_ACTIONS = kw.IMPORT_TASKS | kw.INCLUDE_TASKS
FROM_KEYS = {"tasks_from": "tasks", "vars_from": "vars", "defaults_from": "defaults", "handlers_from": "handlers"}
LEVELS = frozenset({"play", "task", "block", "role_entry", "apply"})  # mappings that carry keywords
PLAY_ONLY = frozenset({"hosts", "import_playbook", "ansible.builtin.import_playbook", "roles", "tasks",
                       "pre_tasks", "post_tasks", "handlers", "gather_facts", "vars_files"})


class Context(NamedTuple):
    """What mapping a key is in. ``kind``: play, task, block, role_entry, args (``module``'s
    options), apply (an include's ``apply:``), top (a top-level mapping), scalar (inside a block
    scalar), other. ``keys`` maps the mapping's keys to where they are (a line, a node)."""

    kind: str
    keys: Mapping[str, Any]
    module: str | None = None
    handler: bool = False


def module_key(keys: Collection[str]) -> str | None:
    """The key of a task mapping that names its module (what ``ModuleArgsParser`` takes)."""
    return next((k for k in keys if k not in kw.HANDLER_KEYWORDS and k not in ("local_action", "static")
                 and not k.startswith("with_")), None)


def item_context(keys: Mapping[str, Any], owner_key: str | None, top: str, outer: Callable[[], Context],
                 action_text: Callable[[str], str]) -> Context:
    """The context of a mapping that is an item of the sequence under ``owner_key`` (None: the
    document's top-level sequence, whose items are ``top``: play, task or handler). ``outer``
    gives the context of the mapping holding ``owner_key``; ``action_text`` the text of a key's value."""
    if owner_key is None:
        return task_or_block(keys, top == "handler", action_text, "play" if top == "play" else "task")
    if owner_key in TASK_SECTIONS or owner_key == "handlers":
        return task_or_block(keys, owner_key == "handlers", action_text)
    if owner_key in BLOCK_SECTIONS:
        above = outer()
        return task_or_block(keys, above.handler, action_text) if above.kind == "block" else Context("other", keys)
    if owner_key in ROLE_LISTS:
        return Context("role_entry", keys)
    return Context("other", keys)


def nested_context(keys: Mapping[str, Any], parent_key: str, outer: Callable[[], Context]) -> Context:
    """The context of a mapping that is the value of ``parent_key``."""
    above = outer()
    if above.kind == "task" and (parent_key == "args" or parent_key == above.module):
        return Context("args", keys, above.module, above.handler)
    if parent_key == "apply" and above.kind in ("args", "task"):
        return Context("apply", keys)
    return Context("other", keys)


def task_or_block(keys: Mapping[str, Any], handler: bool, action_text: Callable[[str], str],
                  kind: str = "task") -> Context:
    if kind == "play":
        return Context("play", keys)
    if not BLOCK_SECTIONS.isdisjoint(keys):
        return Context("block", keys, None, handler)
    module = module_key(keys)
    if module is None:
        for key in ("action", "local_action"):
            if key in keys:  # ``action: copy src=a dest=b``: the module is the first word
                module = action_text(key).split(" ", 1)[0] or None
    return Context("task", keys, module, handler)


def name_kind(ctx: Context, key: str, is_key: bool = False, item: bool = False) -> str | None:
    """What the scalar at a place names: ``key`` itself (``is_key``), its value, or an item of
    the sequence under it (``item``), in a mapping of context ``ctx``. None: nothing to follow."""
    if is_key:
        return MODULE if ctx.kind == "task" and key == ctx.module else None
    if key == "tags" and ctx.kind in LEVELS:
        return TAG
    if key == "notify" and ctx.kind in ("task", "block"):
        return NOTIFY
    if item:
        if (key == "roles" and ctx.kind == "play") or (key == "dependencies" and ctx.kind == "top"):
            return ROLE
        return None
    if ctx.kind == "role_entry" and key in ("role", "name") and (key == "role" or "role" not in ctx.keys):
        return ROLE
    if ctx.kind == "task" and key in ("action", "local_action"):
        return MODULE
    if ctx.kind == "task" and key in TASK_FILE_ACTIONS:
        return TASK_FILE
    if ctx.kind in ("play", "task") and key in kw.IMPORT_PLAYBOOK:
        return PLAYBOOK
    if ctx.kind == "args" and ctx.module in ROLE_ACTIONS:
        if key == ("name" if "name" in ctx.keys else "role"):
            return ROLE
        return ROLE_FILE if key in FROM_KEYS else None
    if ctx.kind == "args" and ctx.module in TASK_FILE_ACTIONS and key in ("file", "_raw_params"):
        return TASK_FILE
    return None


def top_kind(index: WorkspaceIndex | None, path: str, guess: Callable[[], str | None]) -> str:
    """What the items of a top-level sequence are in ``path``: play, task or handler. From where
    the file is and how the workspace reaches it; else what ``guess()`` makes of the document
    itself (called only then: it reads the whole document)."""
    parts = os.path.normpath(path).split(os.sep)
    if len(parts) > 1 and parts[-2] in ("handlers", "tasks"):
        return "handler" if parts[-2] == "handlers" else "task"
    if index is not None:
        books = index.books
        book = books.get(os.path.abspath(path)) or books.get(index.real(path))  # keyed by absolute path
        if book is not None and not book.synthetic:
            return "play"
        tasks = [r.task for r in index.reaches(path) if r.task is not None]
        if tasks:
            return "handler" if all(t.handler for t in tasks) else "task"
    return guess() or "task"


def play_keys(keys: Collection[Any]) -> bool:
    """Whether a top-level item with these keys can only be a play."""
    return not PLAY_ONLY.isdisjoint(keys)

"""A task's loop as ansible's ``TaskExecutor._get_loop_items`` makes it: which keyword, and the
items it gives. Static code (the plan) and the executor read loops through here; a ``with_*``
lookup runs only through the templar's lookups, so a static templar (pure lookups) never runs one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.loading.model import Task
from engine.templating.templar import Templar, TemplateFailure
from engine.values import type_name_of

LOOP_KEYS = ("loop", "with_items", "with_list", "with_dict")


def loop_of(task: Task) -> tuple[str, Any] | None:
    data = task.data if isinstance(task.data, Mapping) else {}
    for key in data:
        if key == "loop" and data[key] is None:  # Task.loop None: the task has no loop
            continue
        if key in LOOP_KEYS or (isinstance(key, str) and key.startswith("with_")):
            return key, data[key]
    return None


class LoopNotAList(TemplateFailure):
    """A ``loop`` whose value is known and not a list: ansible fails the task with this message
    before any item (and before its ``when``, read per item)."""


def loop_items(kind: str, raw: Any, templar: Templar) -> list[Any]:
    """``TaskExecutor._get_loop_items``: ``loop`` must template to a list; ``with_<name>`` runs the
    lookup ``name`` on its (templated) terms with wantlist."""
    if kind == "loop":
        value = templar.template(raw)
        if not isinstance(value, list):
            raise LoopNotAList(f"The `loop` value must resolve to a 'list', not {_native_type_name(value)!r}.")
        return value
    if kind == "with_first_found" and isinstance(raw, list):  # undefined terms are left out
        terms: Any = [term for term in (_defined(templar, term) for term in raw) if term is not _UNDEFINED]
    else:
        terms = templar.template(raw.strip() if isinstance(raw, str) else raw)
    items = templar.run_lookup(kind[len("with_"):], terms if isinstance(terms, list) else [terms], wantlist=True)
    return list(items) if isinstance(items, (list, tuple)) else [items]


_UNDEFINED = object()


def _defined(templar: Templar, term: Any) -> Any:
    """The term templated, or _UNDEFINED; inside a list or dict an undefined value is left out
    (first_found's ``_recurse_terms(omit_undefined=True)``: ``{files: [...], skip: true}`` keeps
    its skip when its files are undefined)."""
    from jinja2.exceptions import UndefinedError

    if isinstance(term, list):
        return [value for value in (_defined(templar, item) for item in term) if value is not _UNDEFINED]
    if isinstance(term, dict):
        kept = {key: _defined(templar, value) for key, value in term.items()}
        return {templar.template(key): value for key, value in kept.items() if value is not _UNDEFINED}
    try:
        return templar.template(term)
    except TemplateFailure as exc:
        if isinstance(exc.__cause__, UndefinedError):
            return _UNDEFINED
        raise


def _native_type_name(value: Any) -> str:
    if value is None:
        return "NoneType"
    return {dict: "dict", str: "str", int: "int", float: "float", bool: "bool"}.get(type(value), type_name_of(value))

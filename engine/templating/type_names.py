"""The names ansible's messages give a value's type: the plain type a value stands for, and the
tagged subclasses its templar hands back (which show in Python's own error wording)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.values import type_name_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold listing 20 ms it needs nothing else for
    from typing import Any


def native_type_name(value: Any) -> str:
    """``native_type_name``: the plain Python type a value stands for (a parsed mapping is a dict)."""
    for kind in (bool, int, float, str, bytes, Mapping, list, tuple, set):
        if isinstance(value, kind):
            return getattr(value, "type_name", "dict") if kind is Mapping else kind.__name__
    return "NoneType" if value is None else type_name_of(value)


TAGGED_TYPES: dict[type, type] = {}


def tagged(value: Any) -> Any:
    """The value as ansible's templar gives it back: tagged with its origin, as a subclass named
    ``_AnsibleTaggedInt`` and so on, which shows in an error's wording ("... not _AnsibleTaggedInt")."""
    kind = type(value)
    if kind not in (int, float, str, list, dict):
        return value
    if kind not in TAGGED_TYPES:
        TAGGED_TYPES[kind] = type(f"_AnsibleTagged{kind.__name__.capitalize()}", (kind,), {"__slots__": ()}
                             if kind in (int, float, str) else {})
    return TAGGED_TYPES[kind](value)


def missing_hint(obj: Any, name: str) -> str:
    """What ansible's Marker says of a missing attribute or key ``name`` of ``obj``: by the value's
    type, unless the mapping words it itself (``hostvars['nohost']``)."""
    own = getattr(obj, "missing_hint", None)
    if callable(own):
        return str(own(name))
    return f"object of type {_method_type(obj) or native_type_name(obj)!r} has no attribute {name!r}"


# the methods ansible's lazy containers (_AnsibleLazyTemplateDict, _AnsibleLazyTemplateList), which
# a variable's mapping or list is in a template, define in Python: bound, they are a 'method'
_LAZY_METHODS = {dict: frozenset({"copy", "get", "items", "pop", "popitem", "setdefault", "values"}),
                 list: frozenset({"copy", "index", "pop", "remove", "sort"})}


def _method_type(obj: Any) -> str | None:
    """'method' for a method of a mapping or list that ansible's lazy container overrides
    (``vars_map.items.split``), where Python names the built-in one 'builtin_function_or_method'."""
    owner = getattr(obj, "__self__", None)
    if type(obj).__name__ != "builtin_function_or_method" or owner is None:
        return None
    kind = dict if isinstance(owner, Mapping) else list if isinstance(owner, list) else None
    return "method" if kind is not None and getattr(obj, "__name__", "") in _LAZY_METHODS[kind] else None

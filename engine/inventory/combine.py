"""How two sets of variables become one: ansible's ``combine_vars`` and ``merge_hash``
(``ansible/utils/vars.py``), with the ``DEFAULT_HASH_BEHAVIOUR`` setting passed in as ``merge``.

With ``hash_behaviour = replace`` (the default) a later definition of a variable replaces the
earlier one; with ``merge`` two dictionaries under the same name are merged recursively, lists
and other values still replaced. ``merge_hash`` is not associative (``{k: {..}}``, then
``{k: 5}``, then ``{k: {..}}`` gives a different result grouped differently), so callers fold
the variables in exactly ansible's order and grouping.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, MutableSequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIST_MERGE_CHOICES = ("replace", "keep", "append", "prepend", "append_rp", "prepend_rp")


class CombineError(Exception):
    """Variables that are not both dictionaries (ansible raises ``AnsibleError`` with this message)."""


def _check_mappings(first: Any, second: Any) -> None:
    if not (isinstance(first, MutableMapping) and isinstance(second, MutableMapping)):
        raise CombineError(f"failed to combine variables, expected dicts but got a '{type(first).__name__}' and "
                           f"a '{type(second).__name__}'.")


def combine_vars(first: dict[str, Any], second: Mapping[str, Any], merge: bool) -> dict[str, Any]:
    """A new dictionary of ``first`` updated with ``second`` (``second`` wins): merged recursively
    when ``merge`` (``hash_behaviour = merge``), else key by key replaced."""
    if merge:
        return merge_hash(first, second)
    _check_mappings(first, second)
    return first | dict(second)


def merge_hash(base: dict[str, Any], more: Mapping[str, Any], recursive: bool = True,
               list_merge: str = "replace") -> dict[str, Any]:
    """``more`` merged into a copy of ``base``, ``more`` winning: dictionaries under the same key
    merged (when ``recursive``), lists under the same key combined as ``list_merge`` says.

    Like ansible's, the result may be ``base`` itself when ``more`` is empty, and a copy of
    ``more`` when ``base`` is empty or equal to it (so then in ``more``'s key order)."""
    if list_merge not in LIST_MERGE_CHOICES:
        raise CombineError("merge_hash: 'list_merge' argument can only be equal to 'replace', 'keep', 'append', "
                           "'prepend', 'append_rp' or 'prepend_rp'")
    _check_mappings(base, more)
    if base == {} or base == more:
        return dict(more)
    if more == {}:
        return base
    merged = base.copy()
    for key, new in more.items():
        if key not in merged:
            merged[key] = new
            continue
        old = merged[key]
        if isinstance(old, MutableMapping) and isinstance(new, MutableMapping):
            merged[key] = merge_hash(old, new, recursive, list_merge) if recursive else new
        elif isinstance(old, MutableSequence) and isinstance(new, MutableSequence):
            merged[key] = _merged_lists(old, new, list_merge)
        else:
            merged[key] = new
    return merged


def _merged_lists(old: MutableSequence[Any], new: MutableSequence[Any], list_merge: str) -> Any:
    """Two lists under one key: ``new`` has the higher priority; ``_rp`` drops from ``old`` the
    items ``new`` has ("remove present"), keeping duplicates within either list."""
    if list_merge == "replace":
        return new
    if list_merge == "append":
        return list(old) + list(new)
    if list_merge == "prepend":
        return list(new) + list(old)
    if list_merge == "append_rp":
        return [item for item in old if item not in new] + list(new)
    if list_merge == "prepend_rp":
        return list(new) + [item for item in old if item not in new]
    return old  # keep

"""The pure filters of the ``community.general`` collection that real playbooks use, under their
full names (``community.general.counter``): ported from the collection's ``plugins/filter`` (and
``plugin_utils/keys_filter.py``) as they decide the result, because the engine runs without the
collection installed. A failure is the plugin's (``AnsibleFilterError``): "The filter plugin
'community.general.NAME' failed: MESSAGE".

Left out: what needs a library or the run (``json_query``, ``jc``, ``hashids``, ``random_mac``,
``to_prettytable``), what shows the run's own types (``reveal_ansible_type``), and the text formats
(``from_csv``, ``from_ini``, ``to_ini``, ``to_yaml``).
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from engine.inventory.combine import merge_hash
from engine.templating.filters.paths_and_sets import FilterFailure
from engine.templating.filters.version import _loose

PREFIX = "community.general."


def counter(sequence: Any) -> dict[Any, int]:
    if not isinstance(sequence, Sequence):
        raise FilterFailure("Argument for community.general.counter must be a sequence (string or list). "
                            f"{sequence} is {type(sequence)}")
    try:
        return dict(Counter(sequence))
    except TypeError as exc:
        raise FilterFailure("community.general.counter needs a sequence with hashable elements (int, float or "
                            f"str) - {exc}") from None


def dict_kv(value: Any, key: Any) -> dict[Any, Any]:
    return {key: value}


def dict_filter(sequence: Any) -> dict[Any, Any]:
    return dict(sequence)


def groupby_as_dict(sequence: Any, attribute: Any) -> dict[Any, Any]:
    if not isinstance(sequence, Sequence):
        raise FilterFailure("Input is not a sequence")
    result: dict[Any, Any] = {}
    for index, element in enumerate(sequence):
        if not isinstance(element, Mapping):
            raise FilterFailure(f"Sequence element #{index} is not a mapping")
        if attribute not in element:
            raise FilterFailure(f"Attribute not contained in element #{index} of sequence")
        key = element[attribute]
        if key in result:
            raise FilterFailure(f"Multiple sequence entries have attribute value {key!r}")
        result[key] = element
    return result


class _LooseVersion:
    """``LooseVersion`` as ``sorted`` compares it (``_cmp``): its components' lists."""

    def __init__(self, text: Any) -> None:
        self.version = _loose(str(text))

    def __lt__(self, other: _LooseVersion) -> bool:
        return self.version != other.version and self.version < other.version


def version_sort(value: Any, reverse: bool = False) -> list[Any]:
    return sorted(value, key=_LooseVersion, reverse=reverse)


def accumulate(sequence: Any) -> Any:
    if not isinstance(sequence, Sequence):
        raise FilterFailure(f"Invalid value type ({type(sequence)}) for accumulate ({sequence!r})")
    return itertools.accumulate(sequence)


def crc32(value: Any) -> str:
    if not isinstance(value, str):
        raise FilterFailure(f"Invalid value type ({type(value)}) for crc32 ({value!r})")
    return f"{zlib.crc32(value.encode('utf-8', 'surrogateescape')) & 0xffffffff:x}"


def unicode_normalize(data: Any, form: str = "NFC") -> str:
    from unicodedata import normalize

    if not isinstance(data, str):
        raise FilterFailure(f"{type(data)} is not a valid input type")
    if form not in ("NFC", "NFD", "NFKC", "NFKD"):
        raise FilterFailure(f"{form} is not a valid form")
    return normalize(form, data)  # type: ignore[arg-type]


# --- lists_mergeby (lists_mergeby.py)

def _list_mergeby(x: Any, y: Any, index: str, recursive: bool, list_merge: str) -> list[Any]:
    merged: defaultdict[Any, dict[Any, Any]] = defaultdict(dict)
    for items in (x, y):
        for element in items:
            if not isinstance(element, Mapping):
                raise FilterFailure("Elements of list arguments for lists_mergeby must be dictionaries. "
                                    f"{element} is {type(element)}")
            if index in element.keys():
                merged[element[index]].update(merge_hash(merged[element[index]], dict(element), recursive, list_merge))
    return sorted(merged.values(), key=itemgetter(index))


def lists_mergeby(*terms: Any, **kwargs: Any) -> Any:
    recursive = kwargs.pop("recursive", False)
    list_merge = kwargs.pop("list_merge", "replace")
    if kwargs:
        raise FilterFailure("'recursive' and 'list_merge' are the only valid keyword arguments.")
    if len(terms) < 2:
        raise FilterFailure("At least one list and index are needed.")
    lists: list[Any] = []  # `[list1, list2] | lists_mergeby('index')` as `list1 | lists_mergeby(list2, 'index')`
    for sublist in terms[:-1]:
        if not isinstance(sublist, Sequence):
            raise FilterFailure("All arguments before the argument index for community.general.lists_mergeby must "
                                f"be lists. {sublist} is {type(sublist)}")
        if len(sublist) > 0:
            if all(isinstance(item, Sequence) for item in sublist):
                lists.extend(sublist)
            else:
                lists.append(sublist)
    if not lists:
        return []
    if len(lists) == 1:
        return lists[0]
    index = terms[-1]
    if not isinstance(index, str):
        raise FilterFailure("First argument after the lists for community.general.lists_mergeby must be string. "
                            f"{index} is {type(index)}")
    high_to_low = reversed(lists)
    result = next(high_to_low)
    for items in high_to_low:
        result = _list_mergeby(items, result, index, recursive, list_merge)
    return result


# --- lists_union, lists_intersect, lists_difference, lists_symmetric_difference (lists.py)

def _remove_duplicates(items: Any) -> list[Any]:
    seen: Any = set()
    result = []
    for item in items:
        try:
            if item not in seen:
                seen.add(item)
                result.append(item)
        except TypeError:  # an unhashable item: the ones seen so far in a list from here on
            seen = _ListSeen(seen)
            if item not in seen:
                seen.add(item)
                result.append(item)
    return result


class _ListSeen(list):  # type: ignore[type-arg]
    def add(self, item: Any) -> None:
        self.append(item)


def _flatten_list(lists: Any) -> list[Any]:
    result = []
    for sublist in lists:
        if not (isinstance(sublist, Sequence) and not isinstance(sublist, str | bytes)):
            raise FilterFailure(f"All arguments must be lists. {sublist} is {type(sublist)}")
        if len(sublist) > 0:
            if all(isinstance(sub, Sequence) and not isinstance(sub, str | bytes) for sub in sublist):
                result.extend(sublist)
            else:
                result.append(sublist)
    return result


def _kept(a: Any, b: Any, keep: bool) -> list[Any]:
    """The items of ``a`` that are in ``b`` (``keep``) or not."""
    try:
        other: Any = set(b)
        return [item for item in a if (item in other) == keep]
    except TypeError:
        other = list(b)
        return [item for item in a if (item in other) == keep]


def _symmetric_difference(a: Any, b: Any) -> list[Any]:
    union = _remove_duplicates(list(a) + list(b))
    try:
        both: Any = set(a) & set(b)
    except TypeError:
        both = _kept(_remove_duplicates(a), b, True)
    return [item for item in union if item not in both]


def _set_filter(name: str, step: Callable[[Any, Any], Any], start: Callable[[Any], Any],
                end: Callable[[Any], Any], own_name: str | None = None) -> Callable[..., Any]:
    def apply(*args: Any, **kwargs: Any) -> Any:
        flatten = kwargs.pop("flatten", False)
        if kwargs:
            raise FilterFailure(f"{own_name or name}() got unexpected keywords arguments: {', '.join(kwargs.keys())}")
        lists = _flatten_list(args) if flatten else args
        if not lists:
            return []
        if len(lists) == 1:
            return lists[0]
        result = start(lists[0])
        for other in lists[1:]:
            result = step(result, other)
        return end(result)

    apply.__name__ = name
    return apply


def _same(value: Any) -> Any:
    return value


# --- keep_keys, remove_keys, replace_keys (keys_filter.py)

MATCHING = ("equal", "starts_with", "ends_with", "regex")


def _keys_params(data: Any, matching: Any) -> None:
    if not isinstance(data, Sequence):
        raise FilterFailure(f"First argument must be a list. {data} is {type(data)}")
    for element in data:
        if not isinstance(element, Mapping):
            raise FilterFailure(f"The data items must be dictionaries. {element} is {type(element)}")
    for element in data:
        if not all(isinstance(key, str) for key in element.keys()):
            raise FilterFailure(f"Top level keys must be strings. keys: {element.keys()}")
    if matching not in MATCHING:
        raise FilterFailure(f"The matching_parameter must be one of {list(MATCHING)}. matching_parameter={matching}")


def _key_targets(target: Any, matching: str) -> Any:
    if not isinstance(target, Sequence):
        raise FilterFailure(f"The target must be a string or a list. target is {type(target)}.")
    if len(target) == 0:
        raise FilterFailure("The target can't be empty.")
    if isinstance(target, list):
        for element in target:
            if not isinstance(element, str):
                raise FilterFailure(f"The target items must be strings. {element} is {type(element)}")
    if matching == "regex":
        if isinstance(target, str):
            pattern = target
        elif len(target) > 1:
            raise FilterFailure("Single item is required in the target list if matching_parameter=regex.")
        else:
            pattern = target[0]
        try:
            return re.compile(pattern)
        except re.error:
            raise FilterFailure(f"The target must be a valid regex if matching_parameter=regex. target is {pattern}") \
                from None
    return (target,) if isinstance(target, str) else tuple(target)


def _key_matches(targets: Any, matching: str) -> Callable[[str], bool]:
    if matching == "equal":
        return lambda key: key in targets
    if matching == "starts_with":
        return lambda key: key.startswith(targets)
    if matching == "ends_with":
        return lambda key: key.endswith(targets)
    return lambda key: targets.match(key) is not None


def keep_keys(data: Any, target: Any = None, matching_parameter: str = "equal") -> list[dict[str, Any]]:
    _keys_params(data, matching_parameter)
    matches = _key_matches(_key_targets(target, matching_parameter), matching_parameter)
    return [{k: v for k, v in d.items() if matches(k)} for d in data]


def remove_keys(data: Any, target: Any = None, matching_parameter: str = "equal") -> list[dict[str, Any]]:
    _keys_params(data, matching_parameter)
    matches = _key_matches(_key_targets(target, matching_parameter), matching_parameter)
    return [{k: v for k, v in d.items() if not matches(k)} for d in data]


def _replacements(target: Any, matching: str) -> list[tuple[Any, str]]:
    if not isinstance(target, list):
        raise FilterFailure(f"The target must be a list. target is {target}.")
    if len(target) == 0:
        raise FilterFailure("The target can't be empty.")
    for element in target:
        if not isinstance(element, Mapping):
            raise FilterFailure(f"The target items must be dictionaries. {element} is {type(element)}")
        if not all(k in element for k in ("before", "after")):
            raise FilterFailure("All dictionaries in target must include attributes: after, before.")
        for side in ("before", "after"):
            if not isinstance(element[side], str):
                raise FilterFailure(f"The attributes {side} must be strings. {element[side]} is "
                                    f"{type(element[side])}")
    before = [d["before"] for d in target]
    after = [d["after"] for d in target]
    if matching != "regex":
        return list(zip(before, after, strict=True))
    try:
        return list(zip(map(re.compile, before), after, strict=True))
    except re.error:
        raise FilterFailure("The attributes before must be valid regex if matching_parameter=regex. Not all items "
                            f"are valid regex in: {before}") from None


def replace_keys(data: Any, target: Any = None, matching_parameter: str = "equal") -> list[dict[str, Any]]:
    _keys_params(data, matching_parameter)
    pairs = _replacements(target, matching_parameter)

    def replaced(key: str) -> str:
        for old, new in pairs:  # (`equal`: the key is the one named, not one of several)
            if key == old if matching_parameter == "equal" else _key_matches(old, matching_parameter)(key):
                return new
        return key

    return [{replaced(k): v for k, v in d.items()} for d in data]


# --- to_time_unit and its units (time.py)

UNIT_FACTORS = {"ms": [], "s": [1000], "m": [1000, 60], "h": [1000, 60, 60], "d": [1000, 60, 60, 24],
                "w": [1000, 60, 60, 24, 7], "mo": [1000, 60, 60, 24, 30], "y": [1000, 60, 60, 24, 365]}
UNIT_TO_SHORT_FORM = {"millisecond": "ms", "msec": "ms", "msecond": "ms", "sec": "s", "second": "s", "hour": "h",
                      "min": "m", "minute": "m", "day": "d", "week": "w", "month": "mo", "year": "y"}


def _product(factors: list[Any]) -> Any:
    result = 1
    for factor in factors:
        result = result * factor
    return result


def to_time_unit(human_time: Any, unit: str = "ms", **kwargs: Any) -> Any:
    """(The collection's ``year``/``month`` change its table for the rest of the process, here only this call's.)"""
    if human_time == "0":
        return 0
    unit = UNIT_TO_SHORT_FORM.get(unit.rstrip("s"), unit)
    if unit not in UNIT_FACTORS:
        raise FilterFailure(f"to_time_unit() can not convert to the following unit: {unit}. Available units "
                            f"(singular or plural): {', '.join(UNIT_TO_SHORT_FORM.keys())}. Available short units: "
                            f"{', '.join(UNIT_FACTORS.keys())}")
    factors = dict(UNIT_FACTORS)
    if "year" in kwargs:
        factors["y"] = factors["y"][:-1] + [kwargs.pop("year")]
    if "month" in kwargs:
        factors["mo"] = factors["mo"][:-1] + [kwargs.pop("month")]
    if kwargs:
        raise FilterFailure(f"to_time_unit() got unknown keyword arguments: {', '.join(kwargs.keys())}")
    result = 0
    for part in human_time.split():
        found = re.match(r"(-?\d+)(\w+)", part)
        if not found:
            raise FilterFailure(f"to_time_unit() can not interpret following string: {human_time}")
        part_unit = UNIT_TO_SHORT_FORM.get(found.group(2).rstrip("s"), found.group(2))
        if part_unit not in factors:
            raise FilterFailure(f"to_time_unit() can not interpret following string: {human_time}")
        result += int(found.group(1)) * _product(factors[part_unit])
    return round(result / _product(factors[unit]), 12)


def _time_unit(unit: str) -> Callable[..., Any]:
    def convert(human_time: Any, **kwargs: Any) -> Any:
        return to_time_unit(human_time, unit, **kwargs)

    return convert


FILTERS: dict[str, Callable[..., Any]] = {
    "counter": counter,
    "dict": dict_filter,
    "dict_kv": dict_kv,
    "groupby_as_dict": groupby_as_dict,
    "version_sort": version_sort,
    "accumulate": accumulate,
    "crc32": crc32,
    "unicode_normalize": unicode_normalize,
    "lists_mergeby": lists_mergeby,
    "lists_union": _set_filter("lists_union", lambda a, b: a + b, _same, _remove_duplicates),
    "lists_intersect": _set_filter("lists_intersect", lambda a, b: _kept(a, b, True), _remove_duplicates, _same),
    "lists_difference": _set_filter("lists_difference", lambda a, b: _kept(a, b, False), _remove_duplicates, _same),
    "lists_symmetric_difference": _set_filter("lists_symmetric_difference", _symmetric_difference, _same, _same,
                                              "lists_difference"),
    "keep_keys": keep_keys,
    "remove_keys": remove_keys,
    "replace_keys": replace_keys,
    "to_time_unit": to_time_unit,
    **{f"to_{name}": _time_unit(unit) for name, unit in (
        ("milliseconds", "ms"), ("seconds", "s"), ("minutes", "m"), ("hours", "h"), ("days", "d"),
        ("weeks", "w"), ("months", "mo"), ("years", "y"))},
}

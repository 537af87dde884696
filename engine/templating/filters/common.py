"""The filters and tests playbooks use most, the first the engine had: JSON and YAML, ``combine``,
``dict2items``, ``mandatory``, ``unique``, ``flatten``, the regex and version ones, and the tests of a
registered result (``failed``, ``changed``, ``skipped``). The other tables are :mod:`.core`'s and
:mod:`.paths_and_sets`'; the templar puts them all in its environment.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from jinja2 import Undefined, pass_environment
from jinja2.filters import do_unique

from engine.booleans import bool_filter, boolean
from engine.templating.errors import SeparateFailure, TemplateFailure
from engine.templating.filters.core import _is_sequence, _plugin
from engine.templating.filters.randomness import random_filter, shuffle_filter
from engine.templating.filters.regex_and_ternary import regex_replace, regex_search, regex_test, ternary
from engine.templating.filters.version import version_compare
from engine.templating.finalize import fail_undefined_within, omitted
from engine.templating.type_names import native_type_name
from engine.values import UnsafeText, plain_type, type_name_of


def _combine(*dicts: Any, recursive: bool = False, list_merge: str = "replace") -> dict[str, Any]:
    flat = _flatten(dicts, levels=1)  # as ansible's: `[d1, d2] | combine`, and nulls left out
    if not flat:
        return {}
    if len(flat) == 1:
        return flat[0]
    # merge_hash merges from the last one down and refuses what is not a mapping, naming the
    # classes ansible's templar gives a dict and a list it reads (lazy containers)
    if flat and not all(isinstance(mapping, Mapping) for mapping in flat[-2:]):
        raise TemplateFailure(f"failed to combine variables, expected dicts but got a {_class_name(flat[-2])!r} "
                              f"and a {_class_name(flat[-1])!r}.")
    if bad := next((mapping for mapping in flat[:-2] if not isinstance(mapping, Mapping)), None):
        raise TemplateFailure(f"failed to combine variables, expected dicts but got a {_class_name(bad)!r} "
                              "and a 'dict'.")
    from engine.inventory.combine import CombineError, merge_hash

    # ansible folds from the highest priority (the last) down, merge_hash(lower, result) each time:
    # merge_hash is not associative, so the grouping decides key order and what list_merge sees
    pending = reversed(flat)
    result = next(pending)
    try:
        for mapping in pending:
            result = merge_hash(mapping, result, recursive, list_merge)
    except CombineError as exc:
        raise TemplateFailure(str(exc)) from exc
    return result


def _class_name(value: Any) -> str:
    return {dict: "_AnsibleLazyTemplateDict", list: "_AnsibleLazyTemplateList"}.get(plain_type(value),
                                                                                   type_name_of(value))


def _type_repr(value: Any) -> str:
    """``type(value)`` as ansible's filters print it: a list or dict is a lazy container there."""
    kind = type(value)
    # a value tagged as ansible's templar hands it (tagged_retry), Jinja's own Undefined: Python's words
    if kind.__module__.startswith(("ansible.", "jinja2.")):
        return f"<class '{kind.__module__}.{kind.__name__}'>"
    name = _class_name(value)
    module = "ansible._internal._templating._lazy_containers." if name != type_name_of(value) else ""
    return f"<class '{module}{name}'>"


def _dict2items(value: Mapping[str, Any], key_name: str = "key", value_name: str = "value") -> list[dict[str, Any]]:
    if not isinstance(value, Mapping):
        raise TemplateFailure(f"dict2items requires a dictionary, got {_type_repr(value)} instead.")
    return [{key_name: k, value_name: v} for k, v in value.items()]


def _items2dict(value: list[Mapping[str, Any]], key_name: str = "key", value_name: str = "value") -> dict[str, Any]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise TemplateFailure(f"items2dict requires a list, got {_type_repr(value)} instead.")
    try:
        return {item[key_name]: item[value_name] for item in value}
    except KeyError:  # raised while handling the KeyError: ansible shows it as a cause of its own
        raise SeparateFailure(f"items2dict requires each dictionary in the list to contain the keys '{key_name}' "
                              f"and '{value_name}', got {value} instead.") from None
    except TypeError:
        raise SeparateFailure(f"items2dict requires a list of dictionaries, got {value} instead.") from None


def _mandatory(value: Any, msg: str | None = None) -> Any:
    """ansible's mandatory: an undefined Marker fails; anything else, Jinja's own Undefined too, is
    handed back."""
    from engine.templating.markers import is_marker

    if is_marker(value):
        raise TemplateFailure(msg or f"Mandatory variable {value._undefined_name!r} not defined.")
    return value


@functools.cache
def _yaml_dumper() -> type:
    """ansible's ``AnsibleDumper``: PyYAML's safe dumper (libyaml's when PyYAML has it, which
    ends a lone scalar without ``...``), writing any mapping as a dict and any other collection
    as a list."""
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    dumper = type("AnsibleLikeDumper", (base,), {})
    # libyaml's emitter takes a plain str only: a value a module returned or a template rendered
    # (UnsafeText) is written as its text
    dumper.add_representer(UnsafeText, lambda self, text: self.represent_str(str(text)))
    dumper.add_multi_representer(str, lambda self, text: self.represent_str(str(text)))
    dumper.add_multi_representer(Mapping, lambda self, mapping: self.represent_dict(_plain_dict(mapping)))
    dumper.add_multi_representer(Collection, dumper.represent_list)
    # PyYAML looks a multi representer up by the value's class's bases: an ABC is none of them, so
    # a subclass of dict or list (a set filter's RunOrdered list) is found by its base
    dumper.add_multi_representer(dict, lambda self, mapping: self.represent_dict(_plain_dict(mapping)))
    dumper.add_multi_representer(list, dumper.represent_list)
    return dumper


def _to_yaml(value: Any, *_args: Any, default_flow_style: bool | None = None, **kwargs: Any) -> str:
    """``to_yaml``: flow style for the innermost collections (PyYAML's default), as ansible dumps."""
    import yaml

    return str(yaml.dump(fail_undefined_within(value), Dumper=_yaml_dumper(), allow_unicode=True,
                         default_flow_style=default_flow_style, **kwargs))


def _to_nice_yaml(value: Any, indent: int = 4, *_args: Any, default_flow_style: bool = False, **kwargs: Any) -> str:
    """``to_nice_yaml``: block style, indented by 4 unless told otherwise."""
    return _to_yaml(value, indent=indent, default_flow_style=default_flow_style, **kwargs)


@pass_environment
def _unique(environment: Any, value: Any, case_sensitive: bool | None = None, attribute: Any = None) -> list[Any]:
    """ansible's unique: Jinja's (case-insensitive unless ``case_sensitive`` is true, by
    ``attribute`` when given), and where that fails (unhashable items) its own, in order, unless
    the arguments ask for what only Jinja's does."""
    from jinja2 import UndefinedError

    try:
        return list(do_unique(environment, value, case_sensitive=bool(case_sensitive), attribute=attribute))
    except (TypeError, UndefinedError) as exc:
        if case_sensitive is False or attribute:
            raise TemplateFailure("Jinja2's unique filter failed and we cannot fall back to Ansible's version as it "
                                  "does not support the parameters supplied.") from exc
        if isinstance(exc, UndefinedError):  # ansible warns, then its own loop meets the same value
            from engine.templating.plugin_reports import warn

            warn(f"Falling back to Ansible unique filter as Jinja2 one failed: {exc}")
            raise
    result: list[Any] = []
    for item in value:
        if item not in result:
            result.append(item)
    return result


def _flatten(value: Any, levels: int | None = None, skip_nulls: bool = True) -> list[Any]:
    """ansible's flatten: nulls (None and the strings 'None' and 'null') left out unless
    ``skip_nulls`` is false; any sequence but a string flattened (not a mapping), ``levels`` deep."""
    result: list[Any] = []
    for item in value:
        if skip_nulls and item in (None, "None", "null"):
            continue
        if _is_sequence(item) and (levels is None or levels >= 1):
            result.extend(_flatten(item, None if levels is None else int(levels) - 1, skip_nulls))
        else:
            result.append(item)
    return result


def _os_path(function: Callable[[str], Any]) -> Callable[[Any], Any]:
    """An ``os.path`` function as ansible's filters and tests call it: on a string only, failing
    with Python's message (naming the lazy container a list or dict is in ansible's templar)."""
    def call(path: Any) -> Any:
        if not isinstance(path, str | bytes | os.PathLike):
            raise TypeError(f"expected str, bytes or os.PathLike object, not {_class_name(path)}")
        return function(path)

    return call


def _type_debug(value: Any) -> str:
    """``native_type_name``: the plain type a value stands for, a mapping named as ansible's class
    for it is (``hostvars``: 'HostVars', ``hostvars[host]``: 'HostVarsVars', ``groups``: 'dict')."""
    if type(value) is Undefined:  # Jinja's own, of an inline `if` without `else`
        return "Undefined"
    return "UndefinedMarker" if isinstance(value, Undefined) else native_type_name(value)


def _truthy(value: Any, convert_bool: bool = False) -> bool:
    """ansible's truthy test: ``convert_bool`` reads boolean spellings ("no", "off") first."""
    if convert_bool:
        try:
            value = boolean(value, strict=True)
        except TypeError:
            pass
    return bool(value)


def _to_json(value: Any, **kwargs: Any) -> str:
    """ansible's to_json with its default ("tagless") encoder profile: a date, time or datetime (a
    YAML timestamp's) in ISO format, a set as a list."""
    kwargs.setdefault("default", _tagless)
    return json.dumps(fail_undefined_within(value), **kwargs)


def _tagless(value: Any) -> Any:
    """What the tagless profile's encoder makes of a value JSON has no type for: a date or time in ISO
    format, any other mapping as a dict and any other sequence or set as a list (``is_intermediate_*``:
    a range too); anything else it cannot encode."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return _plain_dict(value)
    if isinstance(value, set | frozenset | Sequence) and not isinstance(value, str | bytes):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__!r} is not JSON serializable by the 'tagless' profile.")


def _plain_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping as a dict; a mapping of variables (``hostvars[host]``) without ``omit``, which the
    engine keeps among them and ansible does not (its ``omit`` is a global of its templar)."""
    if getattr(value, "type_name", None) is None:
        return dict(value)
    return {key: item for key, item in value.items() if not (key == "omit" and omitted(item))}


def _to_nice_json(value: Any, indent: int = 4, sort_keys: bool = True, **kwargs: Any) -> str:
    """ansible's to_nice_json: ``sort_keys`` may be turned off; its own separators."""
    kwargs.pop("separators", None)
    return _to_json(value, indent=indent, sort_keys=sort_keys, separators=(",", ": "), **kwargs)


FILTERS: dict[str, Callable[..., Any]] = {
    "random": random_filter,
    "shuffle": shuffle_filter,
    "bool": bool_filter,
    "to_json": _to_json,
    "to_nice_json": _to_nice_json,
    "from_json": lambda v: json.loads(v),  # these three fail as plugins (below)
    "to_yaml": _to_yaml,
    "to_nice_yaml": _to_nice_yaml,
    "regex_replace": regex_replace,
    "regex_search": regex_search,
    "combine": _combine,
    "dict2items": _dict2items,
    "items2dict": _items2dict,
    "mandatory": _mandatory,
    "ternary": ternary,
    "basename": _os_path(os.path.basename),
    "dirname": _os_path(os.path.dirname),
    "unique": _unique,
    "flatten": _flatten,
    "zip": lambda *lists: [list(t) for t in zip(*lists, strict=False)],
    "quote": lambda v: __import__("shlex").quote("" if v is None else str(v)),
    "type_debug": _type_debug,
}
# ansible reports their failures as any filter plugin's: "The filter plugin '...' failed: ..."
FILTERS.update({name: _plugin(name, FILTERS[name])
                for name in ("from_json", "combine", "mandatory", "dict2items", "items2dict", "basename", "dirname",
                             "unique")})


# -- tests -------------------------------------------------------------------------------
def _result_failed(result: Any) -> bool:
    if not isinstance(result, Mapping):
        raise TemplateFailure("The 'failed' test expects a dictionary")
    return bool(result.get("failed", False))


def _result_changed(result: Any) -> bool:
    if not isinstance(result, Mapping):
        raise TemplateFailure("The 'changed' test expects a dictionary")
    if "changed" not in result and isinstance(result.get("results"), list):
        return any(isinstance(r, Mapping) and r.get("changed") for r in result["results"])
    return bool(result.get("changed", False))


def _result_skipped(result: Any) -> bool:
    if not isinstance(result, Mapping):
        raise TemplateFailure("The 'skipped' test expects a dictionary")
    return bool(result.get("skipped", False))


def _result_unreachable(result: Any) -> bool:
    if not isinstance(result, Mapping):
        raise TemplateFailure("The 'unreachable' test expects a dictionary")
    return bool(result.get("unreachable"))


def _result_timedout(result: Any) -> bool:
    if not isinstance(result, Mapping):
        raise TemplateFailure("The 'timedout' test expects a dictionary")
    return bool(result.get("timedout") and bool(result["timedout"].get("period")))


def _not_a_number(value: Any) -> bool:
    import math

    try:
        return math.isnan(value)
    except TypeError:
        return False


TESTS: dict[str, Callable[..., bool]] = {
    "version": version_compare,
    "version_compare": version_compare,
    "failed": _result_failed,
    "failure": _result_failed,
    "succeeded": lambda r: not _result_failed(r),
    "success": lambda r: not _result_failed(r),
    "successful": lambda r: not _result_failed(r),
    "changed": _result_changed,
    "change": _result_changed,
    "skipped": _result_skipped,
    "skip": _result_skipped,
    "match": regex_test("match"),
    "search": regex_test("search"),
    "regex": regex_test("search", "regex"),
    "truthy": _truthy,
    "falsy": lambda v, convert_bool=False: not _truthy(v, convert_bool),
    "subset": lambda a, b: set(a) <= set(b),
    "issubset": lambda a, b: set(a) <= set(b),
    "superset": lambda a, b: set(a) >= set(b),
    "issuperset": lambda a, b: set(a) >= set(b),
    "nan": _not_a_number,
    "isnan": _not_a_number,
    "any": any,
    "all": all,
    "unreachable": _result_unreachable,
    "reachable": lambda r: not _result_unreachable(r),
    "timedout": _result_timedout,
    "contains": lambda seq, item: item in seq,
    "abs": _plugin("abs", _os_path(os.path.isabs), kind="test"),
}

"""The lookups that read nothing but their terms and the task's variables, and how a template
calls any lookup: ``lookup()``, ``query()``/``q()`` and ``with_<lookup>`` loops.

One function per lookup plugin (``plugins/lookup/*.py`` of ansible-core 2.19), each
``fn(terms, kwargs, call) -> list`` with the plugin's semantics and messages, and ``invoke`` doing
what ``_invoke_lookup`` does around them: ``wantlist``, ``errors=strict|warn|ignore``, and joining a
list of strings with commas for ``lookup()``. Which plugins a template reaches is its lookup set's
choice: :class:`PureLookups` for static templating (a variable's value before the run: ``vars``,
``items``, ``dict``, ``sequence``... and no other, so nothing is read or run), and the bundled
engine's :class:`engine.run.file_and_command_lookups.LookupContext` in a run, which adds those that read files or
run commands.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence, Sized
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from typing import Any

from engine.templating.bounds import TooLarge, refuse_over, static_evaluation_in_progress
from engine.templating.read_names import note_names

# the task's templar (engine.templating.templar.Templar, which is given a lookup set): named, not imported
Templar = Any

CONSTANT_TEMPLATE = "__pls_lookup_constant_template"  # engine.templating.jinja_environment's name for it


class LookupFailure(Exception):
    """What the plugin raises (AnsibleError); ``invoke`` words it as ansible does."""


@dataclass
class Call:
    templar: Templar
    context: Any
    """The lookup set that ran it (engine.run.file_and_command_lookups.LookupContext in a run: files, search paths)."""
    name: str
    invoked_as_with: bool = False


# -- helpers (LookupBase) ---------------------------------------------------------------------
def _flatten(terms: Sequence[Any]) -> list[Any]:
    flat: list[Any] = []
    for term in terms:
        flat.extend(term) if isinstance(term, (list, tuple)) else flat.append(term)
    return flat


def _options(kwargs: Mapping[str, Any], known: Mapping[str, Any], name: str) -> dict[str, Any]:
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise LookupFailure(f"Unsupported parameters for ({name}) lookup: {', '.join(unknown)}")
    return {**known, **kwargs}


def _bool_option(value: Any) -> bool:
    from engine.booleans import boolean

    return boolean(value)


# -- the lookups ------------------------------------------------------------------------------
def lookup_vars(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.templating.errors import TemplateFailure

    opts = _options(kwargs, {"default": None}, "vars")
    variables = call.templar.variables
    ret = []
    for term in terms:
        if not isinstance(term, str):
            raise LookupFailure(f"Variable name must be 'str' not {type(term).__name__!r}.")
        note_names((term,))  # what a template reads through it (engine.templating.read_names)
        if term in variables:
            value = variables[term]
            if getattr(call.templar, "_tagging", False):  # the value as the templar hands it (tagged_retry)
                from engine.templating.tagged_retry import tag

                value = tag(value, call.templar._written(term))
            ret.append(value)
        elif opts["default"] is None:
            raise TemplateFailure(f"No variable named {term!r} was found.")  # an undefined value, not a failure
        else:
            ret.append(opts["default"])
    return ret


def lookup_items(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    return _flatten(terms)


def lookup_list(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    return terms


def lookup_dict(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    results: list[Any] = []
    for term in terms:
        if not isinstance(term, Mapping):
            raise LookupFailure(f"the 'dict' lookup plugin expects a dictionary, got '{term}' of type {type(term)})")
        results.extend({"key": k, "value": v} for k, v in term.items())
    return results


_NUM = "(0?x?[0-9a-f]+)"
_SHORTCUT = re.compile("^(" + _NUM + "-)?" + _NUM + "(/" + _NUM + ")?" + "(:(.+))?$", re.IGNORECASE)
_FIELDS = ("start", "end", "stride", "count", "format")


def _integer(name: str, value: Any, plugin: str = "sequence", type_name: str = "integer") -> int:
    """An integer option; ``type_name`` is the option's type as its plugin's documentation spells it."""
    if isinstance(value, int):
        return int(value)
    try:
        number = Decimal(str(value))
        if number == int(number):
            return int(number)
    except (DecimalException, ValueError):
        pass
    raise LookupFailure(f"Config {name!r} for {plugin!r} lookup plugin from 'Direct' has an invalid value: "
                        f"Invalid value provided for {type_name!r}: {value!r}")


def lookup_sequence(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.parsing.splitter import parse_kv

    defaults = {"start": 1, "end": None, "stride": 1, "count": None, "format": "%d"}
    _options(kwargs, defaults, "sequence")
    results: list[Any] = []
    if kwargs and not terms:
        terms = [""]
    for term in terms:
        opts = {**defaults, **kwargs}
        match = _SHORTCUT.match(term)
        if match:
            _, start, end, _, stride, _, fmt = match.groups()
            for key, value in (("start", start), ("end", end), ("stride", stride), ("format", fmt)):
                if value is not None:
                    opts[key] = value
        else:
            try:
                args = parse_kv(term)
            except Exception as exc:  # noqa: BLE001
                raise LookupFailure(f"unknown error parsing with_sequence arguments: {term!r}. "
                                    f"Error was: {exc}") from exc
            for key in _FIELDS:
                if args.get(key) is not None:
                    opts[key] = args.pop(key)
                else:
                    args.pop(key, None)
            if args:
                raise LookupFailure(f"unrecognized arguments to with_sequence: {list(args.keys())}")
        start, stride = _integer("start", opts["start"]), _integer("stride", opts["stride"])
        end = None if opts["end"] is None else _integer("end", opts["end"])
        count = None if opts["count"] is None else _integer("count", opts["count"])
        fmt = str(opts["format"])
        if count is None and end is None:
            raise LookupFailure("must specify count or end in with_sequence")
        if count is not None and end is not None:
            raise LookupFailure("can't specify both count and end in with_sequence")
        if count is not None:
            if count == 0:
                continue
            end = start + count * stride - 1
        assert end is not None
        if stride > 0 and end < start:
            raise LookupFailure("to count backwards make stride negative")
        if stride < 0 and end > start:
            raise LookupFailure("to count forward don't make stride negative")
        if stride == 0:
            continue
        if fmt.count("%") != 1:
            raise LookupFailure(f"bad formatting string: {fmt}")
        numbers = range(start, end + (1 if stride >= 0 else -1), stride)
        if static_evaluation_in_progress():
            refuse_over(len(results) + len(numbers), "the sequence lookup")
        for i in numbers:
            try:
                results.append(fmt % i)
            except (ValueError, TypeError) as exc:
                raise LookupFailure(f"problem formatting {i!r} with {fmt!r}") from exc
    return results


def lookup_together(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    if not terms:
        raise LookupFailure("with_together requires at least one element in each list")
    return [_flatten(x) for x in itertools.zip_longest(*terms, fillvalue=None)]


def lookup_nested(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    lists = list(reversed(terms))
    if not lists:
        raise LookupFailure("with_nested requires at least one element in the nested list")
    if static_evaluation_in_progress():
        refuse_over(math.prod(len(term) if isinstance(term, Sized) else 1 for term in terms), "the nested lookup")
    result = lists.pop()
    while lists:
        following = lists.pop()
        result = [_flatten([x, y]) for x in result for y in following]
    return [_flatten(x) for x in result]


def lookup_subelements(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    def terms_error(msg: str = "") -> LookupFailure:
        return LookupFailure("subelements lookup expects a list of two or three items, " + msg)

    if not isinstance(terms, list) or not 2 <= len(terms) <= 3:
        raise terms_error()
    if not isinstance(terms[0], (list, dict)) or not isinstance(terms[1], str):
        raise terms_error("first a dict or a list, second a string pointing to the subkey")
    subelements = terms[1].split(".")
    if isinstance(terms[0], dict):
        if terms[0].get("skipped", False) is not False:
            return []
        elementlist = list(terms[0].values())
    else:
        elementlist = terms[0]
    flags = terms[2] if len(terms) == 3 else {}
    if not isinstance(flags, dict) and not all(isinstance(k, str) and k == "skip_missing" for k in flags):
        raise terms_error("the optional third item must be a dict with flags ('skip_missing',)")
    ret: list[Any] = []
    for item0 in elementlist:
        if not isinstance(item0, dict):
            raise LookupFailure(f"subelements lookup expects a dictionary, got '{item0}'")
        if item0.get("skipped", False) is not False:
            continue
        item0 = dict(item0)  # the plugin pops the subkey from (a copy of) the item
        skip_missing = _bool_option(flags.get("skip_missing", False))
        subvalue = item0
        sublist: list[Any] = []
        for position, subkey in enumerate(subelements):
            last = subkey == subelements[-1] or position == len(subelements) - 1
            if subkey not in subvalue:
                if skip_missing:
                    continue
                raise LookupFailure(f"could not find '{subkey}' key in iterated item '{subvalue}'")
            if not last:
                if not isinstance(subvalue[subkey], dict):
                    if skip_missing:
                        continue
                    raise LookupFailure(f"the key {subkey} should point to a dictionary, got '{subvalue[subkey]}'")
                subvalue = subvalue[subkey] = dict(subvalue[subkey])
            else:
                if not isinstance(subvalue[subkey], list):
                    raise LookupFailure(f"the key {subkey} should point to a list, got '{subvalue[subkey]}'")
                sublist = subvalue.pop(subkey, [])
        ret.extend([item0, item1] for item1 in sublist)
    return ret


def lookup_indexed_items(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    items = _flatten(terms)
    return [[index, item] for index, item in enumerate(items)]


def lookup_varnames(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.templating.filters import regex_guard

    names = list(call.templar.variables.keys())
    ret: list[Any] = []
    for term in terms:
        if not isinstance(term, str):
            raise LookupFailure(f'Invalid setting identifier, "{term}" is not a string, it is a {type(term)}')
        try:
            ret.extend(regex_guard.call("names_searched", term, names))
        except re.error as exc:
            raise LookupFailure(f'Unable to use "{term}" as a search parameter: {exc}') from exc
    return ret


def lookup_inventory_hostnames(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    """The hosts a pattern matches in an inventory made of nothing but the ``groups`` variable
    (each group flat, its hosts in their order), as the plugin builds one, each once
    (``get_hosts``); [] when the pattern is invalid or matches nothing. A pattern that matches
    nothing is reported as the inventory reports it (HOST_PATTERN_MISMATCH) where the lookup set
    can warn (a run's); elsewhere it is ignored."""
    from engine.inventory.data import InventoryData
    from engine.inventory.patterns import HostPatternError, HostSelector, split_host_pattern

    groups = call.templar.variables.get("groups")
    if not isinstance(groups, Mapping):
        raise LookupFailure("the groups variable is not a mapping")
    inventory = InventoryData()
    for group, hosts in groups.items():
        inventory.add_group(str(group))
        for host in hosts or ():
            inventory.add_host(str(host), group=str(group))
    warn = getattr(call.context, "warn", None)
    mismatch = getattr(call.context, "host_pattern_mismatch", "ignore") if warn is not None else "ignore"
    warnings: list[str] = []
    try:
        found = HostSelector(inventory, warnings, mismatch).evaluate(split_host_pattern(terms))
    except HostPatternError:
        return []
    finally:
        for warning in warnings:
            warn(warning)  # type: ignore[misc]
    return list(dict.fromkeys(host.name for host in found))


LookupFunction = Callable[[list[Any], dict[str, Any], Call], list[Any]]

PURE: dict[str, LookupFunction] = {
    "vars": lookup_vars,
    "items": lookup_items,
    "list": lookup_list,
    "dict": lookup_dict,
    "sequence": lookup_sequence,
    "together": lookup_together,
    "nested": lookup_nested,
    "subelements": lookup_subelements,
    "indexed_items": lookup_indexed_items,
    "varnames": lookup_varnames,
}
INVENTORY: dict[str, LookupFunction] = {"inventory_hostnames": lookup_inventory_hostnames}
"""Lookups that read only the task's ``groups``: given to static templating (the groups before the run)."""
PREFIXES = ("ansible.builtin.", "ansible.legacy.")


def short_name(name: str) -> str:
    """A lookup's name without the ``ansible.builtin.`` / ``ansible.legacy.`` prefix."""
    for prefix in PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


@dataclass(frozen=True)
class PureLookups:
    """The lookup set of static templating: only the lookups that read nothing (:data:`PURE`, and
    :data:`INVENTORY`, which reads the ``groups`` variable).
    Any other lookup (a file, a command, a collection's plugin) has a value only when the task
    runs, which is what a template using one says."""

    warn: Callable[[str], None] | None = None

    def resolve(self, name: str) -> LookupFunction:
        from engine.templating.errors import TemplateFailure

        found = PURE.get(short_name(name)) or INVENTORY.get(short_name(name))
        if found is None:
            raise TemplateFailure(f"the lookup {name!r} gives a value only when the task runs")
        return found

    def template_globals(self, templar_of: Callable[[], Templar]) -> dict[str, Callable[..., Any]]:
        return template_globals(templar_of, self)

    def invoke(self, templar: Templar, name: str, terms: list[Any], kwargs: dict[str, Any],
               invoked_as_with: bool = False) -> Any:
        return invoke(templar, self, name, terms, kwargs, invoked_as_with)


def invoke(templar: Templar, context: Any, name: str, terms: list[Any], kwargs: dict[str, Any],
           invoked_as_with: bool = False) -> Any:
    """``_invoke_lookup``: run the plugin, handle ``errors`` and shape the result for ``wantlist``."""
    from jinja2 import Undefined

    from engine.templating.errors import ForeignCause, TemplateFailure, cause_of

    tagging = getattr(templar, "_tagging", False)  # a rendering again with values tagged as ansible's
    replayed = _replayed(name)  # (tagged_retry), or to find the failing argument: what the call gave before
    if replayed is not None and (tagging or replayed.active):
        kept = replayed.result(name, terms, kwargs, tagging)
        if kept is not replayed.MISSING:
            return kept
    function = context.resolve(name)
    if not getattr(function, "accepts_undefined", False):  # first_found's with_ drops undefined terms
        for value in [*terms, *kwargs.values()]:
            if isinstance(value, Undefined):
                value._fail_with_undefined_error()
    given, kwargs = kwargs, dict(kwargs)
    wantlist = kwargs.pop("wantlist", False)
    errors = kwargs.pop("errors", "strict")
    if replayed is not None and not tagging:  # what an earlier call gave is not this one's
        replayed.drop(name, terms, given)
    try:
        result = function(list(terms), kwargs, Call(templar, context, name, invoked_as_with))
    except (TemplateFailure, TooLarge):  # a static evaluation's limit is not the plugin's error to ignore
        raise
    except Exception as exc:  # noqa: BLE001 - any error of the plugin is the lookup's failure
        # ansible chains the plugin's error to its own, each message as str() gives it, without the type
        message = str(exc).strip()
        if errors not in ("warn", "ignore"):
            raise TemplateFailure(f"The lookup plugin {name!r} failed" + (f": {message}" if message else ".")) from exc
        if errors == "warn" and context.warn is not None:
            text = f"An error occurred while running the lookup plugin {name!r}: {message}"
            foreign = cause_of(exc, ForeignCause)
            context.warn(text) if foreign is None else context.warn(text, str(foreign))
        return [] if wantlist else None
    if not wantlist and result:
        if len(result) == 1:
            result = result[0]
        elif getattr(result, "why", None) is not None:  # engine.values.RunOrdered: joined, in the run's order
            from engine.templating.errors import OrderOnly

            raise OrderOnly(f"the lookup {name!r} joins its items in an order only the run knows ({result.why})")
        elif all(isinstance(item, str) for item in result):
            result = ",".join(result)
    if tagging:
        from engine.templating.tagged_retry import plugin_output

        return plugin_output(result)
    if replayed is not None:
        replayed.keep(name, terms, given, result)
    return result


def _replayed(name: str) -> Any:
    """The results kept of the lookup ``name`` when rendering again must not run it again (it may
    run a command, write a file or warn: engine.templating.tagged_retry); None for one that only reads."""
    from engine.templating.tagged_retry import READING_LOOKUPS, REPLAYED

    return None if name.removeprefix("ansible.builtin.").removeprefix("ansible.legacy.") in READING_LOOKUPS \
        else REPLAYED


EMBEDDED_WARNING = ("Jinja constant strings should not contain embedded templates. This feature will be disabled by "
                    "default in ansible-core 2.23.")


def template_globals(templar_of: Callable[[], Templar], context: Any) -> dict[str, Callable[..., Any]]:
    """``lookup``, ``query`` and ``q`` for the Jinja context of the templar ``templar_of()`` gives
    (asked at each call: these functions are kept in that templar's globals, which must not hold it)."""
    def lookup(name: str, *terms: Any, **kwargs: Any) -> Any:
        return invoke(templar_of(), context, name, list(terms), kwargs)

    def query(name: str, *terms: Any, **kwargs: Any) -> Any:
        return invoke(templar_of(), context, name, list(terms), {**kwargs, "wantlist": True})

    def constant_template(text: str) -> Any:
        templar = templar_of()
        if context.warn is not None:  # a run's lookups place it (engine.run.error_block.embedded_warning)
            placed = getattr(context, "embedded_warning", None)
            context.warn(placed(templar) if placed is not None else EMBEDDED_WARNING)
        return templar.template(text)

    return {"lookup": lookup, "query": query, "q": query, CONSTANT_TEMPLATE: constant_template}


__all__ = ["PURE", "Call", "LookupFailure", "PureLookups", "invoke", "template_globals"]

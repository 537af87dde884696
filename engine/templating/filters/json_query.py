"""community.general's ``json_query`` filter, run by the engine where ansible-playbook runs the
collection's: community.general installed where ansible-playbook looks, and jmespath importable
by this Python (the controller's, which ansible-playbook beside playbook-ls shares). Ported from
``plugins/filter/json_query.py``: ``jmespath.search(expr, data)`` after the same widening of
jmespath's type names (ansible's tagged strings and lazy containers count as strings, arrays and
objects), the same two wordings of a failure, reported as a failure of the plugin
``community.general.json_query``.

ansible hands the filter its values tagged (a string, number or float some file holds is an
``_AnsibleTaggedStr``, ``_AnsibleTaggedInt`` or ``_AnsibleTaggedFloat``); jmespath's functions that
check a number (``abs``, ``avg``, ``ceil``, ``floor``, ``max``, ``min``, ``sum``, ``sort``) or a key's
type (``sort_by``, ``min_by``, ``max_by``) refuse a tagged number, and the ``_by`` ones a tagged
string too, where the engine's plain values pass. An expression calling one of them is declined
before the run: when it is written in the call (:func:`declined_functions`), and when a variable
or an expression gives it, if any value the run may read before it starts (a file of the playbook,
its roles or inventory, a variables file, the extra vars) may call one (:func:`declined_calls`);
one that only the run makes (a command's output) is declined when the filter meets it. A
comparison that fails on a type (``'>' not supported between instances of 'str' and 'int'``) is
worded with ansible's class names by the templar's tagged rendering again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from engine.templating.errors import PluginFailure, SeparateFailure, TemplateFailure

NAME = "community.general.json_query"
COLLECTION = "community.general"
NAMES = ("json_query", NAME)
# jmespath's functions whose type checks a tagged value fails (see above)
DECLINED_FUNCTIONS = frozenset({"abs", "avg", "ceil", "floor", "max", "min", "sum", "sort", "sort_by", "min_by",
                                "max_by"})
_KEPT_CLASSES = frozenset({"_AnsibleTaggedStr", "_AnsibleTaggedInt", "_AnsibleTaggedFloat",
                           "_AnsibleLazyTemplateList", "_AnsibleLazyTemplateDict"})


@cache
def jmespath_module() -> Any:
    """jmespath when this Python can import it, else None."""
    try:
        import jmespath
    except ImportError:
        return None
    return jmespath


def declined_functions(expression: Any) -> list[str]:
    """The functions of ``expression`` (a JMESPath text) the engine declines, in order; none for
    an expression that does not parse (both tools fail on it alike) or without jmespath."""
    jmespath = jmespath_module()
    if jmespath is None or not isinstance(expression, str):
        return []
    try:
        tree = jmespath.compile(expression).parsed
    except Exception:  # noqa: BLE001 - jmespath's own parse errors: the filter words them at run time
        return []
    found: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, Mapping):
            continue
        if node.get("type") == "function_expression" and node.get("value") in DECLINED_FUNCTIONS \
                and node["value"] not in found:
            found.append(node["value"])
        stack.extend(reversed([child for child in node.get("children", ()) if isinstance(child, Mapping)]))
    return found


_CALL = re.compile(r"\b(" + "|".join(sorted(DECLINED_FUNCTIONS, key=len, reverse=True)) + r")\s*\(([^()]*)")
_JMESPATH_ARGUMENT = re.compile(r"[@&\[`]")


def declined_calls(text: str) -> list[str]:
    """The declined functions ``text`` (a file of any format, a value) may call in a JMESPath
    expression, in order: a ``_by`` function, or another whose arguments read as JMESPath (``@``,
    ``&``, ``[``, a literal) or that no ``|`` or ``.`` comes before (Jinja's ``| sort(attribute='a')``
    and ``| max`` are filters, a ``.sort()`` a method)."""
    found: list[str] = []
    for match in _CALL.finditer(text):
        name, arguments = match.group(1), match.group(2)
        before = text[:match.start()].rstrip()[-1:]
        if name.endswith("_by") or _JMESPATH_ARGUMENT.search(arguments) or before not in ("|", "."):
            if name not in found:
                found.append(name)
    return found


def _as_ansible_hands_it(value: Any) -> Any:
    """``value`` with the engine's own classes (its text, its partly rendered containers) made the
    plain ones ansible's templar hands a plugin; the tagged classes of a rendering again are kept."""
    kind = type(value)
    if kind in (str, int, float, bool, type(None)) or kind.__name__ in _KEPT_CLASSES:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, Mapping):
        return {key: _as_ansible_hands_it(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_ansible_hands_it(item) for item in value]
    return value


_ANSIBLE_TYPES = {"string": ("AnsibleUnicode", "AnsibleUnsafeText", "_AnsibleTaggedStr"),
                  "array": ("AnsibleSequence", "_AnsibleLazyTemplateList"),
                  "object": ("AnsibleMapping", "_AnsibleLazyTemplateDict")}


def available(collections: Any) -> frozenset[str]:
    """The filter's names when ansible-playbook runs it for the run whose CollectionFinder is
    ``collections`` (community.general installed where it looks) and jmespath is importable here;
    none otherwise (not installed: both tools fail on the name alike; no jmespath: declined)."""
    if collections is None or collections.collection_dir(COLLECTION) is None or jmespath_module() is None:
        return frozenset()
    return frozenset(NAMES)


def json_query(data: Any, expr: Any) -> Any:
    jmespath = jmespath_module()
    if declined := declined_functions(expr):
        raise TemplateFailure(f"playbook-ls's engine does not run json_query's {declined[0]}() as ansible does "
                              "(its type checks refuse ansible's tagged values): run with --engine ansible")
    types = jmespath.functions.REVERSE_TYPES_MAP
    for kind, names in _ANSIBLE_TYPES.items():  # added once, where the plugin adds them at each call
        types[kind] = types[kind] + tuple(name for name in names if name not in types[kind])
    try:
        return jmespath.search(expr, _as_ansible_hands_it(data))
    except jmespath.exceptions.JMESPathError as exc:
        message = f"JMESPathError in json_query filter plugin:\n{exc}"
    except Exception as exc:  # noqa: BLE001 - as the plugin words any other error
        message = f"Error in jmespath.search in json_query filter plugin:\n{exc}"
    # raised while handling jmespath's error, not from it: ansible shows it as a cause of its own
    raise PluginFailure(NAME, message, SeparateFailure(message))


FILTERS = dict.fromkeys(NAMES, json_query)

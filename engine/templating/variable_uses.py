"""The variables a task reads before it runs, as Jinja2 sees them, and the ones it guards.

A task's module arguments, ``loop`` / ``with_*`` items, ``delegate_to`` and its conditions
(``when``; ``changed_when``, ``failed_when`` and ``until`` after it ran) are templated, and each
variable they name must be defined then, unless the template guards it: a ``defined`` /
``undefined`` test, or a ``default`` / ``d`` / ``mandatory`` filter on it. Names a template
sets itself (``{% set %}``, ``{% for %}``, macros) and Jinja's and ansible's globals are not
variables. Parsing runs nothing: the templates are only read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from engine.span import Span

# keywords templated before the module runs, and the conditions (bare expressions)
TEMPLATED_KEYWORDS = ("loop", "delegate_to")
CONDITION_KEYWORDS = ("when", "changed_when", "failed_when", "until")
GUARD_TESTS = frozenset({"defined", "undefined"})
GUARD_FILTERS = frozenset({"default", "d", "mandatory"})
# ansible's template globals besides Jinja's own (ansible.template: lookup, query, q, now, undef)
ANSIBLE_GLOBALS = frozenset({"lookup", "query", "q", "now", "undef"})


class Use(NamedTuple):
    name: str
    span: Span | None  # where the template is written (the value holding it)


class TaskUses(NamedTuple):
    uses: list[Use]
    guarded: set[str]
    unreadable: bool  # a template Jinja cannot parse: ansible fails it with its own message


@lru_cache(maxsize=4096)
def _names(text: str, expression: bool) -> tuple[frozenset[str], frozenset[str]] | None:
    """(names the template reads from outside, names it guards), or None when it does not parse
    or is too deep to analyse. Kept per text: a task file is reached from many plays and profiles."""
    from jinja2 import TemplateSyntaxError

    from engine.templating.templar import parsing_environment

    try:
        return _analysed(parsing_environment().parse("{{ " + text + " }}" if expression else text))
    except (TemplateSyntaxError, ValueError, RecursionError):
        return None


def told_names(names: Iterable[str], text: str, expression: bool) -> set[str]:
    """``names`` (what ``text`` reads, with ``expression`` a bare expression) with ``group_names`` and
    ``inventory_hostname`` told as the tests of membership the template makes of them, where that is
    all it reads of them (engine.templating.read_names.MEMBERSHIP): hosts in the same of those groups
    read it alike."""
    from engine.templating.read_names import TESTED_NAMES, membership_names

    found = set(names)
    if found & TESTED_NAMES and (tested := _tested_groups(text, expression)) is not None:
        found = (found - tested[0]) | membership_names(tested[1])
    return found


@lru_cache(maxsize=4096)
def _tested_groups(text: str, expression: bool) -> tuple[frozenset[str], frozenset[str]] | None:
    from jinja2 import TemplateSyntaxError

    from engine.templating.read_names import membership_tests
    from engine.templating.templar import parsing_environment

    try:
        return membership_tests(parsing_environment().parse("{{ " + text + " }}" if expression else text))
    except (TemplateSyntaxError, ValueError, RecursionError):
        return None


@lru_cache(maxsize=4096)
def interpolation_only(text: str) -> bool:
    """Whether a template only puts the values of the names it reads (and constants) into text, with
    ``~`` or side by side: no filter, test, call, attribute, subscript or operator that a value may
    fail. Rendering it fails only where a name it reads is undefined."""
    from jinja2 import TemplateSyntaxError, nodes

    from engine.templating.templar import parsing_environment

    if "{{" not in text and "{%" not in text:
        return True
    try:
        tree = parsing_environment().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return False
    plain = (nodes.Template, nodes.Output, nodes.TemplateData, nodes.Name, nodes.Const, nodes.Concat)
    return all(isinstance(node, plain) for node in tree.find_all(nodes.Node))


_LOOKUP_WORDS = re.compile(r"\b(?:lookup|query|q)\b")


@lru_cache(maxsize=4096)
def reads_unnamed(text: str, expression: bool) -> bool:
    """Whether a template (or, with ``expression``, a bare expression) reads variables it does not
    name: a ``lookup``/``query`` of a plugin that may read any variable (not one of
    engine.templating.read_names.TERMS_ONLY_LOOKUPS: a ``template`` file renders with all the host's
    variables, ``vars`` takes a computed name), or of one named by a computed value. What it reads
    is then the host's own, as ``vars`` is (engine.variables.host_answers.BY_COMPUTED_NAME). True
    when it does not parse."""
    from jinja2 import TemplateSyntaxError

    from engine.templating.read_names import terms_only_lookups
    from engine.templating.templar import parsing_environment

    if not _LOOKUP_WORDS.search(text):
        return False
    try:
        tree = parsing_environment().parse("{{ " + text + " }}" if expression else text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return True
    return not terms_only_lookups(tree)


def names_read(text: str, expression: bool) -> frozenset[str] | None:
    """The variables a template (or, with ``expression``, a bare expression) reads from outside;
    None when it does not parse."""
    if not expression and "{{" not in text and "{%" not in text:
        return frozenset()
    found = _names(text, expression)
    return None if found is None else found[0]


def _analysed(tree: Any) -> tuple[frozenset[str], frozenset[str]]:
    from jinja2 import meta, nodes

    from engine.templating.templar import parsing_environment

    read = set(meta.find_undeclared_variables(tree)) - set(parsing_environment().globals) - ANSIBLE_GLOBALS
    # a name the template sets in some branch only is "undeclared" for Jinja; it may be set on
    # every path (if / elif / else each setting it): only names it never sets are certain
    read -= {name.name for name in tree.find_all(nodes.Name) if name.ctx in ("store", "param")}
    read -= {macro.name for macro in tree.find_all(nodes.Macro)}
    guarded: set[str] = set()
    for test in tree.find_all(nodes.Test):
        if test.name in GUARD_TESTS:
            guarded |= {name.name for name in test.node.find_all(nodes.Name)} | _bare(test.node)
    for applied in tree.find_all(nodes.Filter):
        if applied.name in GUARD_FILTERS and applied.node is not None:
            guarded |= {name.name for name in applied.node.find_all(nodes.Name)} | _bare(applied.node)
    return frozenset(read), frozenset(guarded)


def _bare(node: Any) -> set[str]:
    from jinja2 import nodes

    return {node.name} if isinstance(node, nodes.Name) else set()


def _condition_text(value: str) -> str:
    """A condition as ansible evaluates it: a bare expression, or one wholly inside ``{{ }}``."""
    text = value.strip()
    if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1:
        return text[2:-2].strip()
    return text


def _strings(value: Any, span: Span | None) -> Iterator[tuple[str, Span | None]]:
    """Every string inside ``value`` with the span of the closest value that holds it."""
    if isinstance(value, str):
        yield value, span
    elif isinstance(value, Mapping):
        spans = getattr(value, "value_spans", {})
        for key, item in value.items():
            if isinstance(key, str):
                yield key, span
            yield from _strings(item, spans.get(key, span))
    elif isinstance(value, list):
        spans = getattr(value, "item_spans", [])
        for index, item in enumerate(value):
            yield from _strings(item, spans[index] if index < len(spans) else span)


def task_uses(task: Any, chain_conditions: Iterable[Any] = ()) -> TaskUses:
    """What ``task`` reads (module arguments, templated keywords, its own conditions), and what
    it or the conditions it inherits (``chain_conditions``: the ``when`` of its blocks, roles
    and includes) guard."""
    from engine.templating.load_time import is_template

    data = task.data if isinstance(task.data, Mapping) else {}
    spans = getattr(data, "value_spans", {})
    uses: list[Use] = []
    guarded: set[str] = set()
    unreadable = False

    def read(text: str, span: Span | None, expression: bool) -> None:
        nonlocal unreadable
        found = _names(text, expression)
        if found is None:
            unreadable = True
            return
        names, guards = found
        guarded.update(guards)
        uses.extend(Use(name, span) for name in sorted(names))

    for text, span in _strings(task.args, spans.get(task.action) or task.span):
        if is_template(text):
            read(text, span, expression=False)
    for keyword in (*TEMPLATED_KEYWORDS, *(k for k in data if isinstance(k, str) and k.startswith("with_"))):
        for text, span in _strings(data.get(keyword), spans.get(keyword)):
            if is_template(text):
                read(text, span, expression=False)
    for keyword in CONDITION_KEYWORDS:
        for text, span in _strings(data.get(keyword), spans.get(keyword)):
            read(_condition_text(text), span, expression=True)
    for condition in chain_conditions:
        for text, _span in _strings(condition, None):
            found = _names(_condition_text(text), expression=True)
            if found is not None:
                guarded.update(found[1])
    return TaskUses(uses, guarded, unreadable)

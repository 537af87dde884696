"""The run's Jinja2 environments, built once per process: the run-time one (sandboxed, native
types, ansible's undefined and filters), the same under static evaluation's limits
(:mod:`engine.templating.bounds`), and one that only parses. :class:`engine.templating.templar.Templar`
renders with them; what compiles a lookup's template-looking constant terms is here too, as the
run-time environment's parser applies it.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from itertools import chain, islice
from typing import Any

from engine.templating.backslashes import lexer_for
from engine.templating.bounds import MAX_SIZE, TooLarge, bounded_environment_class, spend, text_size
from engine.templating.bounds import bounded_range as _bounded_range
from engine.templating.errors import CallFailure, TemplateFailure, called_error
from engine.templating.filters import common as common_filters
from engine.templating.filters import core as builtin_filters
from engine.templating.filters import json_query, status_tests
from engine.templating.filters import paths_and_sets as path_and_set_filters
from engine.templating.filters.core import with_builtin_names
from engine.templating.finalize import INT_BITWISE, concat_text, native_concat
from engine.templating.jinja_globals import now, undef, unknown_now
from engine.templating.markers import (
    NOT_READING,
    call_failure_marker,
    first_undefined,
    handing_on,
    listing,
    markers_raised,
    reading_call,
    strict_item,
)
from engine.templating.run_order import checked_item, checked_text, order_aware
from engine.templating.tagged_retry import lazy_output
from engine.templating.type_names import missing_hint
from engine.values import UnsafeText


def environment() -> Any:
    """The run-time environment: sandboxed, native types, computing what ansible computes. Built
    once (once more for a run with collection filters: :func:`collection_filters`)."""
    return _environment(_COLLECTION_FILTERS.get())


@cache
def _environment(collection_filters: frozenset[str]) -> Any:
    return build_environment(bounded=False, collection_filters=collection_filters)


# the filters of collections the engine runs itself during a run whose collections ansible-playbook
# finds installed (engine.templating.filters.json_query.available): none outside such a run
_COLLECTION_FILTERS: ContextVar[frozenset[str]] = ContextVar("collection_filters", default=frozenset())


@contextmanager
def collection_filters(names: frozenset[str]) -> Iterator[None]:
    """The run-time environment has the collection filters ``names`` while this lasts."""
    token = _COLLECTION_FILTERS.set(names)
    try:
        yield
    finally:
        _COLLECTION_FILTERS.reset(token)


@cache
def bounded_environment() -> Any:
    """The run-time environment's filters, tests and types under static evaluation's limits
    (:mod:`engine.templating.bounds`): what shows a variable's value before the run. Built once."""
    return build_environment(bounded=True)


class _AnyName(dict):  # type: ignore[type-arg]
    """Every filter and test name exists: Jinja's analysis refuses unknown ones, and a
    collection's filters are only names to a reader (nothing is rendered)."""

    def __contains__(self, name: object) -> bool:
        return True

    def __missing__(self, name: str) -> Any:
        return _identity

    def get(self, name: str, default: Any = None) -> Any:
        return self[name]


def _identity(value: Any, *args: Any, **kwargs: Any) -> Any:
    return value


@cache
def parsing_environment() -> Any:
    """An environment that parses and never renders, for reading what a template uses (its
    names, filters and the structure of a condition): any filter or test name parses, and it
    has the run's globals (``range``...). No sandbox: nothing is ever evaluated with it."""
    from jinja2 import Environment

    env = Environment(autoescape=False)
    env.filters, env.tests = _AnyName(env.filters), _AnyName(env.tests)
    env.globals.update(environment().globals)
    return env


@cache
def _classes() -> tuple[type, type, type]:
    """(the run-time environment class, ansible's undefined, a captured failure)."""
    from jinja2 import StrictUndefined, Undefined
    from jinja2.nativetypes import NativeCodeGenerator
    from jinja2.runtime import LoopContext, Macro
    from jinja2.sandbox import SandboxedEnvironment
    from jinja2.utils import missing

    class RuntimeEnvironment(SandboxedEnvironment):  # AnsibleEnvironment's: lists change in place
        code_generator_class = NativeCodeGenerator
        concat = staticmethod(native_concat)  # type: ignore[assignment]

        @property
        def lexer(self) -> Any:
            return lexer_for(self)

        def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:  # ansible's exceptions: int's bit ops
            return attr in INT_BITWISE and isinstance(obj, int) or super().is_safe_attribute(obj, attr, value)

        def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
            return _mark_constant_lookup_terms(super()._parse(source, name, filename))

        # a run's str.format and format_map are Python's own, as AnsibleEnvironment.getattr gives
        # them ("Replacement index 1 out of range ..."); what shows a value before the run keeps
        # the sandbox's
        native_format = True

        def wrap_str_format(self, value: Any) -> Any:
            return None if self.native_format else super().wrap_str_format(value)

        def getattr(self, obj: Any, attribute: str) -> Any:
            return strict_item(obj, super().getattr(obj, attribute))

        def getitem(self, obj: Any, argument: Any) -> Any:
            return strict_item(obj, super().getitem(obj, argument))

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            if isinstance(__obj, Undefined):  # ``x.split(',')``: the Marker trips, AnsibleEnvironment.call
                return __obj  # gives it back, so ``x.split(',') | default([])`` is the default
            if not isinstance(__obj, Macro) and (undefined := first_undefined(args, kwargs)) is not None:
                return undefined  # as a plugin does, AnsibleEnvironment.call hands on the first Marker
            if (read := reading_call(__obj, args, kwargs)) is not NOT_READING:
                return read  # d.update(x) / l.extend(x) reading x's values up to a marker
            if isinstance(__obj, LoopContext):  # a recursive loop's body, run inside the call
                return markers_raised(lambda: super(RuntimeEnvironment, __self).call(__context, __obj, *args, **kwargs))
            # AnsibleEnvironment.call's _wrap_plugin_output: what a call gives as an iterator or a
            # dict view (d.items(), d.keys()) is a list, as a filter's is (range stays a range)
            try:
                result = super().call(__context, __obj, *args, **kwargs)
            except Exception as exc:
                if (marker := call_failure_marker(exc, (__self.undefined, __self.captured_failure))) is None:
                    if called_error(exc):  # a variable's template hands it on bare (errors.CallFailure)
                        exc.raised_by_call = True  # type: ignore[attr-defined]
                    raise
                return marker
            if isinstance(result, Iterator | ItemsView | KeysView | ValuesView) and \
                    not isinstance(result, str | bytes | Mapping):
                return list(result)
            return result if __obj is range else lazy_output(result)

    # AnsibleEnvironment turns trim_blocks on for every template, not only template files, and
    # leaves keep_trailing_newline off: trailing newlines are restored after rendering instead.
    class ChainedUndefined(StrictUndefined):
        """ansible's undefined: an attribute or item of it is itself (so ``x.a.b | default('d')``
        and ``x['a'] is defined`` work and ``x.a ~ 'z'`` fails with "'x' is undefined"), anything
        else fails as StrictUndefined does."""

        __slots__ = ("value_origin",)

        def __init__(self, hint: str | None = None, obj: Any = missing, name: str | None = None,
                     *args: Any, **kwargs: Any) -> None:
            # ansible's Marker words a missing attribute or key of a value by the value's type
            if not hint and name and obj is not missing:
                hint = missing_hint(obj, name)
            super().__init__(hint, obj, name, *args, **kwargs)
            self.value_origin: Any = None

        def _fail_with_undefined_error(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return Undefined._fail_with_undefined_error(self, *args, **kwargs)
            except Exception as exc:
                exc.value_origin = self.value_origin  # type: ignore[attr-defined]
                raise

        def __getattr__(self, name: str) -> Any:
            if name[:2] == "__":
                raise AttributeError(name)
            return self

        def __getitem__(self, name: Any) -> Any:
            return self

    # Jinja binds the failing operators (len, str, iteration, arithmetic...) to Undefined's own
    # method, not to an override: they fail through ours, which says where the value is written
    own = set(vars(ChainedUndefined))  # its item and attribute access give itself
    for owner in (Undefined, StrictUndefined):
        for attr, value in list(vars(owner).items()):
            if value is Undefined._fail_with_undefined_error and attr.startswith("__") and attr not in own:
                setattr(ChainedUndefined, attr, ChainedUndefined._fail_with_undefined_error)

    class CapturedFailure(ChainedUndefined):
        """A variable whose rendering failed for another reason than an undefined name (a filter
        the engine lacks, a type error): it fails with that error where a template uses it, and
        ``default`` does not replace it (ansible's CapturedExceptionMarker)."""

        __slots__ = ("raised",)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.raised: BaseException | None = None  # a call's error a variable handed on

        def _fail_with_undefined_error(self, *args: Any, **kwargs: Any) -> Any:
            if self.raised is not None:
                raise CallFailure(str(self._undefined_hint)) from self.raised
            failure = TemplateFailure(str(self._undefined_hint))
            failure.value_origin = self.value_origin  # type: ignore[attr-defined]
            failure.captured = True  # type: ignore[attr-defined] - a variable's failure, raised as it was
            raise failure

        def _operand_failure(self, *args: Any, **kwargs: Any) -> Any:
            """An operator on it (``x == 1``, ``x ~ 'a'``, ``{% if x %}``): its failure, raised as
            it was made, as ansible's marker trips."""
            return self._fail_with_undefined_error(*args, **kwargs)

    for attr, value in list(vars(ChainedUndefined).items()):
        if value is ChainedUndefined._fail_with_undefined_error and attr.startswith("__"):
            setattr(CapturedFailure, attr, CapturedFailure._operand_failure)

    return RuntimeEnvironment, ChainedUndefined, CapturedFailure


def is_captured_failure(value: Any) -> bool:
    """Whether ``value`` is a failure standing in as a value (not an undefined value)."""
    return isinstance(value, _classes()[2])


def _ansible_default(value: Any, default_value: Any = "", boolean: bool = False) -> Any:
    """ansible's ``default`` (``ansible_default``): only its own undefined value (UndefinedMarker)
    is replaced, not a failed one, nor Jinja's plain Undefined of an inline ``if`` without ``else``
    (``('a' if x) | default('b')`` stays that Undefined, which text shows as nothing)."""
    _environment, undefined, captured_failure = _classes()
    if isinstance(value, undefined) and not isinstance(value, captured_failure):
        return default_value
    if boolean and not value:
        return default_value
    return value


def build_environment(bounded: bool, collection_filters: frozenset[str] = frozenset()) -> Any:
    from jinja2 import pass_context

    environment_class, undefined, captured_failure = _classes()
    if bounded:
        class BoundedRuntimeEnvironment(bounded_environment_class(environment_class)):  # type: ignore[misc]
            concat = staticmethod(_bounded_native_concat)  # type: ignore[assignment]
            native_format = False

            def getitem(self, obj: Any, argument: Any) -> Any:
                checked_item(obj, argument)  # an index into a list whose order only the run knows
                return super().getitem(obj, argument)

        environment_class = BoundedRuntimeEnvironment
    # optimized=False: as AnsibleEnvironment, no constant folding at compile time (a filter on constants,
    # "{{ 'x' | bool }}", runs when the template renders, its warnings in their place)
    env = environment_class(undefined=undefined, autoescape=False, trim_blocks=True, keep_trailing_newline=False,
                            optimized=False)
    env.captured_failure = captured_failure
    # as ansible's _ansible_finalize: a context-taking finalize stops Jinja folding constant
    # output at compile time into its text repr, so "{{ 1 < 2 }}" is True and "{{ 3 }}" is 3
    env.finalize = pass_context(lambda _context, value: value)
    # a run's range() is Python's, as ansible's environment keeps it (any length); one before the run is bounded
    env.globals.update(range=_bounded_range if bounded else range, now=unknown_now if bounded else now,
                       undef=undef(env.undefined))
    env.globals[CONSTANT_TEMPLATE] = lambda text: text
    env.filters.update({**common_filters.FILTERS, **path_and_set_filters.FILTERS, **builtin_filters.FILTERS})
    env.filters["default"] = env.filters["d"] = _ansible_default
    env.filters.update({name: json_query.FILTERS[name] for name in collection_filters})
    env.filters.update(with_builtin_names(env.filters))
    env.filters.update({name: handing_on(listing(f), name, "filter", (undefined, captured_failure))
                        for name, f in env.filters.items()})
    if bounded:  # before the run: what reads the order of a list only the run orders is unknown
        env.filters.update({name: order_aware(name, f) for name, f in env.filters.items()})
    env.tests.update({**common_filters.TESTS, **path_and_set_filters.TESTS, **status_tests.TESTS})
    for name in ("defined", "undefined"):  # a failed value is no undefined one: it is given back
        env.tests[name] = _giving_back(env.tests[name], captured_failure)
    # ansible answers every test of Jinja's and its own under ansible.builtin. and ansible.legacy. too
    env.tests.update({f"{prefix}{name}": t for name, t in env.tests.items() for prefix in TEST_PREFIXES})
    env.tests.update({name: handing_on(t, name, "test", (undefined, captured_failure))
                      for name, t in env.tests.items()})
    if bounded:
        env.bound_filters()
    return env


def _giving_back(test: Any, captured_failure: type) -> Any:
    """ansible's ``defined`` / ``undefined`` test: a value whose template failed (a
    ``CapturedExceptionMarker``, not an undefined one) is its result, which fails where the
    result is used (``{% if x is defined %}``), instead of an answer."""
    def call(value: Any) -> Any:
        return value if isinstance(value, captured_failure) else test(value)

    return call


def _bounded_native_concat(values: Iterator[Any]) -> Any:
    """:func:`native_concat` that spends the budget on every piece and refuses to join text
    longer than the size limit (a value's text is measured before it is made)."""
    present = (value for value in values if value is not None)
    head = list(islice(present, 2))
    spend(len(head))
    if not head:
        return None
    if len(head) == 1:
        return head[0]
    parts: list[str] = []
    size = 0
    for value in chain(head, present):
        spend()
        size += text_size(checked_text(value), MAX_SIZE - size)
        if size > MAX_SIZE:
            raise TooLarge(f"an output of more than {MAX_SIZE:,} characters")
        parts.append(concat_text(value))
    return "".join(parts)


# ansible 2.19 still templates the constant strings of a lookup's terms (``lookup('file',
# '{{ role_path }}/x')``), with a deprecation warning: such constants are wrapped at compile time in
# a call to this global, which the run's lookup globals define (elsewhere it gives the text back).
CONSTANT_TEMPLATE = "__pls_lookup_constant_template"
LOOKUP_NAMES = frozenset({"lookup", "query", "q"})


def template_constant(node: Any, renderer: str) -> Any:
    """A template-looking string constant handed to the global ``renderer`` (which templates it
    when the template runs); any other node as it is."""
    from jinja2 import nodes

    if isinstance(node, nodes.Const) and isinstance(node.value, str) and is_template(node.value):
        return nodes.Call(nodes.Name(renderer, "load"), [node], [], None, None, lineno=node.lineno)
    return node


def _mark_constant_lookup_terms(tree: Any) -> Any:
    from jinja2 import nodes

    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name in LOOKUP_NAMES and call.args:
            call.args = [call.args[0], *(_constant_term(arg) for arg in call.args[1:])]
    return tree


def _constant_term(node: Any) -> Any:
    """A lookup's term with each constant string in it (in lists, tuples and dict values) marked as one."""
    from jinja2 import nodes

    node = template_constant(node, CONSTANT_TEMPLATE)
    if isinstance(node, (nodes.List, nodes.Tuple)):
        node.items = [_constant_term(item) for item in node.items]
    elif isinstance(node, nodes.Dict):
        for pair in node.items:
            pair.value = _constant_term(pair.value)
    return node


def options_environment(overrides: tuple[tuple[str, Any], ...], bounded: bool = False) -> Any:
    """The run-time environment with the template action's block options; one per combination."""
    return _options_environment(overrides, bounded, frozenset() if bounded else _COLLECTION_FILTERS.get())


@cache
def _options_environment(overrides: tuple[tuple[str, Any], ...], bounded: bool, _filters: frozenset[str]) -> Any:
    from jinja2 import FileSystemLoader

    options = dict(overrides)
    if "searchpath" in options:
        options["loader"] = FileSystemLoader(list(options.pop("searchpath")))
    return (bounded_environment() if bounded else environment()).overlay(**options)



def is_template(value: Any) -> bool:
    """A string to render (``is_possibly_template``): it holds a Jinja2 start string, "{#" too
    (ansible renders "a {# b #}" to "a ", fails on a lone "{#"), and is not marked ``!unsafe``."""
    return isinstance(value, str) and ("{{" in value or "{%" in value or "{#" in value) \
        and not isinstance(value, UnsafeText)


TEST_PREFIXES = ("ansible.builtin.", "ansible.legacy.")

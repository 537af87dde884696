"""Static Jinja2 evaluation, for values ansible templates at load time.

Import paths, role names, play names and hosts, and tags may contain ``{{ var }}``.
ansible templates them with the variables known before any host is contacted (play vars,
vars_files, role vars, extra vars). We do the same in the one bounded environment of
:mod:`engine.templating.templar`, given less: no lookups, and an undefined name means "cannot be resolved
statically" rather than an error.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from functools import partial

from engine.templating.backslashes import escaping_backslashes
from engine.templating.bounds import StaticRefusal, TooLarge, evaluation
from engine.templating.errors import TemplateFailure
from engine.templating.lazy_variables import Layered, LazyVariables
from engine.templating.read_names import READS_ALL, names_recorded, note_loaded, note_names, recording
from engine.values import OMIT, UnsafeText

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_UNRESOLVED = object()

class Unresolved(Exception):
    """The value depends on something only known at run time, or is too large to evaluate statically."""

    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _environment() -> Any:
    """The one bounded environment of :mod:`engine.templating.templar`: load time templates see ansible's
    filters, tests and native types as a run's do, and only the variables known then."""
    from engine.templating.templar import bounded_environment

    return bounded_environment()


MAX_RENDER_DEPTH = 20  # variables whose values are templates referring to further templated variables
_TOO_LARGE_MEMORY = 1024
_too_large: dict[str, str] = {}  # template text -> why it was too large, so it is not retried at every use


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    """Template ``value`` like ansible does; raise :class:`Unresolved` when it cannot be known.

    A string that is exactly one ``{{ expression }}`` keeps the expression's native type, so
    ``tags: "{{ my_tags }}"`` may become a list (or ``None``), as in ansible. Text that is not a
    valid template is returned unchanged, as ansible does. An evaluation that would build too
    large a value, take too long or nest too deep is refused (``Unresolved.too_large``).
    """
    with evaluation():
        return _render(value, variables, 0)


MAX_LIST_NESTING = 100  # lists in lists: a recursive YAML alias (&a [*a]) is endless


def _render(value: Any, variables: Mapping[str, Any], depth: int, nesting: int = 0) -> Any:
    if isinstance(value, list):
        if nesting > MAX_LIST_NESTING:
            raise Unresolved("Recursive loop detected in template: lists nested more than "
                             f"{MAX_LIST_NESTING} levels deep (a YAML alias inside itself?)")
        rendered = (_render(item, variables, depth, nesting + 1) for item in value)
        return [item for item in rendered if item is not OMIT]
    if not is_template(value) or isinstance(value, UnsafeText):  # !unsafe is never templated
        return value
    from jinja2 import TemplateError, TemplateSyntaxError, Undefined
    from jinja2.exceptions import SecurityError

    if value in _too_large:
        note_names((READS_ALL,))
        raise Unresolved(_too_large[value], too_large=True)
    if depth > MAX_RENDER_DEPTH:
        raise Unresolved(f"variables refer to templated variables more than {MAX_RENDER_DEPTH} levels deep")
    try:
        compiled = _compiled(value)
        if recording():
            note_loaded(compiled.names)
        key, held = compiled.key(value, variables)
        known = _recalled(key)
        if known is not None:
            result = known[0]
            if isinstance(result, Unresolved):
                raise Unresolved(str(result))
            result = _copied(result)
        else:
            try:
                result = compiled.evaluate(variables)
                if isinstance(result, Undefined):
                    result._fail_with_undefined_error()
            except (TemplateError, SecurityError, StaticRefusal, TemplateFailure, TypeError, ValueError,
                    ArithmeticError, AttributeError) as exc:
                _remember(key, Unresolved(str(exc)), held)
                raise
            _remember(key, _copied(result), held)
    except TemplateSyntaxError:
        return value
    except (TooLarge, RecursionError, MemoryError) as exc:
        raise _remember_too_large(value, exc) from exc
    except (TemplateError, SecurityError, StaticRefusal, TemplateFailure, TypeError, ValueError, ArithmeticError,
            AttributeError) as exc:
        raise Unresolved(str(exc)) from exc
    if is_template(result) and result != value:  # ansible templates variable values recursively
        return _render(result, variables, depth + 1)
    if isinstance(result, list):
        return [item for item in result if item is not OMIT]
    return result


def _remember_too_large(value: str, exc: BaseException) -> Unresolved:
    why = str(exc) if isinstance(exc, TooLarge) else str(TooLarge("nested too deeply"))
    if len(_too_large) >= _TOO_LARGE_MEMORY:
        _too_large.clear()
    _too_large[value] = why
    return Unresolved(why, too_large=True)


class _Compiled:
    """A template compiled once, with the names it reads: its result depends only on their values.

    The same role defaults and tags are templated in every play that reaches them, with mostly
    the same values; compiling, and evaluating again, cost far more than looking the result up."""

    def __init__(self, template: Any, names: frozenset[str], expression: bool) -> None:
        self._template = template
        self.names = tuple(sorted(names))
        self.expression = expression  # exactly one ``{{ expression }}``: keeps its native type

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        """``Template.render`` / ``TemplateExpression.__call__``, reading names from
        ``variables`` as the template asks for them rather than copying them all first: a
        :class:`LazyVars` then templates only the values this template reads."""
        from jinja2.utils import consume

        template = self._template
        context = template.new_context(Layered(variables, template.globals), shared=True)
        if self.expression:
            consume(template.root_render_func(context))
            return context.vars["result"]
        return template.environment.concat(template.root_render_func(context))

    def key(self, text: str, variables: Mapping[str, Any]) -> tuple[tuple[Any, ...], list[Any]]:
        """What the result of ``text`` (this template's source) depends on: the values of the names
        it reads, scalars by value and anything else by identity (so a role's defaults are the same
        input in every play that reaches them, without comparing them), and those objects, which
        the remembered result keeps alive so that their identities are not reused."""
        held: list[Any] = []
        frozen = []
        for name in self.names:
            value = variables.get(name, _MISSING)
            if value is None or value is _MISSING or type(value) in _SCALARS:
                frozen.append((type(value), value))  # bool vs int, UnsafeText and omit vs str
            else:
                frozen.append(id(value))
                held.append(value)
        return (text, tuple(frozen)), held


_MISSING = object()
_SCALARS = frozenset({str, int, float, bool, UnsafeText})


_COMPILED_MEMORY = 8192
_compiled_templates: dict[str, Any] = {}
_RESULTS_MEMORY = 65536
# Results are keyed by the identity of the values they read and keep those alive: a re-resolved
# play's values are new objects, so a server's results of earlier resolutions were never met again
# and kept every replaced value, up to the bound. Two generations: what was not used since the last
# new_generation() goes at the next one.
_results: dict[tuple[Any, ...], tuple[Any, list[Any]]] = {}
_older: dict[tuple[Any, ...], tuple[Any, list[Any]]] = {}


def new_generation() -> None:
    """Start a new generation of remembered results (at each refresh of a workspace): the results
    not used since the previous call are forgotten, with the values they keep alive."""
    global _results, _older
    _older, _results = _results, {}


def _recalled(key: tuple[Any, ...]) -> tuple[Any, list[Any]] | None:
    found = _results.get(key)
    if found is None and _older:
        found = _older.pop(key, None)
        if found is not None:
            _remember(key, *found)
    return found


def _copied(value: Any) -> Any:
    """A remembered result's new lists and dicts, new again, so that no caller changes what is
    remembered (the file's own lists and mappings, with their positions, are passed as they are)."""
    if type(value) is list:
        return [_copied(item) for item in value]
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}
    return value


def _remember(key: tuple[Any, ...], result: Any, held: list[Any]) -> None:
    if len(_results) >= _RESULTS_MEMORY:
        _results.clear()
    _results[key] = (result, held)


def _compiled(value: str) -> Any:
    """``value`` compiled once: the same role defaults and tags are templated in every play that
    reaches them, and compiling costs far more than rendering. Syntax errors are remembered too."""
    from jinja2 import TemplateSyntaxError

    compiled = _compiled_templates.get(value)
    if compiled is None:
        from jinja2 import nodes

        env = _environment()
        text = value.strip()
        try:
            with escaping_backslashes():  # as ansible 2.19's lexer reads a value's template
                tree = env.parse(value)
                # every name read, a loop's or a {% set %}'s included: more than it depends on is safe
                names = frozenset(node.name for node in tree.find_all(nodes.Name) if node.ctx == "load")
                if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1 and "{%" not in text:
                    expression = env.compile_expression(text[2:-2], undefined_to_none=False)
                    compiled = _Compiled(expression._template, names, True)
                else:
                    compiled = _Compiled(env.from_string(tree), names, False)
        except TemplateSyntaxError as exc:
            compiled = exc
        if len(_compiled_templates) >= _COMPILED_MEMORY:
            _compiled_templates.clear()
        _compiled_templates[value] = compiled
    if isinstance(compiled, TemplateSyntaxError):
        raise compiled
    return compiled


class _Stored(Mapping[str, "Any"]):
    """A :class:`LazyVars`' values as written."""

    def __init__(self, variables: LazyVars) -> None:
        self._variables = weakref.ref(variables)  # (held by their LazyVars alone: no cycle with it)

    def __getitem__(self, name: str) -> Any:
        return dict.__getitem__(self._variables(), name)  # type: ignore[arg-type]

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self._variables(), name)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._variables())  # type: ignore[arg-type]

    def __len__(self) -> int:
        return dict.__len__(self._variables())  # type: ignore[arg-type]


class LazyVars(dict):  # type: ignore[type-arg]
    """Variables whose templated values are templated when read, once, against the others, as
    ansible's lazy templating does (:mod:`engine.templating.lazy_variables`): a role's hundreds of defaults cost nothing
    until a role name, an import path, a tag or a condition reads one.

    The dict holds the values as written: copying it (``{**v}``, ``dict(v)``, ``update``) copies
    those, and whoever resolves the copy templates them in its own scope. Reading (``v[name]``,
    ``get``, ``items``, ``values``) gives the templated value, or the value as written when it
    cannot be known statically (a name only known at run time, or a value that needs itself).
    """

    def __init__(self, variables: Mapping[str, Any]) -> None:
        super().__init__(variables)
        self._lazy = LazyVariables(_Stored(self), partial(_templated, weakref.ref(self)), Unresolved)
        self._reads: dict[str, frozenset[str]] = {}
        """The names templating each value read: read again from what was templated before, they
        are recorded again (:class:`names_recorded`)."""

    def __getitem__(self, name: str) -> Any:
        reads = self._reads.get(name)
        if reads is not None:
            if recording():
                note_names(reads)
            return self._lazy[name]
        with names_recorded() as found:  # what an enclosing recorder opened sees them all as they come
            note_names((name,))
            value = self._lazy[name]
        self._reads[name] = frozenset(found)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if dict.__contains__(self, name) else default

    def __copy__(self) -> LazyVars:
        return LazyVars(self)  # (dict's copy would share this one's reading of the values as written)

    def __deepcopy__(self, memo: dict[int, Any]) -> LazyVars:
        import copy

        return LazyVars(copy.deepcopy(dict(self), memo))

    def values(self) -> Any:
        return [self[name] for name in self]

    def items(self) -> Any:
        return [(name, self[name]) for name in self]


def _templated(variables: weakref.ref[LazyVars], value: Any) -> Any:
    """``value`` of a :class:`LazyVars` templated against it (held weakly by its values as written,
    which it holds)."""
    return render_or(value, variables()) if is_template(value) else value  # type: ignore[arg-type]


def resolve_variables(variables: Mapping[str, Any]) -> LazyVars:
    """Variables whose values that refer to other variables are templated when read."""
    return LazyVars(variables)


def render_or(value: Any, variables: Mapping[str, Any], default: Any = _UNRESOLVED) -> Any:
    """Like :func:`render`, but returns ``default`` (the raw value if not given) when unresolved."""
    try:
        return render(value, variables)
    except Unresolved:
        return value if default is _UNRESOLVED else default


def as_dict(value: Any) -> dict[str, Any]:
    """A ``vars`` value as a dict; ansible also accepts a list of mappings."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        merged: dict[str, Any] = {}
        for item in value:
            if isinstance(item, dict):
                merged.update(item)
        return merged
    return {}


def with_vars(variables: Mapping[str, Any], more: Any) -> dict[str, Any]:
    """``variables`` plus a level's own ``vars``, resolved against each other."""
    return resolve_variables({**variables, **as_dict(more)}) if more else dict(variables)

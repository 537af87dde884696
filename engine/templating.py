"""Static Jinja2 evaluation in a sandbox, for values ansible templates at load time.

Import paths, role names, play names and hosts, and tags may contain ``{{ var }}``.
ansible templates them with the variables known before any host is contacted (play vars,
vars_files, role vars, extra vars). We do the same in a ``SandboxedEnvironment``: nothing
from the repository is executed, no lookups run, and an undefined name means "cannot be
resolved statically" rather than an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from engine.booleans import bool_filter
from engine.jinja_filters import regex_replace, regex_search, ternary
from engine.template_bounds import TooLarge, bounded_environment_class, evaluation
from engine.values import OMIT, UnsafeText

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


def _to_json(value: Any) -> str:
    import json

    return json.dumps(value)


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = bounded_environment_class(ImmutableSandboxedEnvironment)(undefined=StrictUndefined, autoescape=False)
    env.filters.update(
        bool=bool_filter,
        to_json=_to_json,
        string=str,
        basename=lambda p: str(p).rsplit("/", 1)[-1],
        mandatory=lambda v: v,
        # ansible's pure filters, which play hosts and names use (``| ternary('a', 'b')``)
        ternary=ternary,
        regex_replace=regex_replace,
        regex_search=regex_search,
    )
    env.bound_filters()
    return env


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
        raise Unresolved(_too_large[value], too_large=True)
    if depth > MAX_RENDER_DEPTH:
        raise Unresolved(f"variables refer to templated variables more than {MAX_RENDER_DEPTH} levels deep")
    env = _environment()
    text = value.strip()
    try:
        if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1 and "{%" not in text:
            result = env.compile_expression(text[2:-2], undefined_to_none=False)(**variables)
            if isinstance(result, Undefined):
                result._fail_with_undefined_error()
        else:
            result = env.from_string(value).render(**variables)
    except TemplateSyntaxError:
        return value
    except (TooLarge, RecursionError, MemoryError) as exc:
        why = str(exc) if isinstance(exc, TooLarge) else str(TooLarge("nested too deeply"))
        if len(_too_large) >= _TOO_LARGE_MEMORY:
            _too_large.clear()
        _too_large[value] = why
        raise Unresolved(why, too_large=True) from exc
    except (TemplateError, SecurityError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        raise Unresolved(str(exc)) from exc
    if is_template(result) and result != value:  # ansible templates variable values recursively
        return _render(result, variables, depth + 1)
    if isinstance(result, list):
        return [item for item in result if item is not OMIT]
    return result


def resolve_variables(variables: Mapping[str, Any], rounds: int = 3) -> dict[str, Any]:
    """Template variable values that refer to other variables, the way lazy templating sees them."""
    resolved = dict(variables)
    for _ in range(rounds):
        changed = False
        for key, value in resolved.items():
            if is_template(value):
                rendered = render_or(value, resolved)
                if rendered != value:
                    resolved[key], changed = rendered, True
        if not changed:
            break
    return resolved


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

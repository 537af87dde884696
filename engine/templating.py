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
from engine.values import UnsafeText

if TYPE_CHECKING:
    from typing import Any

_UNRESOLVED = object()


class Unresolved(Exception):
    """The value depends on something only known at run time."""


def is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _to_json(value: Any) -> str:
    import json

    return json.dumps(value)


MAX_RANGE = 1000  # items a range() may produce while rendering statically
MAX_SIZE = 100_000  # length of a string or list built by `*`
MAX_EXPONENT = 64


def _bounded_range(*args: int) -> range:
    from jinja2.exceptions import SecurityError

    result = range(*args)
    if len(result) > MAX_RANGE:
        raise SecurityError(f"range() of more than {MAX_RANGE} items is not evaluated statically")
    return result


def binop_over_limit(operator: str, left: Any, right: Any) -> str | None:
    """Why ``left operator right`` is refused (an exponent or a repeated sequence too large to
    compute safely), or None. Every sandbox that evaluates repository templates applies it."""
    if operator == "**" and isinstance(right, int | float) and abs(right) > MAX_EXPONENT:
        return "exponent too large"
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and isinstance(times, int) and len(seq) * times > MAX_SIZE:
                return "result too large"
    return None


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class BoundedEnvironment(ImmutableSandboxedEnvironment):
        """The sandbox, plus limits on what a hostile template can make it compute: templates
        are rendered while a repository is opened, so they must not hang or exhaust memory."""

        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            refused = binop_over_limit(operator, left, right)
            if refused:
                raise SecurityError(f"{refused} to evaluate statically")
            return super().call_binop(context, operator, left, right)

    env = BoundedEnvironment(undefined=StrictUndefined, autoescape=False)
    env.globals["range"] = _bounded_range
    env.filters.update(
        bool=bool_filter,
        to_json=_to_json,
        string=str,
        basename=lambda p: str(p).rsplit("/", 1)[-1],
        mandatory=lambda v: v,
    )
    return env


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    """Template ``value`` like ansible does; raise :class:`Unresolved` when it cannot be known.

    A string that is exactly one ``{{ expression }}`` keeps the expression's native type, so
    ``tags: "{{ my_tags }}"`` may become a list (or ``None``), as in ansible. Text that is not a
    valid template is returned unchanged, as ansible does.
    """
    if isinstance(value, list):
        return [render(item, variables) for item in value]
    if not is_template(value) or isinstance(value, UnsafeText):  # !unsafe is never templated
        return value
    from jinja2 import TemplateError, TemplateSyntaxError, Undefined
    from jinja2.exceptions import SecurityError

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
    except (TemplateError, SecurityError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        raise Unresolved(str(exc)) from exc
    if is_template(result) and result != value:  # ansible templates variable values recursively
        return render(result, variables)
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

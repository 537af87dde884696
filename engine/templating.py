"""Static Jinja2 evaluation in a sandbox, for values ansible templates at load time.

Import paths, role names, play names and hosts, and tags may contain ``{{ var }}``.
ansible templates them with the variables known before any host is contacted (play vars,
vars_files, role vars, extra vars). We do the same in a ``SandboxedEnvironment``: nothing
from the repository is executed, no lookups run, and an undefined name means "cannot be
resolved statically" rather than an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

_UNRESOLVED = object()


class Unresolved(Exception):
    """The value depends on something only known at run time."""


def is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _to_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("yes", "on", "1", "true", "y", "t")
    return bool(value)


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
    env.filters.update(
        bool=_to_bool,
        to_json=json.dumps,
        string=str,
        basename=lambda p: str(p).rsplit("/", 1)[-1],
        mandatory=lambda v: v,
    )
    return env


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    """Template ``value`` like ansible does; raise :class:`Unresolved` when it cannot be known.

    A string that is exactly one ``{{ expression }}`` keeps the expression's native type, so
    ``tags: "{{ my_tags }}"`` may become a list, as in ansible.
    """
    if isinstance(value, list):
        return [render(item, variables) for item in value]
    if not is_template(value):
        return value
    from jinja2 import TemplateError
    from jinja2.exceptions import SecurityError

    env = _environment()
    text = value.strip()
    try:
        if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1 and "{%" not in text:
            result = env.compile_expression(text[2:-2])(**variables)
            if result is None:
                raise Unresolved(value)
            return result
        return env.from_string(value).render(**variables)
    except (TemplateError, SecurityError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        raise Unresolved(str(exc)) from exc


def render_or(value: Any, variables: Mapping[str, Any], default: Any = _UNRESOLVED) -> Any:
    """Like :func:`render`, but returns ``default`` (the raw value if not given) when unresolved."""
    try:
        return render(value, variables)
    except Unresolved:
        return value if default is _UNRESOLVED else default

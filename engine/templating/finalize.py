"""What the templar checks of a result or a failure the way ansible's template engine does, apart
from the templar (which alone makes environments: the parser it needs is handed in)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def fail_on_undefined_inside(value: list[Any] | dict[Any, Any]) -> None:
    """ansible's finalization of a template's result: an undefined value inside a list or dict
    (``map('extract', hostvars, key)`` over a host without the key) fails with its own message,
    as the whole would, rather than being kept."""
    from jinja2 import Undefined

    stack: list[Any] = [value]
    while stack:
        current = stack.pop()
        for item in current.values() if isinstance(current, dict) else current:
            if isinstance(item, Undefined):
                item._fail_with_undefined_error()
            if isinstance(item, list | dict) and item:
                stack.append(item)


@lru_cache(maxsize=256)
def syntax_error(parser: Any, expression: str) -> str | None:
    """What Jinja's expression parser (``parser``, an environment) says of ``expression``, as
    ansible compiles a conditional (``compile_expression``), or None when it parses."""
    from jinja2 import TemplateSyntaxError

    try:
        parser.compile_expression(expression)
    except TemplateSyntaxError as exc:
        return str(exc.message)
    except (ValueError, RecursionError):
        return None
    return None

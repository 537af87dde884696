"""ansible's two ways of reading a value as a boolean, in one place.

ansible-core 2.19 has two and they disagree, so both are needed:

- :func:`boolean` is ``module_utils.parsing.convert_bool.boolean``: keywords (``ignore_errors``,
  ``check_mode``, ``gather_facts``...) and configuration settings. Strings are stripped and
  lower-cased and ``y``/``t``/``n``/``f`` count; ``1``/``1.0`` are true, ``0``/``0.0`` false.
- :func:`bool_filter` is the ``bool`` Jinja filter (``plugins/filter/core.py: to_bool``): strings
  are lower-cased but not stripped and only yes/on/true/1 and no/off/false/0 count; an int
  counts as its text, so ``2 | bool`` is false; anything else is compared to ``1``.
"""

from __future__ import annotations

from collections.abc import Hashable
from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BOOLEANS_TRUE = frozenset(("y", "yes", "on", "1", "true", "t", 1, 1.0, True))
BOOLEANS_FALSE = frozenset(("n", "no", "off", "0", "false", "f", 0, 0.0, False))

_FILTER_TRUE = frozenset(("yes", "on", "true", "1"))
_FILTER_FALSE = frozenset(("no", "off", "false", "0"))


class NotABoolean(TypeError):
    """A strict :func:`boolean` was given a value that is none of ansible's booleans."""


def boolean(value: Any, strict: bool = False) -> bool:
    """``convert_bool.boolean``: true for the true spellings; with ``strict``, anything that is
    neither true nor false is refused the way ansible words it."""
    if isinstance(value, bool):
        return value
    normalized: Any = value
    if isinstance(value, bytes):
        normalized = value.decode("utf-8", errors="surrogateescape").lower().strip()
    elif isinstance(value, str):
        normalized = value.lower().strip()
    if not isinstance(value, Hashable):
        normalized = None  # a list or dict is never a boolean; do not let the set lookup fail
    if normalized in BOOLEANS_TRUE:
        return True
    if normalized in BOOLEANS_FALSE or not strict:
        return False
    valid = ", ".join(repr(item) for item in BOOLEANS_TRUE | BOOLEANS_FALSE)
    raise NotABoolean(f"The value '{value}' is not a valid boolean. Valid booleans include: {valid}")


# Where the ``bool`` filter reports its deprecation: the running templar sets it (a run shows the
# warning as ansible does), static evaluation leaves it unset.
FILTER_DEPRECATIONS: ContextVar[Callable[[str], None] | None] = ContextVar("bool_filter_deprecations", default=None)


def bool_filter(value: Any) -> bool:
    """The ``bool`` filter. ansible 2.19 deprecates (but still applies) the last-resort ``== 1``
    comparison for values outside its spellings, with a warning (see :data:`FILTER_DEPRECATIONS`)."""
    result = _filter_value(value)
    if result is None:
        result = _coerced(value)
        report = FILTER_DEPRECATIONS.get()
        if report is not None:
            report(f"The `bool` filter coerced invalid value {value!r} ({_type_name(value)}) to {result!r}. "
                   "This feature will be removed from ansible-core version 2.23.")
    return result


def _type_name(value: Any) -> str:
    return type(value).__name__


def _coerced(value: Any) -> bool:
    checked: Any = value.lower() if isinstance(value, str) else str(value).lower() if isinstance(value, int) else value
    try:
        return bool(checked == 1)
    except TypeError:
        return False


def _filter_value(value: Any) -> bool | None:
    """True or False for the filter's own spellings, else None."""
    checked: Any = value
    if isinstance(value, str):
        checked = value.lower()
    elif isinstance(value, int):  # bool too: True is "true"
        checked = str(value).lower()
    try:
        if checked in _FILTER_TRUE:
            return True
        if checked in _FILTER_FALSE:
            return False
    except TypeError:  # an unhashable value (a list, a dict) is no spelling
        pass
    return None


__all__ = ["BOOLEANS_FALSE", "BOOLEANS_TRUE", "NotABoolean", "bool_filter", "boolean"]

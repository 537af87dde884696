"""The Jinja globals ansible-core 2.19 adds besides ``range`` and the lookups
(``AnsibleEnvironment``): ``now`` and ``undef``."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

DEFAULT_UNDEF = "Mandatory variable has not been overridden"
"""The hint of ``undef()`` without one: ansible's one shared marker, which no origin is tagged on."""


def now(utc: bool = False, fmt: str | None = None) -> Any:
    """The current datetime (naive; in UTC with ``utc``), formatted by ``strftime(fmt)`` if given."""
    if utc:
        moment = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    else:
        moment = datetime.datetime.now()
    return moment.strftime(fmt) if fmt else moment


def unknown_now(utc: bool = False, fmt: str | None = None) -> Any:
    """``now`` before the run: only the run knows the time."""
    from engine.templating.errors import RunTimeOnly

    raise RunTimeOnly("now() is known only at run time")


def undef(undefined: Callable[..., Any]) -> Callable[..., Any]:
    """``undef(hint=None)``: an undefined value (``undefined`` makes it) that fails with ``hint``
    where it is used, "Mandatory variable has not been overridden" without one."""
    def make(hint: str | None = None) -> Any:
        if hint is not None and not isinstance(hint, str):
            raise TypeError(f"'hint' is of type {type(hint).__name__} and we were unable to convert to str")
        return undefined(hint=hint or DEFAULT_UNDEF)

    return make

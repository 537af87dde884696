"""Where a filter or test running inside a run's template reports: ansible's plugins call
``display.warning`` and ``display.deprecated`` as they run, and the warning shows among the task's
output, once per run. The running templar sets both reporters around a render; static evaluation
(the plan) sets neither, so a plugin's message is only shown by the run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from engine.booleans import FILTER_DEPRECATIONS

PLUGIN_WARNINGS: ContextVar[Callable[[str], None] | None] = ContextVar("plugin_warnings", default=None)


def warn(message: str) -> None:
    """``display.warning`` from a plugin: to the run's warnings, nowhere outside a run."""
    report = PLUGIN_WARNINGS.get()
    if report is not None:
        report(message)


@contextmanager
def reporting(deprecate: Callable[[str, object], None], warning: Callable[[str], None] | None) -> Iterator[None]:
    """Plugins' deprecations (without an origin) and warnings go to the run while rendering."""
    deprecations = FILTER_DEPRECATIONS.set(lambda message: deprecate(message, None))
    warnings = PLUGIN_WARNINGS.set(warning)
    try:
        yield
    finally:
        PLUGIN_WARNINGS.reset(warnings)
        FILTER_DEPRECATIONS.reset(deprecations)

"""ansible's warning for a template's result that holds a value of a type variable storage does
not keep (``_finalize_template_result``): "Type 'GroupTuple' is unsupported in variable storage,
converting to 'list'." at the value that was templated (a loop's, an argument's), once per run
for each type and place, as Display shows a warning once."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from engine.templating.finalize import converted_types

Warn = Callable[[str], None]


def conversion_warning(type_name: str, origin: Any) -> str:
    """The warning's text, with the source context of ``origin`` (a span, or None)."""
    from engine.run.error_block import Event, format_events

    target = "str" if type_name == "Markup" else "list"
    return format_events([Event(f"Type {type_name!r} is unsupported in variable storage, converting to {target!r}.",
                                origin)])


@contextmanager
def warning_at(origin: Any, warn: Warn) -> Iterator[None]:
    """Warn (at ``origin``) of the types the templating inside converts."""
    with converted_types() as found:
        yield
    for name in found:
        warn(conversion_warning(name, origin))


def warn_for_arguments(task: Any, template: Callable[[Any], Any], warn: Warn) -> None:
    """After the task's arguments converted a type as they were templated: the warning at each
    argument's value that converts it (``template`` templates one value)."""
    written = task.data.get(task.action) if isinstance(task.data, Mapping) else None
    spans = getattr(written, "value_spans", None) or {}
    for key, value in task.args.items():
        with converted_types() as found:
            try:
                template(value)
            except Exception:  # noqa: BLE001 - the task's own templating reported its failure
                continue
        for name in found:
            warn(conversion_warning(name, spans.get(key)))

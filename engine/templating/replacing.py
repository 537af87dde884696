"""ansible 2.19's ``ReplacingMarkerBehavior``, as a task's name is templated with it
(``Task._post_validate_name``): every undefined value a template gives as a piece of its output
becomes ``<< error N - MESSAGE >>``, numbered in the order they are replaced, and reported in
warnings grouped by the template each came from. A piece whose expression raises on an undefined
value or fails otherwise (an operation on it, an index by it, a Python error) ends that template's
output there, as ansible's ``_flatten_nodes`` does: the failure's marker, then a
``TruncationMarker`` ("template potentially truncated"), and the rest of that template is lost. A
filter or test that fails gives its failure as a value instead (ansible's plugins return a
``CapturedExceptionMarker``), replaced where it is shown, ending the template only where an
operation uses it. A variable's own template read meanwhile is
rendered the same way, its markers becoming text (or, when it is one undefined piece, the
undefined value the reader then meets).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TYPE_CHECKING = False  # typing stays unimported on a cold start (engine.templating.lazy_variables imports this)
if TYPE_CHECKING:
    from typing import Any

TRUNCATED = "template potentially truncated"


class _Failure:
    """The marker of a piece whose expression raised: its message, where it was made, and whether
    an undefined value's (or the truncation's) rather than a captured failure's."""

    __slots__ = ("message", "origin", "undefined")

    def __init__(self, message: str, origin: Any, undefined: bool = True) -> None:
        self.message, self.origin, self.undefined = message, origin, undefined


class Replacing:
    """The markers replaced so far, in order: (message, origin); ``origin``: where the template
    rendered first (the task's name) is written."""

    def __init__(self, origin: Any, routing: bool = False) -> None:
        self.origin = origin
        self.routing = routing  # debug's RoutingMarkerBehavior: a captured failure is not replaced but fails
        self.markers: list[tuple[str, Any]] = []
        self._depth = 0

    def concat(self, concat: Callable[[Iterator[Any]], Any], nodes: Iterator[Any], origin: Callable[[], Any],
               message_of: Callable[[Exception], str | None], captured: Callable[[Any], bool]) -> Any:
        """A template's output pieces ``nodes`` joined by ``concat`` (the environment's), its
        undefined pieces replaced; ``origin()``: where the template being rendered is written;
        ``message_of(exc)``: the marker message of an exception a piece raised (None: it ends the
        templating); ``captured(piece)``: whether an undefined piece is a captured failure.
        A lone undefined piece of a template read by another stays undefined (its reader meets it)."""
        from jinja2 import Undefined

        from engine.templating.errors import undefined_cause, value_origin

        top = self._depth == 0
        self._depth += 1
        pieces: list[Any] = []
        try:
            for node in nodes:
                if node is not None:
                    pieces.append(node)
        except Exception as exc:
            message = message_of(exc)
            if message is None:
                raise
            where = origin()
            pieces += [_Failure(message, value_origin(exc) or where, undefined_cause(exc)), _Failure(TRUNCATED, where)]
        finally:
            self._depth -= 1
        if len(pieces) == 1 and isinstance(pieces[0], Undefined) and not top:
            return pieces[0]
        shown = [self._replaced(piece, origin, captured) if isinstance(piece, Undefined | _Failure) else piece
                 for piece in pieces]
        return concat(iter(shown))

    def _replaced(self, piece: Any, origin: Callable[[], Any], captured: Callable[[Any], bool]) -> str:
        from engine.templating.errors import TemplateFailure

        if isinstance(piece, _Failure):
            message, where = piece.message, piece.origin
        else:
            message, where = piece._undefined_message, getattr(piece, "value_origin", None) or origin()
        if self.routing and (not piece.undefined if isinstance(piece, _Failure) else captured(piece)):
            raise TemplateFailure(message)
        self.markers.append((message, where))
        return f"<< error {len(self.markers)} - {message} >>"

    def all_shown(self, value: Any) -> bool:
        """Whether every marker replaced so far is in ``value``'s text: one made in a value the
        result does not show (an item of a list the engine renders whole, which ansible renders
        only when read) would not have been made by ansible."""
        texts: list[str] = []

        def collect(item: Any) -> None:
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, dict):
                for key, each in item.items():
                    collect(key)
                    collect(each)
            elif isinstance(item, list | tuple):
                for each in item:
                    collect(each)

        collect(value)
        return all(any(f"<< error {number} - {message} >>" in text for text in texts)
                   for number, (message, _origin) in enumerate(self.markers, 1))

    def warnings(self) -> list[tuple[str, Any]]:
        """ansible's warnings for the markers: "Encountered N template error(s)." with each one's
        number and message, one warning per run of markers made in the same template."""
        groups: list[tuple[Any, list[str]]] = []
        for number, (message, where) in enumerate(self.markers, 1):
            if groups and groups[-1][0] == where:
                groups[-1][1].append(f"error {number} - {message}")
            else:
                groups.append((where, [f"error {number} - {message}"]))
        return [(f"Encountered {len(errors)} template error{'s' if len(errors) > 1 else ''}.\n" + "\n".join(errors),
                 where) for where, errors in groups]


_ACTIVE: ContextVar[Replacing | None] = ContextVar("_ACTIVE", default=None)


def replacing() -> Replacing | None:
    """The markers being replaced, while a template is rendered so; None otherwise."""
    return _ACTIVE.get()


@contextmanager
def replacing_markers(origin: Any, routing: bool = False) -> Iterator[Replacing]:
    """Templates rendered within replace their undefined pieces (the first one at ``origin``);
    ``routing``: only undefined values and truncations, a captured failure failing the rendering."""
    token = _ACTIVE.set(Replacing(origin, routing))
    try:
        yield _ACTIVE.get()  # type: ignore[misc]
    finally:
        _ACTIVE.reset(token)

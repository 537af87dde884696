"""Source ranges, and the mappings and sequences that remember them. Kept apart from the
YAML loader so that code which only reads positions does not import ruamel.yaml."""

from __future__ import annotations

from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Span(NamedTuple):
    """A source range. ``line`` and ``col`` are 0-based and count code points."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def human(self) -> str:
        """``file:line:col`` with 1-based numbers, the way editors and compilers print it."""
        return f"{self.file}:{self.line + 1}:{self.col + 1}"


class YMap(dict):
    """A mapping that remembers its own span and the span of each key and value."""

    __slots__ = ("span", "key_spans", "value_spans")

    def __init__(self, span: Span | None = None) -> None:
        super().__init__()
        self.span = span
        self.key_spans: dict[Any, Span] = {}
        self.value_spans: dict[Any, Span] = {}


class YSeq(list):
    """A sequence that remembers its own span and the span of each item."""

    __slots__ = ("span", "item_spans")

    def __init__(self, span: Span | None = None) -> None:
        super().__init__()
        self.span = span
        self.item_spans: list[Span] = []

"""What loading a YAML file gives: its data, or a positioned problem.

Kept apart from the parser so that a parse answered from the cache imports no YAML library.
"""

from __future__ import annotations

from engine.records import NamedTuple
from engine.span import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class YamlProblem(NamedTuple):
    message: str
    span: Span

    def __str__(self) -> str:
        return f"{self.span.human()}: {self.message}"


class Loaded(NamedTuple):
    """A parsed file: its data, or the error that stopped parsing; ``duplicates`` are the keys
    its mappings give twice (the later one wins), in the order ansible's constructor meets them."""

    path: str
    data: Any = None
    error: YamlProblem | None = None
    duplicates: tuple[YamlProblem, ...] = ()

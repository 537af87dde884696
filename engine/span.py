"""Source ranges. Kept apart from the YAML loader so that code which only reports
positions does not import ruamel.yaml."""

from __future__ import annotations

from typing import NamedTuple


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

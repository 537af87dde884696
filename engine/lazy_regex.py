"""Regular expressions compiled the first time they are used.

A module-level ``re.compile`` runs whenever the module is imported; most of the expressions
below serve inputs a short run never meets (numbers in YAML, requirements files, format
specifications), and together they were a thirtieth of a cold listing of a small playbook.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LazyRegex:
    """``re.compile(pattern, flags)``, done on the first use of any of its methods (``match``,
    ``search``, ...), which are then the compiled pattern's own."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)  # later uses find it without coming here
        return value

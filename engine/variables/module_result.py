"""A registered result of which only some keys are known before the run (a module's, or a
``debug`` whose message only the run knows)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class ModuleResult(Mapping[str, Any]):
    """A module's registered result before the run: the keys whose values are known (a
    ``changed`` that ``changed_when`` decided, a loop item's own variables, a loop's ``results``)
    and those known to be absent (``results`` of a task without a loop, ``skipped`` of an item a
    command ran outside check mode); anything else, and so the whole, only the run gives."""

    def __init__(self, known: Mapping[str, Any], label: str, absent: frozenset[str] = frozenset(),
                 uniform: bool = False, why: str | None = None, shaped: bool = False) -> None:
        self._known, self._absent, self._label, self._why = dict(known), absent, label, why
        self.shaped = shaped
        """The result of an action whose shape is known (``debug``, ``set_fact``, ``assert``), some of
        whose values only the run knows: its ``changed`` and ``failed`` decided as a loop reads them."""
        self.unknown_whole = f"the result of {label}"
        self.uniform = uniform
        """The same on every host (what the plan may share between hosts)."""

    def __getitem__(self, key: str) -> Any:
        from engine.templating.errors import RunTimeOnly

        if key in self._known:
            return self._known[key]
        if key in self._absent:
            raise KeyError(key)
        raise RunTimeOnly(f"{key!r} of {self.unknown_whole} is known only at run time"
                          + (f" ({self._why})" if self._why else ""))

    def with_known(self, **more: Any) -> ModuleResult:
        """This result with ``more`` known as well (a ``changed`` its ``changed_when`` gives, a loop
        item's variables)."""
        return ModuleResult({**self._known, **more}, self._label, self._absent - set(more), self.uniform, self._why,
                            self.shaped)

    @property
    def known(self) -> dict[str, Any]:
        """The keys whose values are known, with them."""
        return dict(self._known)

    @property
    def absent(self) -> frozenset[str]:
        """The keys known to be absent."""
        return self._absent

    def decides(self, key: str) -> bool:
        """Whether the run's value of ``key`` is known: known, or known to be absent."""
        return key in self._known or key in self._absent

    def __contains__(self, key: object) -> bool:
        if key in self._known or key in self._absent:
            return key in self._known
        return bool(self[str(key)])  # raises: whether the module gives it is the run's

    def __iter__(self) -> Iterator[str]:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"{self.unknown_whole} is known only at run time")

    def __len__(self) -> int:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"{self.unknown_whole} is known only at run time")

    def __bool__(self) -> bool:
        """Every registered result has ``changed`` at least (``TaskExecutor`` sets it), so never
        empty: ``when: not result`` is false, however many keys only the run gives."""
        return True
